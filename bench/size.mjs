// Size and start-up: the release .wasm raw and gzip -9, the JS glue and entry modules, and
// the time from `import("mcp-cancel")` to the first `track()` returning, in fresh Node
// processes (the median of 20).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

import { LEAST_JS, LEAST_JS_PARSED, writeLeastJs } from "./least-js.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

const FILES = [
  ["pkg/web/mcp_cancel_bg.wasm", ".wasm (release, wasm-opt)"],
  ["pkg/web/mcp_cancel.js", "wasm-bindgen glue, web (ES module)"],
  ["dist/node/index.mjs", "Node entry for import (esbuild bundle of js/ and the web glue, ES module)"],
  ["dist/node/index.cjs", "Node entry for require() (the same, CommonJS)"],
  ["js/browser.js", "browser entry"],
  ["js/session.js", "CancellationSession (shared)"],
  ["js/guard.js", "guardTransport (shared)"],
];

/** `{ path, what, raw, gzip }` of a file of the repository: its bytes, and gzip -9 (zlib). */
function measure([path, what]) {
  const bytes = readFileSync(`${root}/${path}`);
  return { path, what, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

export function sizes() {
  return FILES.filter(([path]) => existsSync(`${root}/${path}`)).map(measure);
}

/**
 * The floors' `.wasm` beside ours (issue #24: a row not met is judged against its floor,
 * measured in the same run): ../shared/floor's (track → response only, bench/floor/build.sh)
 * and bench/floor-rules's (every rule of the session's `.wasm`, written for size).
 */
export function floorSizes() {
  return [
    ["bench/fixtures/node_modules/floor/floor_bg.wasm", "../shared/floor: track → response only"],
    ["bench/fixtures/node_modules/floor-rules/floor_rules_bg.wasm", "bench/floor-rules: every rule of the session, written for size"],
  ].map(measure);
}

/**
 * A probe: `import` of `specifier`'s `CancellationSession`, then `steps`; prints the ms from
 * before the import to after the steps (what it measures inside the process).
 */
const timed = (specifier, steps) => `
const t0 = performance.now();
const { CancellationSession } = await import(${JSON.stringify(specifier)});
${steps}
const t1 = performance.now();
process.stdout.write(String(t1 - t0));
`;

/** The start-up row's probe: a session without options and its first `track()`. */
const probe = (specifier) => timed(specifier, `const session = new CancellationSession();
session.track(1, "tools/call");`);

/**
 * The same to a first round trip as the README's low-level API makes it (its "The low-level
 * API" example): a session with `send`, `track()` of `initialize` with its params, and the
 * response through `shouldDropIncoming()`. Every documented use passes options (`send`, or
 * `guardTransport`'s), which the start-up row's probe does not. Its floor,
 * bench/fixtures/node_modules/floor-documented (bench/floor-rules/documented.js), runs the same
 * probe.
 */
const documentedProbe = (specifier) => timed(specifier, `const session = new CancellationSession({ send() {} });
const params = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1.0.0" } };
session.track(0, "initialize", { params });
session.shouldDropIncoming({ jsonrpc: "2.0", id: 0, result: { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: "s", version: "1" } } });`);

function median(specifier, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", probe(specifier)], { cwd: root, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`start-up probe failed: ${r.stderr}`);
    times.push(Number(r.stdout));
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(runs / 2)], minMs: times[0], maxMs: times[runs - 1] };
}

/**
 * Time from `import("mcp-cancel")` to the first `track()` returning, median of `runs`
 * fresh processes; and the same for a one-class CommonJS module imported the same way
 * (Node's own cost of a first dynamic import of a CommonJS package: the floor).
 */
export function startup(runs = 20) {
  const pkg = median("mcp-cancel", runs);
  const floor = median("./bench/fixtures/empty.cjs", runs);
  return { runs, ...pkg, floorMs: floor.medianMs, ownMs: pkg.medianMs - floor.medianMs };
}

/**
 * What `import("mcp-cancel")` + one session + its first `track()` add to a bare `node`
 * process, measured from outside on whole processes: `runs` pairs run alternately (the
 * package's probe, then `node -e ""`), each pair's difference of wall times, the median
 * of the differences (pairing keeps the figure meaningful while the machine's speed drifts).
 */
export function pairedStartup(runs = 20) {
  // The probes' own figure, from `import` to the first `track()` returning inside the process
  // (what the probe prints), by probe: read beside the wall time of the same processes.
  const inside = { a: [], o: [], w: [], r: [], d: [], f: [], m: [], j: [] };
  let printed = NaN;
  const wall = (args, cwd = root) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { cwd, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`start-up probe failed: ${r.stderr}`);
    printed = Number(r.stdout);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const withPackage = ["--input-type=module", "-e", probe("mcp-cancel")];
  const bare = ["--input-type=module", "-e", ""];
  // Node's own part: the same probe importing a one-class CommonJS file. A bare `-e ""`
  // never starts the module loader; any first dynamic import does.
  const withFloor = ["--input-type=module", "-e", probe("./bench/fixtures/empty.cjs")];
  // Issue #24's yardstick: the same probe importing a one-line ES module package from
  // node_modules (bench/fixtures/node_modules/one-line), a user's honest alternative; run
  // from bench/fixtures, where "mcp-cancel" still resolves to this package (self-reference).
  const fixtures = path.join(root, "bench", "fixtures");
  const withOneLine = ["--input-type=module", "-e", probe("one-line")];
  // The floor of that row (issue #24's "prototype of the floor"): the same probe importing
  // bench/fixtures/node_modules/floor, the 32.5 KB .wasm of ../shared/floor loaded the way
  // this package's Node build is (bench/floor/build.sh), a constructor that makes its table
  // and a track() of one numbers-only call.
  const withWasmFloor = ["--input-type=module", "-e", probe("floor")];
  // The same with the floor of the session's whole rule set (bench/floor-rules/build.sh): its
  // .wasm loaded the same way, a constructor that makes a session and a numbers-only track().
  const withRulesFloor = ["--input-type=module", "-e", probe("floor-rules")];
  // Reported beside them: the package's first round trip as its README does it, and that
  // round trip's floor (the rule set's .wasm behind a class that does only what it needs).
  const withDocumented = ["--input-type=module", "-e", documentedProbe("mcp-cancel")];
  const withDocumentedFloor = ["--input-type=module", "-e", documentedProbe("floor-documented")];
  // Where ours goes over the rule set's floor (bench/least-js.mjs, made from this build): its
  // own .wasm behind the least JavaScript the probe needs, and the same with the package's
  // bundle compiled and never run.
  writeLeastJs();
  const withLeastJs = ["--input-type=module", "-e", probe(LEAST_JS)];
  const withLeastJsParsed = ["--input-type=module", "-e", probe(LEAST_JS_PARSED)];
  wall(withPackage);
  wall(bare);
  wall(withFloor);
  wall(withOneLine, fixtures);
  wall(withWasmFloor, fixtures);
  wall(withRulesFloor, fixtures);
  wall(withDocumented, fixtures);
  wall(withDocumentedFloor, fixtures);
  wall(withLeastJs, fixtures);
  wall(withLeastJsParsed, fixtures);
  const diffs = [];
  const bares = [];
  const overFloor = [];
  const overOneLine = [];
  const floorOverOneLine = [];
  const overWasmFloor = [];
  const rulesFloorOverOneLine = [];
  const overRulesFloor = [];
  const documentedOverOneLine = [];
  const documentedFloorOverOneLine = [];
  for (let i = 0; i < runs; i++) {
    // The order turns each round: no probe always runs first or after the same one.
    const order = [
      ["a", () => wall(withPackage, fixtures)],
      ["o", () => wall(withOneLine, fixtures)],
      ["w", () => wall(withWasmFloor, fixtures)],
      ["r", () => wall(withRulesFloor, fixtures)],
      ["d", () => wall(withDocumented, fixtures)],
      ["f", () => wall(withDocumentedFloor, fixtures)],
      ["m", () => wall(withLeastJs, fixtures)],
      ["j", () => wall(withLeastJsParsed, fixtures)],
    ];
    const t = {};
    for (let k = 0; k < order.length; k++) {
      const [name, run] = order[(k + i) % order.length];
      t[name] = run();
      inside[name].push(printed);
    }
    const b = wall(bare);
    const f = wall(withFloor);
    diffs.push(t.a - b);
    bares.push(b);
    overFloor.push(t.a - f);
    overOneLine.push(t.a - t.o);
    floorOverOneLine.push(t.w - t.o);
    overWasmFloor.push(t.a - t.w);
    rulesFloorOverOneLine.push(t.r - t.o);
    overRulesFloor.push(t.a - t.r);
    documentedOverOneLine.push(t.d - t.o);
    documentedFloorOverOneLine.push(t.f - t.o);
  }
  const med = (x) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)];
  return {
    runs,
    addedMs: med(diffs),
    bareMs: med(bares),
    overFloorMs: med(overFloor),
    overOneLineMs: med(overOneLine),
    wasmFloorOverOneLineMs: med(floorOverOneLine),
    overWasmFloorMs: med(overWasmFloor),
    rulesFloorOverOneLineMs: med(rulesFloorOverOneLine),
    overRulesFloorMs: med(overRulesFloor),
    documentedOverOneLineMs: med(documentedOverOneLine),
    documentedFloorOverOneLineMs: med(documentedFloorOverOneLine),
    // Inside the same processes (`import` to the first `track()` returning): steadier than
    // the wall times, which carry each process's start and exit; the paired differences are
    // the medians of the rounds' differences.
    inside: {
      ms: med(inside.a),
      oneLineMs: med(inside.o),
      wasmFloorMs: med(inside.w),
      overOneLineMs: med(inside.a.map((x, k) => x - inside.o[k])),
      overWasmFloorMs: med(inside.a.map((x, k) => x - inside.w[k])),
      wasmFloorOverOneLineMs: med(inside.w.map((x, k) => x - inside.o[k])),
      rulesFloorMs: med(inside.r),
      rulesFloorOverOneLineMs: med(inside.r.map((x, k) => x - inside.o[k])),
      overRulesFloorMs: med(inside.a.map((x, k) => x - inside.r[k])),
      documentedMs: med(inside.d),
      documentedOverOneLineMs: med(inside.d.map((x, k) => x - inside.o[k])),
      documentedFloorMs: med(inside.f),
      documentedFloorOverOneLineMs: med(inside.f.map((x, k) => x - inside.o[k])),
      leastJsOverOneLineMs: med(inside.m.map((x, k) => x - inside.o[k])),
      leastJsParsedOverOneLineMs: med(inside.j.map((x, k) => x - inside.o[k])),
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // `node bench/size.mjs [runs] [--paired]`: --paired measures the paired rows only.
  const runs = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 20);
  if (!process.argv.includes("--paired")) {
    console.table(sizes());
    console.table(floorSizes());
    console.log(startup(runs));
  }
  console.log(pairedStartup(runs));
}

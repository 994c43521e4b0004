// Start-up by steps (issue #24's start-up row, taken apart): where the time of
// `import` + the first `new CancellationSession()` + its first `track()` goes, in fresh
// processes, for this package's Node build, its .wasm behind the least JavaScript with and without
// the package's bundle parsed (bench/least-js.mjs), and the floors (bench/fixtures/node_modules/
// floor-rules and floor), each loaded as it ships: one ES module bundle that reads its .wasm. Each is
// copied to a temporary folder with `performance.now()` marks added (at the bundle's first
// line, after Node resolved, read, compiled and linked it, and at its last, after its top
// level ran), and the copies run alternately:
//
//   node bench/startup-steps.mjs [--runs N] [other build folders…]
//
// An other build folder is a checkout with its own dist/node/ and pkg/web/ (as bench/ab.mjs
// takes one); one from before dist/node/index.mjs (an ES module entry that `createRequire`d
// dist/node/index.cjs) is loaded that way, with a mark after the `createRequire`. Medians in
// ms; a step moves by ±0.05 ms from run to run here, the first one (Node's ES module loader)
// by more.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

import { LEAST_JS, LEAST_JS_PARSED, writeLeastJs } from "./least-js.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values, positionals } = parseArgs({ options: { runs: { type: "string", default: "31" } }, allowPositionals: true });
const runs = Number(values.runs);

const mark = (name) => `globalThis.__steps.push([${JSON.stringify(name)}, performance.now()]);`;

/** `bundle` of the copy in `dir`, with a mark before its first line and after its last. */
function markBundle(dir, bundle, first) {
  const text = readFileSync(join(dir, bundle), "utf8");
  writeFileSync(join(dir, bundle), `${first}${text}\n${mark("the bundle's top level")}\n`);
}

/**
 * A marked copy of a package whose entry is the ES module bundle `bundle`, which reads `wasm`
 * (paths relative to the package, as the bundle finds them).
 */
function copy(label, from, bundle, wasm) {
  const dir = mkdtempSync(join(tmpdir(), "mcp-cancel-steps-"));
  for (const f of [bundle, wasm, ...(bundle.endsWith(".js") ? ["package.json"] : [])]) cpSync(join(from, f), join(dir, f), { recursive: true });
  markBundle(dir, bundle, `globalThis.__steps = [["resolving, reading, compiling and linking the bundle", performance.now()]];`);
  return { label, dir, entry: join(dir, bundle) };
}

/** The same for a build from before dist/node/index.mjs: its ES module entry `createRequire`d dist/node/index.cjs. */
function copyOld(label, from) {
  const dir = mkdtempSync(join(tmpdir(), "mcp-cancel-steps-"));
  const bundle = "dist/node/index.cjs";
  for (const f of [bundle, "pkg/web/mcp_cancel_bg.wasm"]) cpSync(join(from, f), join(dir, f), { recursive: true });
  markBundle(dir, bundle, mark("createRequire and reading and compiling the CommonJS bundle"));
  const entry = [
    `globalThis.__steps = [["resolving, reading, compiling and linking the bundle", performance.now()]];`,
    `import { createRequire } from "node:module";`,
    `const cjs = createRequire(import.meta.url)("./${bundle}");`,
    `export const { CancellationSession } = cjs;`,
    "",
  ].join("\n");
  writeFileSync(join(dir, "entry.mjs"), entry);
  return { label, dir, entry: join(dir, "entry.mjs") };
}

const ours = (label, from) =>
  existsSync(join(from, "dist/node/index.mjs")) ? copy(label, from, "dist/node/index.mjs", "pkg/web/mcp_cancel_bg.wasm") : copyOld(label, from);
// This build's .wasm behind the least JavaScript, and the same with the package's bundle
// compiled and never run (bench/least-js.mjs): what the .wasm costs, and what compiling the
// package's JavaScript costs before any of it runs.
const leastJs = mkdtempSync(join(tmpdir(), "mcp-cancel-least-js-"));
writeLeastJs(root, leastJs);
const builds = [
  ours("mcp-cancel", root),
  ...positionals.map((p) => ours(basename(resolve(p)), resolve(p))),
  copy("its .wasm, least JS", join(leastJs, LEAST_JS), "index.js", "mcp_cancel_bg.wasm"),
  copy("+ its JS parsed", join(leastJs, LEAST_JS_PARSED), "index.js", "mcp_cancel_bg.wasm"),
  copy("floor-rules", join(root, "bench/fixtures/node_modules/floor-rules"), "index.js", "floor_rules_bg.wasm"),
  copy("floor", join(root, "bench/fixtures/node_modules/floor"), "index.js", "floor_bg.wasm"),
];
rmSync(leastJs, { recursive: true, force: true });

const IN_ALL = "in all";
const probe = (file) => `
const t0 = performance.now();
const { CancellationSession } = await import(${JSON.stringify(file)});
${mark("the rest of the import")}
const session = new CancellationSession();
${mark("the first new CancellationSession()")}
session.track(1, "tools/call");
${mark("the first track()")}
const steps = [["import", t0], ...globalThis.__steps];
process.stdout.write(JSON.stringify([...steps.slice(1).map(([name, t], i) => [name, t - steps[i][1]]), [${JSON.stringify(IN_ALL)}, steps.at(-1)[1] - t0]]));`;

const times = builds.map(() => new Map());
try {
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < builds.length; j++) {
      const k = (i + j) % builds.length;
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", probe(builds[k].entry)], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(`${builds[k].label}: ${r.stderr}`);
      for (const [name, ms] of JSON.parse(r.stdout)) {
        if (!times[k].has(name)) times[k].set(name, []);
        times[k].get(name).push(ms);
      }
    }
  }
} finally {
  for (const b of builds) rmSync(b.dir, { recursive: true, force: true });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Every build's steps in order, the build with most first (one from before the ES module entry
// has one more), "—" where a build has none.
const steps = [...new Set(times.toSorted((a, b) => b.size - a.size).flatMap((t) => [...t.keys()]))];
console.log(`| step (ms, median of ${runs} processes) | ${builds.map((b) => b.label).join(" | ")} |`);
console.log(`|---|${builds.map(() => "---:").join("|")}|`);
// "in all": the last mark less the probe's start, in each process (the steps' sum, read whole).
for (const s of steps.filter((s) => s !== IN_ALL)) console.log(`| ${s} | ${times.map((t) => (t.has(s) ? median(t.get(s)).toFixed(2) : "—")).join(" | ")} |`);
console.log(`| in all | ${times.map((t) => median(t.get(IN_ALL)).toFixed(2)).join(" | ")} |`);

// Size and start-up: the release .wasm raw and gzip -9, the JS glue and entry modules, and
// what `import("mcp-cancel")` + a session + its first `track()` cost a fresh Node process over
// importing a one-line package (bench/fixtures/node_modules/one-line).
//
//   node bench/size.mjs [pairs = 20]
import { spawnSync } from "node:child_process";
import path from "node:path";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = fileURLToPath(new URL("..", import.meta.url));

const FILES = [
  ["pkg/web/mcp_cancel_bg.wasm", ".wasm (release, wasm-opt): what a page loads"],
  ["pkg/web/mcp_cancel.js", "wasm-bindgen glue, web (ES module)"],
  ["dist/node/index.mjs", "Node entry for import (esbuild bundle of js/ and the web glue)"],
  ["dist/node/index.cjs", "Node entry for require() (the same, CommonJS)"],
  ["js/browser.js", "browser entry"],
  ["js/session.js", "CancellationSession (shared by every entry)"],
  ["js/guard.js", "guardTransport (shared by every entry)"],
];

/** `{ path, what, raw, gzip }` of each file of FILES that exists: its bytes, and gzip -9 (zlib). */
export function sizes() {
  return FILES.filter(([file]) => existsSync(`${root}/${file}`)).map(([file, what]) => {
    const bytes = readFileSync(`${root}/${file}`);
    return { path: file, what, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
}

/**
 * A probe: `import` of `specifier`'s `CancellationSession`, a session without options and its
 * first `track()`; prints the ms from before the import to after the `track()` (the time inside
 * the process: no process start or exit in it).
 */
const probe = (specifier) => `
const t0 = performance.now();
const { CancellationSession } = await import(${JSON.stringify(specifier)});
const session = new CancellationSession();
session.track(1, "tools/call");
process.stdout.write(String(performance.now() - t0));
`;

const med = (xs) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];

/**
 * `pairs` rounds, each running the package's probe and the one-line package's in fresh
 * processes, the order turning every round (a drift of the machine's speed hits both alike).
 * Both run from bench/fixtures, where "one-line" resolves and "mcp-cancel" still resolves to
 * this package (self-reference). Per round: the difference of the whole processes' wall times
 * (timed from outside) and of what each probe prints; the medians of those differences.
 */
export function startup(pairs = 20) {
  const cwd = path.join(root, "bench", "fixtures");
  const run = (specifier) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", probe(specifier)], { cwd, encoding: "utf8" });
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`start-up probe failed: ${r.stderr}`);
    return { wallMs, insideMs: Number(r.stdout) };
  };
  // One of each first: the files in the page cache, for both.
  run("mcp-cancel");
  run("one-line");
  const ours = [];
  const oneLine = [];
  for (let i = 0; i < pairs; i++) {
    if (i % 2) {
      oneLine.push(run("one-line"));
      ours.push(run("mcp-cancel"));
    } else {
      ours.push(run("mcp-cancel"));
      oneLine.push(run("one-line"));
    }
  }
  const diff = (key) => med(ours.map((x, k) => x[key] - oneLine[k][key]));
  return {
    pairs,
    // The bound: whole processes, ours over the one-line package's.
    overOneLineMs: diff("wallMs"),
    // Beside it, inside the processes: steadier, without process start and exit.
    inside: { ms: med(ours.map((x) => x.insideMs)), oneLineMs: med(oneLine.map((x) => x.insideMs)), overOneLineMs: diff("insideMs") },
    wallMs: med(ours.map((x) => x.wallMs)),
    oneLineWallMs: med(oneLine.map((x) => x.wallMs)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(sizes());
  console.log(startup(Number(process.argv[2] ?? 20)));
}

// Whether V8 can inline the JS of the hot path of scenario 1b (`track` and
// `shouldDropResponse` of a string id, and `packWords`, which packs the id): TurboFan inlines
// a function of at most `--max-inlined-bytecode-size` bytes of bytecode (460 in Node 20).
// `track` over that limit, or `packWords` (its unrolled switch was 483 bytes), cost 1b with
// string ids 8-11% (issue #24, BENCHMARKS.md "eighth session"): a row of the Targets table
// keeps that from coming back unseen. Each function's bytecode is printed by V8 itself
// (`--print-bytecode`) when a fresh process first calls it. The bundle is minified
// (scripts/bundle-node.mjs): a function's name there is read from the bundle's source map.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { decode } from "@jridgewell/sourcemap-codec";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The functions of the hot path (the Node bundle's names for them). */
export const HOT = ["track", "shouldDropResponse", "packWords"];

const PROBE = `
const { CancellationSession } = require("./dist/node/index.cjs");
const s = new CancellationSession({ send() {} });
s.track("req-1", "tools/call");
if (s.shouldDropResponse("req-1")) throw new Error("delivered");
`;

/** V8's limit (bytes of bytecode) for inlining one function, in this `node`. */
function limit() {
  const options = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8" });
  const m = /--max-inlined-bytecode-size=(\d+)/.exec(options);
  if (!m) throw new Error("bench/inlining.mjs: node --v8-options names no --max-inlined-bytecode-size");
  return Number(m[1]);
}

/**
 * What the minifier called the function `name` of js/*.js in dist/node/index.cjs: the
 * identifiers at the source map's segments named `name` (one, or the name is ambiguous). A
 * method keeps its name (the minifier renames no property).
 */
function nameInBundle(name) {
  const code = readFileSync(`${root}dist/node/index.cjs`, "utf8").split("\n");
  const map = JSON.parse(readFileSync(`${root}dist/node/index.cjs.map`, "utf8"));
  const found = new Set();
  // Each segment: [generated column, source, line, column, name], decoded.
  decode(map.mappings).forEach((segments, line) => {
    for (const [column, , , , nameIndex] of segments) {
      if (nameIndex === undefined || map.names[nameIndex] !== name) continue;
      const id = /^[A-Za-z_$][\w$]*/.exec(code[line].slice(column));
      if (id) found.add(id[0]);
    }
  });
  if (found.size > 1) throw new Error(`bench/inlining.mjs: ${name} is ${[...found].join(", ")} in dist/node/index.cjs (expected one name)`);
  return found.size === 1 ? [...found][0] : name;
}

/** Bytes of bytecode of `name`, as V8 prints it on the probe's first call. */
function bytecodeLength(name) {
  const bundled = nameInBundle(name);
  const out = execFileSync(process.execPath, ["--print-bytecode", `--print-bytecode-filter=${bundled}`, "-e", PROBE], { cwd: root, encoding: "utf8" });
  const lengths = [...out.matchAll(/Bytecode length: (\d+)/g)].map((m) => Number(m[1]));
  if (lengths.length !== 1) throw new Error(`bench/inlining.mjs: ${lengths.length} functions named ${name} compiled by the probe (expected 1)`);
  return lengths[0];
}

/** `{ limit, functions: [{ name, bytes, inlinable }] }` for the package as built. */
export function inlining() {
  const max = limit();
  const functions = HOT.map((name) => {
    const bytes = bytecodeLength(name);
    return { name, bytes, inlinable: bytes <= max };
  });
  return { limit: max, functions };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(inlining(), null, 2));

// The source of bench/fixtures/node_modules/floor-rules/index.js (bench/floor-rules/build.sh):
// the .wasm of bench/floor-rules (every rule of the session, written for size) instantiated as
// js/node/entry.js instantiates mcp-cancel's (read in one call, `new WebAssembly.Module`,
// `initSync`), behind a CancellationSession whose constructor makes a session and whose
// track() is one numbers-only call — the start-up probe's steps, as bench/floor/entry.js, and
// nothing else (the floors of scenarios 1b and 3 are bench/floor-rules/scenarios.js).
import * as wasm from "floor-rules-glue";

// As js/node/entry.js: Node's modules from `process.getBuiltinModule`, not `import`.
const { readFileSync } = process.getBuiltinModule("node:fs");

wasm.initSync({ module: new WebAssembly.Module(readFileSync(`${import.meta.dirname}/floor_rules_bg.wasm`)) });

const TOOLS_CALL = 9;

export class CancellationSession {
  // A client on stdio with `send`, 1,024 tombstones, reasons of at most 1,024 bytes.
  #core = new wasm.Floor(2 | 4, 1024, 1024, Math.random() * 2 ** 52);
  track(id) {
    // A plain request with a number id: the hot path.
    return this.#core.track_number(id, TOOLS_CALL);
  }
}

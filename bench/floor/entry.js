// The source of bench/fixtures/node_modules/floor/index.js (bench/floor/build.sh): the
// floor's .wasm instantiated as js/node/entry.js instantiates mcp-cancel's (read in one call,
// `new WebAssembly.Module`, `initSync`), behind a CancellationSession whose constructor makes
// a table and whose track() is one numbers-only call; and `Floor1b`, the floor of scenario 1b
// (track → response, no signal) that bench/ops.mjs runs in the same rounds as mcp-cancel
// (issue #24: a row not met is judged against its floor measured in the same run).
import * as wasm from "floor-glue";

import { writeId } from "./ascii.js";

// As js/node/entry.js: Node's modules from `process.getBuiltinModule`, not `import`.
const { readFileSync } = process.getBuiltinModule("node:fs");

wasm.initSync({ module: new WebAssembly.Module(readFileSync(`${import.meta.dirname}/floor_bg.wasm`)) });

const TOOLS_CALL = 7;

export class CancellationSession {
  #table = new wasm.HashFloor();
  track(id) {
    this.#table.track(id, TOOLS_CALL);
  }
}

/**
 * `../shared/floor`'s `WindowFloor` (the caller's counter ids in a sliding window, any other id
 * hashed with foldhash) as scenario 1b drives it: `track(id)`, then `response(id)`. A string id
 * crosses as that crate's own benchmark crosses it: its bytes written into the floor's scratch
 * buffer (ASCII; `TextEncoder.encodeInto` otherwise), then a numbers-only call.
 */
export class Floor1b {
  #table = new wasm.WindowFloor();
  track(id) {
    if (typeof id === "number") this.#table.track(id, TOOLS_CALL);
    else this.#table.track_scratch(put(id), TOOLS_CALL);
  }
  response(id) {
    return typeof id === "number" ? this.#table.complete(id) : this.#table.complete_scratch(put(id));
  }
}

const memory = wasm.wasm_memory();
const scratchAt = wasm.scratch_ptr();
let view = new Uint8Array(memory.buffer, scratchAt, 1024);

function put(id) {
  // A view over a grown memory is detached (byteLength 0).
  if (view.byteLength === 0) view = new Uint8Array(memory.buffer, scratchAt, 1024);
  return writeId(id, view);
}

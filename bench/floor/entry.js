// The source of bench/fixtures/node_modules/floor/index.cjs (bench/floor/build.sh): the
// floor's .wasm instantiated as js/node/entry.js instantiates mcp-cancel's (read in one call,
// `new WebAssembly.Module`, `initSync`), behind a CancellationSession whose constructor makes
// a table and whose track() is one numbers-only call.
import { readFileSync } from "node:fs";
import * as wasm from "floor-glue";

wasm.initSync({ module: new WebAssembly.Module(readFileSync(`${__dirname}/floor_bg.wasm`)) });

const TOOLS_CALL = 7;

export class CancellationSession {
  #table = new wasm.HashFloor();
  track(id) {
    this.#table.track(id, TOOLS_CALL);
  }
}

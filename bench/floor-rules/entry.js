// The source of bench/fixtures/node_modules/floor-rules/index.js (bench/floor-rules/build.sh):
// the .wasm of bench/floor-rules (every rule of the session, written for size) instantiated as
// js/node/entry.js instantiates mcp-cancel's (read in one call, `new WebAssembly.Module`,
// `initSync`), behind a CancellationSession whose constructor makes a session and whose
// track() is one numbers-only call — the start-up probe's steps, as bench/floor/entry.js.
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

/**
 * Scenario 1b (track → response, no signal) on the rules floor, as `Floor1b` drives
 * ../shared/floor's table: a number id crosses as a number (the window of counter ids), a
 * string id as its bytes in the scratch buffer (ASCII; `TextEncoder.encodeInto` otherwise),
 * then one numbers-only call.
 */
export class Rules1b {
  #core = new wasm.Floor(2 | 4, 1024, 1024, Math.random() * 2 ** 52);
  track(id) {
    if (typeof id === "number") this.#core.track_number(id, TOOLS_CALL);
    else if (packWords(id)) this.#core.track_words(id.length, W0, W1, W2, TOOLS_CALL);
    else this.#core.track_scratch(put(id, this.#core), TOOLS_CALL);
  }
  response(id) {
    if (typeof id === "number") return this.#core.response_number(id);
    if (packWords(id)) return this.#core.response_words(id.length, W0, W1, W2);
    return this.#core.response_scratch(put(id, this.#core));
  }
}

// The words of the last `packWords` (the package's crossing of a short ASCII string id: its
// bytes as three little-endian words, no write to wasm memory).
let W0 = 0;
let W1 = 0;
let W2 = 0;

/** Whether `id` is ASCII of at most 11 bytes; then its bytes are in W0–W2. */
function packWords(id) {
  const n = id.length;
  if (n > 11) return false;
  let seen = 0;
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  for (let i = 0; i < n; i++) {
    const c = id.charCodeAt(i);
    seen |= c;
    if (i < 4) w0 |= c << (8 * i);
    else if (i < 8) w1 |= c << (8 * (i - 4));
    else w2 |= c << (8 * (i - 8));
  }
  if (seen > 0x7f) return false;
  W0 = w0;
  W1 = w1;
  W2 = w2;
  return true;
}

const encoder = new TextEncoder();
const memory = wasm.wasm_memory();
let scratchAt = -1;
let view;

function put(id, core) {
  if (scratchAt < 0) scratchAt = core.scratch();
  // A view over a grown memory is detached (byteLength 0).
  if (view === undefined || view.byteLength === 0) view = new Uint8Array(memory.buffer, scratchAt, 4096);
  const n = id.length;
  for (let i = 0; i < n; i++) {
    const c = id.charCodeAt(i);
    if (c > 0x7f) return encoder.encodeInto(id, view).written;
    view[i] = c;
  }
  return n;
}

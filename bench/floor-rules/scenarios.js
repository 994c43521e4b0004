// The source of bench/fixtures/node_modules/floor-scenarios/index.js (bench/floor-rules/build.sh):
// the floors of scenarios 1b and 3 on the .wasm of bench/floor-rules (every rule of the
// session, written for size; the floor-rules fixture's file), which bench/floors-1b.mjs and
// bench/ops.mjs run beside mcp-cancel. A bundle of its own: the floor-rules fixture, the start-up
// row's floor, holds only what that row's probe runs.
import * as wasm from "floor-rules-glue";

import { writeId } from "../floor/ascii.js";

const { readFileSync } = process.getBuiltinModule("node:fs");

wasm.initSync({ module: new WebAssembly.Module(readFileSync(`${import.meta.dirname}/../floor-rules/floor_rules_bg.wasm`)) });

const TOOLS_CALL = 9;

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

// The floor's verdicts (bench/floor-rules/lib.rs): the peer's cancel accepted, our response
// to a cancelled request suppressed.
const ABORT = 6;
const SUPPRESS = 8;

/**
 * Scenario 3 (the peer's request → its signal → the peer's cancel, which aborts it → our
 * response, suppressed) on the rules floor: the floor of that row, which bench/ops.mjs runs in
 * the same rounds as mcp-cancel (issue #24: a row not met is judged against its floor). The
 * JS reads what the rules need and no more — the method's code (a `Map` of the floor's own
 * table, each name asked once), the id (a number crosses as a number, a string as its bytes in
 * the scratch buffer), whether `params.task` is an object, the cancel's `requestId` and whether
 * its `reason` is a string — and keeps the `AbortController` of each request whose signal was
 * asked for, as mcp-cancel does. The floor's output (events no one asked for here) is not
 * read: its queue takes no more at its bound (2^16 numbers), so in measured rounds the floor
 * does no event work, as a session without `onEvent` does none.
 */
export class Rules3 {
  #core = new wasm.Floor(2 | 4, 1024, 1024, Math.random() * 2 ** 52);
  #codes = new Map();
  #inbound = new Map();

  /** The peer's request `message`. */
  request(message) {
    const core = this.#core;
    const id = message.id;
    const code = this.#code(message.method);
    const task = message.params?.task;
    const isTask = typeof task === "object" && task !== null;
    if (typeof id === "number") core.peer_request(id, -1, code, isTask);
    else core.peer_request(0, put(id, core), code, isTask);
  }

  /** The `AbortSignal` of the peer's request `id`. */
  signal(id) {
    const controller = new AbortController();
    this.#inbound.set(id, controller);
    return controller.signal;
  }

  /** The peer's `notifications/cancelled` `message`: aborts the request's signal. */
  cancelled(message) {
    const core = this.#core;
    const params = message.params;
    const id = params?.requestId;
    const reason = params?.reason;
    const valid = reason === undefined || typeof reason === "string";
    const verdict = typeof id === "number" ? core.peer_cancel(id, -1, valid) : typeof id === "string" ? core.peer_cancel(0, put(id, core), valid) : core.peer_cancel(0, -1, false);
    if (verdict !== ABORT) return;
    const controller = this.#inbound.get(id);
    if (controller === undefined) return;
    this.#inbound.delete(id);
    controller.abort(reason);
  }

  /** Our response `message`: `undefined` when the rules suppress it, else `message`. */
  beforeSend(message) {
    const core = this.#core;
    const id = message.id;
    const verdict = typeof id === "number" ? core.sent_response(id, -1) : core.sent_response(0, put(id, core));
    return verdict === SUPPRESS ? undefined : message;
  }

  #code(name) {
    let code = this.#codes.get(name);
    if (code === undefined) {
      // The name through the scratch buffer, as a string id crosses.
      code = this.#core.method(put(name, this.#core));
      this.#codes.set(name, code);
    }
    return code;
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

const memory = wasm.wasm_memory();
let scratchAt = -1;
let view;

function put(id, core) {
  if (scratchAt < 0) scratchAt = core.scratch();
  // A view over a grown memory is detached (byteLength 0).
  if (view === undefined || view.byteLength === 0) view = new Uint8Array(memory.buffer, scratchAt, 4096);
  return writeId(id, view);
}

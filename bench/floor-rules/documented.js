// The source of bench/fixtures/node_modules/floor-documented/index.js (bench/floor-rules/build.sh):
// the floor of a first round trip as mcp-cancel's README makes it with "The low-level API" (the
// reported row beside start-up in bench/run.mjs): the .wasm of bench/floor-rules (every rule of
// the session, written for size; the same file as the floor-rules fixture's) loaded as
// js/node/entry.js loads mcp-cancel's, behind a CancellationSession that does what that round
// trip needs and no more — a session with `send` (checked to be a function), `track()` of a
// request with options (the method's code from the floor's table, the id as a number), and
// the response through `shouldDropIncoming()` (the floor's `response()`, a negotiated protocol
// version handed to the floor's `set_version()`, the floor's output drained). A measurement,
// not a design: any other input is not handled.
import * as wasm from "floor-rules-glue";

// As js/node/entry.js: Node's modules from `process.getBuiltinModule`, not `import`.
const { readFileSync } = process.getBuiltinModule("node:fs");

wasm.initSync({ module: new WebAssembly.Module(readFileSync(`${import.meta.dirname}/../floor-rules/floor_rules_bg.wasm`)) });

const encoder = new TextEncoder();
const memory = wasm.wasm_memory();

/** The floor's scratch buffer (4,096 bytes) as a view of its memory as it is now. */
function scratchOf(core) {
  return new Uint8Array(memory.buffer, core.scratch(), 4096);
}

export class CancellationSession {
  #core;
  #send;

  constructor(options) {
    const send = options?.send;
    if (send !== undefined && typeof send !== "function") throw new TypeError("send must be a function");
    // A client on stdio, with `send` when given, 1,024 tombstones, reasons of at most 1,024 bytes.
    this.#core = new wasm.Floor(2 | (send === undefined ? 0 : 4), 1024, 1024, Math.random() * 2 ** 52);
    this.#send = send;
  }

  track(id, method, options) {
    // The method's code from the floor's own table (its name through the scratch buffer).
    const core = this.#core;
    const code = core.method(encoder.encodeInto(method, scratchOf(core)).written);
    const signal = options?.signal;
    const r = core.track(id, -1, code, signal === undefined ? 0 : 1, 0, -1, 0, 0, 0);
    if (r >= 100) throw new Error(`track refused: ${r}`);
  }

  shouldDropIncoming(message) {
    const core = this.#core;
    if (message.method === undefined) {
      const verdict = core.response(message.id, -1, -1);
      const version = message.result?.protocolVersion;
      if (typeof version === "string") core.set_version(encoder.encodeInto(version, scratchOf(core)).written);
      // The floor's output (here the revision's event): three numbers each.
      while (core.poll() !== 0) {
        core.poll();
        core.poll();
      }
      return verdict !== 0;
    }
    return false;
  }
}

// The source of bench/fixtures/node_modules/floor-documented/index.cjs (bench/floor-rules/build.sh):
// the floor of a first round trip as mcp-cancel's README makes it with "The low-level API" (the
// reported row beside start-up in bench/run.mjs): the .wasm of bench/floor-rules (every rule of
// the session, written for size; the same file as the floor-rules fixture's) loaded as
// js/node/entry.js loads mcp-cancel's, behind a CancellationSession that does what that round
// trip needs and no more — a session with `send` (checked to be a function), `track()` of a
// request with options (a known method's code from a JavaScript map, the id as a number), and
// the response through `shouldDropIncoming()` (the floor's `response()`, a negotiated protocol
// version handed to the floor's `set_version()`, the floor's output drained). A measurement,
// not a design: any other input is not handled.
import { readFileSync } from "node:fs";
import * as wasm from "floor-rules-glue";

wasm.initSync({ module: new WebAssembly.Module(readFileSync(`${__dirname}/../floor-rules/floor_rules_bg.wasm`)) });

// bench/floor-rules/lib.rs's METHODS, in order (code = index + 1; 0: any other method).
const METHODS = [
  "initialize",
  "notifications/cancelled",
  "notifications/progress",
  "notifications/tasks/status",
  "tasks/get",
  "tasks/result",
  "tasks/cancel",
  "tasks/list",
  "tools/call",
  "tools/list",
  "sampling/createMessage",
  "elicitation/create",
  "subscriptions/listen",
  "ping",
  "resources/read",
  "resources/list",
  "prompts/get",
  "prompts/list",
  "completion/complete",
  "server/discover",
];
let codes;

const encoder = new TextEncoder();
const memory = wasm.wasm_memory();

export class CancellationSession {
  #core;
  #send;

  constructor(options) {
    const send = options?.send;
    if (send !== undefined && typeof send !== "function") throw new TypeError("send must be a function");
    codes ??= new Map(METHODS.map((m, i) => [m, i + 1]));
    // A client on stdio, with `send` when given, 1,024 tombstones, reasons of at most 1,024 bytes.
    this.#core = new wasm.Floor(2 | (send === undefined ? 0 : 4), 1024, 1024, Math.random() * 2 ** 52);
    this.#send = send;
  }

  track(id, method, options) {
    const code = codes.get(method) ?? 0;
    const signal = options?.signal;
    const r = this.#core.track(id, -1, code, signal === undefined ? 0 : 1, 0, -1, 0, 0, 0);
    if (r >= 100) throw new Error(`track refused: ${r}`);
  }

  shouldDropIncoming(message) {
    const core = this.#core;
    if (message.method === undefined) {
      const verdict = core.response(message.id, -1, -1);
      const version = message.result?.protocolVersion;
      if (typeof version === "string") {
        const view = new Uint8Array(memory.buffer, core.scratch(), 4096);
        core.set_version(encoder.encodeInto(version, view).written);
      }
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

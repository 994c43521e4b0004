// Run by pkg-tests/session-memory.test.mjs as `node --expose-gc pkg-tests/memory/sessions.mjs
// <mode>`: makes rounds of sessions with requests in flight and ends each round's sessions as
// `mode` says — `close` (close()), `drop` (no reference kept: freed when collected) or `keep`
// (kept: the control, whose memory must grow) — then prints the wasm linear memory's size in
// bytes after each round, as JSON. The package does not export its WebAssembly.Memory: the
// instance is caught as the Node entry creates it (as bench/memory.mjs does).
import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";

const require = createRequire(import.meta.url);
const RealInstance = WebAssembly.Instance;
let instance;
WebAssembly.Instance = function (module, imports) {
  instance = new RealInstance(module, imports);
  return instance;
};
const { CancellationSession } = require("mcp-cancel");
WebAssembly.Instance = RealInstance;
const memory = instance.exports.memory;

const mode = process.argv[2];
const kept = [];
const sizes = [];
for (let round = 0; round < 6; round++) {
  for (let s = 0; s < 200; s++) {
    // A pending timeout's timer holds its session until it fires (its requests still time
    // out): the dropped sessions have none.
    const session = new CancellationSession(mode === "drop" ? { send() {} } : { send() {}, timeout: 60_000 });
    for (let i = 0; i < 20; i++) {
      session.track(i, "tools/call");
      session.track(`request-with-a-long-id-${round}-${s}-${i}`, "tools/call", { signal: new AbortController().signal });
    }
    if (mode === "close") session.close();
    else if (mode === "keep") kept.push(session);
  }
  // Collected sessions are freed by the FinalizationRegistry's callbacks, which run as tasks
  // after a collection.
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await sleep(20);
  }
  sizes.push(memory.buffer.byteLength);
}
process.stdout.write(JSON.stringify(sizes));

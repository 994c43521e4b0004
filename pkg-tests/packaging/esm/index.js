import assert from "node:assert/strict";
import { createRequire } from "node:module";

import { CancellationSession, createRelay, guardTransport, init, InvalidArgumentError } from "mcp-cancel";

await init(); // a no-op in Node, there for code shared with browsers
const sent = [];
const events = [];
const session = new CancellationSession({ send: (m) => sent.push(m), onEvent: (e) => events.push(e.type) });
const ac = new AbortController();
session.track(1, "tools/call", { signal: ac.signal });
ac.abort("user pressed stop");
assert.deepEqual(sent, [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "user pressed stop" } }]);
assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 1, result: {} }), true, "the late result is dropped");
assert.deepEqual(events, ["cancel-sent", "late-response-dropped"]);
assert.throws(() => session.track(1.5, "tools/call"), (e) => e instanceof InvalidArgumentError && e.code === "ERR_INVALID_REQUEST_ID");
assert.equal(typeof guardTransport, "function");
// The relay's JavaScript loads on first use with the error classes of the entry imported here.
assert.throws(() => createRelay(null), (e) => e instanceof InvalidArgumentError && e.code === "ERR_INVALID_OPTION");
// `require` after `import` gives the same module: one wasm instance, one set of error classes
// (cjs/index.js checks the other order).
const cjs = createRequire(import.meta.url)("mcp-cancel");
assert.equal(cjs.CancellationSession, CancellationSession);
assert.equal(cjs.InvalidArgumentError, InvalidArgumentError);
console.log("ok node-esm");

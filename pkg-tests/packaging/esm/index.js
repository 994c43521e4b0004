import assert from "node:assert/strict";

import { CancellationSession, guardTransport, init, InvalidArgumentError } from "mcp-cancel";

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
console.log("ok node-esm");

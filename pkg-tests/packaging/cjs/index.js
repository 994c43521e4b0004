const assert = require("node:assert/strict");

const mcpCancel = require("mcp-cancel");
const { CancellationSession, InvalidArgumentError } = mcpCancel;

const sent = [];
const session = new CancellationSession({ send: (m) => sent.push(m) });
const ac = new AbortController();
session.track("req-1", "tools/call", { signal: ac.signal });
ac.abort("user pressed stop");
assert.equal(sent.length, 1);
assert.equal(sent[0].params.requestId, "req-1");
assert.equal(session.shouldDropResponse("req-1"), true, "the late result is dropped");
assert.throws(() => session.track(null, "tools/call"), InvalidArgumentError);

// `import` and `require` give the same module: one wasm instance, one set of error classes.
import("mcp-cancel").then((esm) => {
  assert.equal(esm.CancellationSession, CancellationSession);
  assert.equal(esm.InvalidArgumentError, InvalidArgumentError);
  console.log("ok node-cjs");
});

// JSON-RPC batches (an array of messages; allowed by the 2025-03-26 revision only) are
// examined element by element: a late response inside a batch is dropped, the rest kept.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CancellationSession, guardTransport } from "mcp-cancel";

function session(protocolVersion) {
  const sent = [];
  const events = [];
  const s = new CancellationSession({ send: (m) => sent.push(m), onEvent: (e) => events.push(e), protocolVersion });
  return { s, sent, events };
}

describe("JSON-RPC batches", () => {
  test("2025-03-26: a late response inside a batch is dropped, the other elements are delivered", () => {
    const { s, sent, events } = session("2025-03-26");
    s.track(1, "tools/call");
    s.track(2, "tools/call");
    s.cancel(1, "stop");
    assert.equal(sent.length, 1);
    const late = { jsonrpc: "2.0", id: 1, result: {} };
    const live = { jsonrpc: "2.0", id: 2, result: {} };
    assert.deepEqual(s.filterIncoming([late, live]), [live]);
    assert.equal(s.isInFlight(2), false, "the element in flight completed its request");
    assert.ok(events.some((e) => e.type === "late-response-dropped" && e.requestId === 1));
    // A batch with nothing left is dropped whole; one with nothing to drop is the same array.
    s.track(3, "tools/call");
    s.cancel(3);
    assert.equal(s.filterIncoming([{ jsonrpc: "2.0", id: 3, result: {} }]), undefined);
    assert.equal(s.shouldDropIncoming([{ jsonrpc: "2.0", method: "notifications/cancelled", params: {} }]), true);
    const plain = [{ jsonrpc: "2.0", method: "notifications/message", params: {} }];
    assert.equal(s.filterIncoming(plain), plain);
  });

  test("2025-03-26: our responses inside an outgoing batch to requests the peer cancelled are suppressed", () => {
    const { s } = session("2025-03-26");
    s.shouldDropIncoming({ jsonrpc: "2.0", id: "a", method: "sampling/createMessage", params: {} });
    s.shouldDropIncoming({ jsonrpc: "2.0", id: "b", method: "sampling/createMessage", params: {} });
    s.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a" } });
    const answers = [{ jsonrpc: "2.0", id: "a", result: {} }, { jsonrpc: "2.0", id: "b", result: {} }];
    assert.deepEqual(s.beforeSend(answers), [answers[1]]);
  });

  test("2025-06-18 and later: an array is not a message of the revision and passes untouched", () => {
    const { s } = session("2025-06-18");
    s.track(1, "tools/call");
    s.cancel(1);
    const batch = [{ jsonrpc: "2.0", id: 1, result: {} }];
    assert.equal(s.filterIncoming(batch), batch);
    assert.equal(s.isInFlight(1), false);
  });

  test("through guardTransport, a batch from the peer reaches the client without its late element", async () => {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const guarded = guardTransport(clientEnd, { protocolVersion: "2025-03-26" });
    const delivered = [];
    guarded.onmessage = (m) => delivered.push(m);
    await guarded.start();
    await serverEnd.start();
    const received = [];
    serverEnd.onmessage = (m) => received.push(m);
    await guarded.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow" } });
    await guarded.send({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "fast" } });
    guarded.session.cancel(7, "user pressed stop");
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      received.filter((m) => m.method === "notifications/cancelled").map((m) => m.params),
      [{ requestId: 7, reason: "user pressed stop" }],
    );
    await serverEnd.send([{ jsonrpc: "2.0", id: 7, result: { late: true } }, { jsonrpc: "2.0", id: 8, result: { ok: true } }]);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(delivered, [[{ jsonrpc: "2.0", id: 8, result: { ok: true } }]]);
    await guarded.close();
  });
});

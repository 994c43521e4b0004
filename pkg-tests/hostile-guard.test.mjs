// Hostile peers through guardTransport: an SDK 1.32.2 Client on a guarded transport whose
// "wire" is driven by the test, message by message, the way a hostile or broken peer would.
// Each case asserts what reaches the SDK (and its onerror), what goes on the wire, and that
// the session's memory stays bounded.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { guardTransport } from "mcp-cancel";

import { answerInitialize, sleep } from "./helpers.mjs";

/** A transport whose peer is the test: `peer(message)` delivers, `sent` records. */
function scriptedWire() {
  const sent = [];
  const wire = {
    sent,
    onmessage: undefined,
    onclose: undefined,
    onerror: undefined,
    start: async () => {},
    close: async () => wire.onclose?.(),
    async send(message) {
      sent.push(message);
      answerInitialize(wire, message, "hostile");
    },
    peer: (message) => wire.onmessage?.(message),
  };
  return wire;
}

async function setup(t, guardOptions = {}) {
  const wire = scriptedWire();
  const events = [];
  const errors = [];
  const reached = [];
  const transport = guardTransport(wire, { ...guardOptions, onEvent: (e) => events.push(e) });
  const client = new Client({ name: "victim", version: "0" }, { capabilities: { roots: {} } });
  client.onerror = (e) => errors.push(e);
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
  await client.connect(transport);
  const sdkOnMessage = transport.onmessage;
  transport.onmessage = (m, extra) => {
    reached.push(m);
    sdkOnMessage(m, extra);
  };
  t.after(() => client.close());
  return { wire, transport, session: transport.session, client, events, errors, reached };
}

const cancel = (requestId, extra = {}) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, ...extra } });

describe("hostile peers through guardTransport", { timeout: 120000 }, () => {
  test("1 000 000 cancels for unknown ids: none reaches the SDK, memory stays bounded", async (t) => {
    const h = await setup(t);
    const started = performance.now();
    for (let i = 0; i < 1_000_000; i++) h.wire.peer(cancel(i + 1000));
    const ms = performance.now() - started;
    t.diagnostic(`1 000 000 unknown cancels through the guard: ${ms.toFixed(0)} ms (${((ms * 1e6) / 1_000_000).toFixed(0)} ns each)`);
    await sleep(10);
    assert.equal(h.reached.length, 0);
    assert.deepEqual(h.errors, []);
    assert.equal(h.session.tombstoneCount, 0);
    assert.equal(h.session.inFlightCount, 0);
    const ignored = h.events.filter((e) => e.direction === "inbound");
    assert.equal(ignored.length, 1_000_000);
    assert.ok(ignored.every((e) => e.type === "cancel-ignored" && e.why === "not-in-flight"));
  });

  test("cancels for our own requests (wrong direction), 1 vs \"1\": ignored, our call completes", async (t) => {
    const h = await setup(t);
    const call = h.client.callTool({ name: "x", arguments: {} });
    await sleep(5);
    const id = h.wire.sent.find((m) => m.method === "tools/call").id;
    for (let i = 0; i < 1000; i++) h.wire.peer(cancel(id, { reason: "mine now" }));
    h.wire.peer(cancel(String(id)));
    assert.equal(h.reached.filter((m) => m.method === "notifications/cancelled").length, 0);
    assert.deepEqual([...new Set(h.events.filter((e) => e.type === "cancel-ignored").map((e) => e.why))], ["wrong-direction", "not-in-flight"]);
    h.wire.peer({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "fine" }] } });
    assert.equal((await call).content[0].text, "fine");
    assert.deepEqual(h.errors, []);
  });

  test("malformed cancels (arrays, strings, nested, null, bool, 10 MB reasons) never reach the SDK and are capped", async (t) => {
    const h = await setup(t);
    let deep = 1;
    for (let i = 0; i < 1000; i++) deep = { requestId: deep };
    const huge = "x".repeat(10 * 1024 * 1024);
    for (const params of [[1], "1", 7, null, {}, { requestId: null }, { requestId: true }, { requestId: [0] }, deep, { requestId: 3, reason: 42 }]) {
      h.wire.peer({ jsonrpc: "2.0", method: "notifications/cancelled", params });
    }
    h.wire.peer({ jsonrpc: "2.0", method: "notifications/cancelled" });
    h.wire.peer(cancel(12345, { reason: huge }));
    assert.equal(h.reached.length, 0, "the SDK never sees an invalid cancel (it would call onerror)");
    assert.deepEqual(h.errors, []);
    const why = h.events.map((e) => e.why);
    assert.equal(why.filter((w) => w === "malformed").length, 11);
    const bigEvent = h.events.at(-1);
    assert.equal(bigEvent.reason.length, 1024, "a 10 MB reason is capped in the event");
    assert.ok(!h.wire.sent.some((m) => JSON.stringify(m).includes("xxxxxxxx")), "and never echoed to the wire");
  });

  test("request ids 0 and \"\": a peer cancel aborts the SDK's handler, which sends no reply", async (t) => {
    const h = await setup(t);
    const seen = [];
    h.client.setRequestHandler(ListRootsRequestSchema, async (_request, extra) => {
      seen.push(extra);
      await sleep(10);
      return { roots: [] };
    });
    for (const id of [0, ""]) {
      h.wire.peer({ jsonrpc: "2.0", id, method: "roots/list", params: {} });
      h.wire.peer(cancel(id, { reason: "never mind" }));
    }
    await sleep(30);
    const replies = h.wire.sent.filter((m) => m.method === undefined && (m.id === 0 || m.id === ""));
    assert.deepEqual(replies, [], "no reply to a cancelled request (the SDK 1.x would answer id 0)");
    assert.deepEqual(seen.map((extra) => extra.signal.aborted), [true, true], "the SDK 1.x aborted both handlers");
    assert.deepEqual(h.events.filter((e) => e.type === "cancel-received").map((e) => e.requestId), [0, ""]);
    assert.deepEqual(h.events.filter((e) => e.type === "response-suppressed"), [], "the SDK sent nothing to suppress");
  });

  test("duplicate request ids in flight, and a peer reusing a cancelled id", async (t) => {
    const h = await setup(t);
    h.wire.peer({ jsonrpc: "2.0", id: 7, method: "roots/list", params: {} });
    h.wire.peer({ jsonrpc: "2.0", id: 7, method: "roots/list", params: {} });
    assert.ok(h.events.some((e) => e.type === "duplicate-request-id" && e.requestId === 7));
    await sleep(20);
    h.wire.peer({ jsonrpc: "2.0", id: 8, method: "roots/list", params: {} });
    h.wire.peer(cancel(8));
    await sleep(20);
    h.wire.peer({ jsonrpc: "2.0", id: 8, method: "roots/list", params: {} });
    await sleep(20);
    const replies8 = h.wire.sent.filter((m) => m.id === 8 && m.method === undefined);
    assert.equal(replies8.length, 1, "the reused id is a new request and is answered once");
  });

  test("a response with both result and error, and a response for nobody, never break the session", async (t) => {
    const h = await setup(t);
    const call = h.client.callTool({ name: "x", arguments: {} });
    await sleep(5);
    const id = h.wire.sent.find((m) => m.method === "tools/call").id;
    h.wire.peer({ jsonrpc: "2.0", id: 424242, result: {} });
    h.wire.peer({ jsonrpc: "2.0", id, result: { content: [] }, error: { code: -32603, message: "both" } });
    await call.catch(() => {});
    assert.equal(h.session.inFlightCount, 0);
    await sleep(5);
    // The unknown id is the SDK's to judge (as without the guard): it reaches it.
    assert.ok(h.reached.some((m) => m.id === 424242));
  });
});

// The MCP TypeScript SDK 2.x (@modelcontextprotocol/client and /server 2.4.0) through
// guardTransport: the legacy era (2025-11-25, initialize) and 2026-07-28 (server/discover)
// over an in-memory stdio-like transport and over Streamable HTTP on 127.0.0.1, where the
// cancel is closing the request's stream and no notification is sent.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Client, InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { CancellationSession, guardTransport } from "mcp-cancel";

import { tap } from "../demo/wiretap.mjs";
import { sleep, until } from "./helpers.mjs";
import { makeSlowServer, startSlowHttp } from "./peers/slow2.mjs";

const PIN_2026 = { versionNegotiation: { mode: { pin: "2026-07-28" } } };

/** What a `slow` handler did, as arrays (see peers/slow2.mjs). */
const recorder = (seen) => ({
  started: (id) => seen.started.push(id),
  aborted: (_id, reason) => seen.aborted.push(reason),
  completed: (id) => seen.completed.push(id),
});
/** A 2.x McpServer with `slow` (progress every 100 ms, honours its signal). */
const makeServer = (seen) => makeSlowServer(recorder(seen));
/** The same over Streamable HTTP on 127.0.0.1. */
const startHttp = (seen) => startSlowHttp(recorder(seen));

const newSeen = () => ({ started: [], aborted: [], completed: [] });
const outCancels = (log) => log.filter((r) => r.dir === "out" && r.message.method === "notifications/cancelled").map((r) => r.message);

async function callAndAbort(client, seen, { reason } = {}) {
  const ac = new AbortController();
  let progress = 0;
  const call = client.callTool({ name: "slow", arguments: { steps: 30 } }, { signal: ac.signal, onprogress: () => progress++ });
  await until(() => progress >= 2, 5000, "two progress notifications");
  reason === undefined ? ac.abort() : ac.abort(reason);
  await assert.rejects(call);
  await until(() => seen.aborted.length === 1, 5000, "the server handler to abort");
  return { progressAtAbort: progress, progress: () => progress };
}

describe("SDK 2.x legacy era (2025-11-25) through guardTransport", { timeout: 30000 }, () => {
  test("abort in flight: one cancel with the policy's reason, the handler stops, nothing late reaches the SDK", async (t) => {
    const seen = newSeen();
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const server = makeServer(seen);
    await server.connect(serverEnd);
    t.after(() => server.close());
    const log = [];
    const events = [];
    const errors = [];
    const client = new Client({ name: "pkg-tests", version: "0.0.0" });
    client.onerror = (e) => errors.push(e);
    const transport = guardTransport(tap(clientEnd, log), { onEvent: (e) => events.push(e) });
    await client.connect(transport);
    assert.equal(transport.session.revision, "2025-11-25");
    await callAndAbort(client, seen);
    assert.deepEqual(outCancels(log).map((m) => m.params.reason), ["Request cancelled"]);
    assert.equal(seen.aborted[0], "Request cancelled", "the server sees the policy's reason, not the SDK's AbortError text");
    assert.deepEqual(errors, []);
    await client.ping();
    await client.close();
  });
});

describe("2026-07-28 through guardTransport (SDK 2.x pinned)", { timeout: 30000 }, () => {
  test("stdio-like transport: the cancel is a notification, its _meta envelope kept", async (t) => {
    const seen = newSeen();
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const handle = serveStdio(() => makeServer(seen), { transport: serverEnd });
    t.after(() => handle.close());
    const log = [];
    const sessionEvents = [];
    const client = new Client({ name: "pkg-tests", version: "0.0.0" }, PIN_2026);
    const errors = [];
    client.onerror = (e) => errors.push(e);
    const transport = guardTransport(tap(clientEnd, log), {
      onEvent: (e) => e.direction === "session" && sessionEvents.push(e),
    });
    await client.connect(transport);
    assert.equal(transport.session.revision, "2026-07-28");
    assert.ok(sessionEvents.some((e) => e.type === "revision-negotiated" && e.revision === "2026-07-28"));
    assert.ok(!log.some((r) => r.message.method === "initialize"), "no initialize in 2026-07-28");
    await callAndAbort(client, seen, { reason: "user pressed stop" });
    const [cancel] = outCancels(log);
    assert.equal(cancel.params.reason, "user pressed stop");
    assert.equal(cancel.params._meta?.["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "the envelope is kept");
    assert.deepEqual(errors, []);
    await client.close();
  });

  test("Streamable HTTP: aborting closes the request's stream, no notification is sent", async (t) => {
    const seen = newSeen();
    const { url, close } = await startHttp(seen);
    t.after(close);
    const log = [];
    const events = [];
    const errors = [];
    const client = new Client({ name: "pkg-tests", version: "0.0.0" }, PIN_2026);
    client.onerror = (e) => errors.push(e);
    const transport = guardTransport(tap(new StreamableHTTPClientTransport(url), log), { onEvent: (e) => events.push(e) });
    assert.equal(transport.hasPerRequestStream, true, "the guard shows the inner transport's per-request streams");
    await client.connect(transport);
    assert.equal(transport.session.revision, "2026-07-28");
    const { progressAtAbort, progress } = await callAndAbort(client, seen);
    assert.deepEqual(outCancels(log), [], "no notifications/cancelled on Streamable HTTP in 2026-07-28");
    assert.match(seen.aborted[0], /Connection closed/, "the server saw the stream close");
    const sent = events.find((e) => e.type === "cancel-sent");
    assert.equal(sent.via, "stream-close");
    await sleep(300);
    assert.equal(progress(), progressAtAbort);
    assert.deepEqual(errors, []);
    await client.close();
  });

  test("Streamable HTTP: a guard timeout closes the stream and the SDK caller gets -32001", async (t) => {
    const seen = newSeen();
    const { url, close } = await startHttp(seen);
    t.after(close);
    const log = [];
    const client = new Client({ name: "pkg-tests", version: "0.0.0" }, PIN_2026);
    const errors = [];
    client.onerror = (e) => errors.push(e);
    const transport = guardTransport(tap(new StreamableHTTPClientTransport(url), log), { timeout: 400 });
    await client.connect(transport);
    const started = performance.now();
    await assert.rejects(client.callTool({ name: "slow", arguments: { steps: 30 } }), (e) => /timed out/i.test(e.message));
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 390 && elapsed < 1000, `rejected after ${elapsed.toFixed(0)} ms`);
    await until(() => seen.aborted.length === 1, 5000, "the server handler to abort");
    assert.match(seen.aborted[0], /Connection closed/);
    assert.deepEqual(outCancels(log), []);
    assert.deepEqual(errors, []);
    await client.close();
  });

  test("stdio-like transport: a guard timeout sends the session's own cancel, the handler stops, and the connection goes on", async (t) => {
    // The session's own notifications/cancelled carries no `_meta` version envelope (optional
    // on a notification in 2026-07-28): the SDK 2.x server still honours it.
    const seen = newSeen();
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const handle = serveStdio(() => makeServer(seen), { transport: serverEnd });
    t.after(() => handle.close());
    const log = [];
    const errors = [];
    const client = new Client({ name: "pkg-tests", version: "0.0.0" }, PIN_2026);
    client.onerror = (e) => errors.push(e);
    const transport = guardTransport(tap(clientEnd, log), { timeout: 300 });
    await client.connect(transport);
    await assert.rejects(client.callTool({ name: "slow", arguments: { steps: 30 } }), (e) => /timed out/i.test(e.message));
    await until(() => seen.aborted.length === 1, 5000, "the server handler to abort");
    const [cancel] = outCancels(log);
    assert.equal(cancel.params.reason, "Request timed out");
    assert.equal(seen.aborted[0], "Request timed out", "the server saw the session's cancel and its reason");
    const done = await client.callTool({ name: "slow", arguments: { steps: 1 } });
    assert.deepEqual(done.content, [{ type: "text", text: "done 1" }]);
    assert.deepEqual(errors, []);
    await client.close();
  });

  test("inbound cancels: a server may only end our subscriptions/listen", () => {
    const events = [];
    const session = new CancellationSession({ protocolVersion: "2026-07-28", onEvent: (e) => events.push(e) });
    session.shouldDropIncoming({ jsonrpc: "2.0", id: 5, method: "ping" });
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } }), true);
    assert.equal(session.inboundSignal(5).aborted, false);
    assert.equal(events.at(-1).why, "peer-may-not-cancel");
    session.beforeSend({ jsonrpc: "2.0", id: "listen:1", method: "subscriptions/listen", params: {} });
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "listen:1" } }), false);
    assert.equal(events.at(-1).type, "listen-ended");
    assert.equal(session.isInFlight("listen:1"), false);
  });
});


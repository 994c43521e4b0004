// createRelay() at the message level: raw JSON-RPC clients (ids 0, 1 and "1") and a raw
// server on the MCP SDK's InMemoryTransport, every assertion on what each side received.
// (The bridge command on real peers: bridge.test.mjs; the core's rules: tests/core_relay/.)
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createRelay, InvalidArgumentError } from "mcp-cancel";

import { sleep, until } from "./helpers.mjs";

/** A raw end: what it receives goes to `got`; `send(message)` sends. */
async function end(transport) {
  const got = [];
  transport.onmessage = (m) => got.push(m);
  await transport.start();
  return { got, send: (m) => transport.send({ jsonrpc: "2.0", ...m }), transport };
}

/** A relay with a raw server and `n` raw clients (each connected). */
async function setup(n, options = {}) {
  const [serverSide, relayUp] = InMemoryTransport.createLinkedPair();
  const server = await end(serverSide);
  const errors = [];
  const relay = createRelay({ upstream: relayUp, onError: (e) => errors.push(e), ...options });
  await relay.start();
  const clients = [];
  for (let i = 0; i < n; i++) {
    const [mine, theirs] = InMemoryTransport.createLinkedPair();
    const handle = relay.connect(theirs);
    await theirs.start();
    clients.push({ ...(await end(mine)), handle });
  }
  return { relay, server, clients, errors };
}

const call = (id, extra = {}) => ({ id, method: "tools/call", params: { name: "slow", ...extra } });
const cancel = (requestId) => ({ method: "notifications/cancelled", params: { requestId, reason: "stop" } });
const cancels = (got) => got.filter((m) => m.method === "notifications/cancelled");

describe("createRelay", () => {
  test("ids 0, 1 and \"1\" from three clients: distinct upstream ids, answers back under each client's own id, one cancel crosses for the right request", async () => {
    const { relay, server, clients } = await setup(3);
    const ids = [0, 1, "1"];
    for (const [i, c] of clients.entries()) await c.send(call(ids[i], { _meta: { progressToken: ids[i] } }));
    await until(() => server.got.length === 3, 2000, "three calls upstream");
    const up = server.got.map((m) => m.id);
    assert.equal(new Set(up).size, 3, "distinct upstream ids");
    assert.deepEqual(server.got.map((m) => m.params._meta.progressToken), up, "the progress token is the relay's too");
    // Client 2 ("1") cancels; client 1 (1) must not be touched.
    await clients[2].send(cancel("1"));
    await until(() => cancels(server.got).length === 1, 2000, "the cancel upstream");
    assert.deepEqual(cancels(server.got)[0].params, { requestId: up[2], reason: "stop" });
    // Progress and answers come back under each client's own token and id; the cancelled one's are dropped.
    for (const u of up) {
      await server.send({ method: "notifications/progress", params: { progressToken: u, progress: 1 } });
      await server.send({ id: u, result: { content: [] } });
    }
    await until(() => clients[0].got.length === 2 && clients[1].got.length === 2, 2000, "answers");
    await sleep(50);
    assert.deepEqual(clients[0].got, [
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 0, progress: 1 } },
      { jsonrpc: "2.0", id: 0, result: { content: [] } },
    ]);
    assert.deepEqual(clients[1].got.map((m) => m.id ?? m.params.progressToken), [1, 1]);
    assert.deepEqual(clients[2].got, [], "nothing late reaches the client that cancelled");
    assert.equal(relay.inFlight, 0);
    await relay.close();
  });

  test("an upstream timeout cancels upstream and answers the client -32001", async () => {
    const { relay, server, clients } = await setup(1, { timeout: 100 });
    await clients[0].send(call("t"));
    await until(() => clients[0].got.length === 1, 2000, "the client's error");
    assert.deepEqual(clients[0].got[0], { jsonrpc: "2.0", id: "t", error: { code: -32001, message: "Request timed out" } });
    assert.deepEqual(cancels(server.got)[0].params, { requestId: server.got[0].id, reason: "Request timed out" });
    await relay.close();
  });

  test("the server's own request: to its only client, refused with two; a client's batch is refused", async () => {
    const { relay, server, clients } = await setup(1);
    await server.send({ id: 70, method: "sampling/createMessage", params: {} });
    await until(() => clients[0].got.length === 1, 2000, "the server's request at the client");
    // Under the relay's id (from 1); the answer goes up under the server's.
    assert.equal(clients[0].got[0].id, 1);
    await clients[0].send({ id: 1, result: { role: "assistant" } });
    await until(() => server.got.some((m) => m.id === 70), 2000, "the answer upstream");
    assert.deepEqual(server.got.find((m) => m.id === 70).result, { role: "assistant" });
    const [mine, theirs] = InMemoryTransport.createLinkedPair();
    relay.connect(theirs);
    await theirs.start();
    const second = await end(mine);
    await server.send({ id: 71, method: "sampling/createMessage", params: {} });
    await until(() => server.got.some((m) => m.id === 71), 2000, "the refusal");
    assert.equal(server.got.find((m) => m.id === 71).error.code, -32000);
    await second.transport.send([{ jsonrpc: "2.0", ...call(5) }]);
    await until(() => second.got.length === 1, 2000, "the batch's refusal");
    assert.equal(second.got[0].error.code, -32600);
    await relay.close();
  });

  test("a client that disconnects has its requests cancelled upstream; close() sends its clients' cancels before closing", async () => {
    const { relay, server, clients } = await setup(2);
    await clients[0].send(call(1));
    await clients[1].send(call(1));
    await until(() => server.got.length === 2, 2000, "two calls upstream");
    clients[0].handle.disconnect();
    await until(() => cancels(server.got).length === 1, 2000, "the disconnect's cancel");
    assert.deepEqual(cancels(server.got)[0].params, { requestId: server.got[0].id, reason: "Client disconnected" });
    await relay.close();
    assert.deepEqual(cancels(server.got)[1].params, { requestId: server.got[1].id, reason: "Client disconnected" });
  });

  test("a client that vanishes: its request is cancelled when no resume comes within resumeGrace; a silent client is ended after idleTtl", async () => {
    const events = [];
    const { relay, server } = await setup(0, { onEvent: (e) => e.side === "downstream" && e.type.startsWith("s") && events.push(e) });
    const [mine, theirs] = InMemoryTransport.createLinkedPair();
    const handle = relay.connect(theirs, { resumeGrace: 80, idleTtl: 400 });
    await theirs.start();
    const client = await end(mine);
    let closed = false;
    theirs.onclose = ((onclose) => () => {
      closed = true;
      onclose();
    })(theirs.onclose);
    await client.send(call("lost"));
    await client.send(call("resumed"));
    await client.send(call("waiting"));
    await until(() => server.got.length === 3, 2000, "three calls upstream");
    const [lost, resumed, waiting] = server.got.map((m) => m.id);
    const closedAt = Date.now();
    assert.equal(handle.streamClosed("lost"), false, "not a cancel at once");
    assert.equal(handle.streamClosed("resumed"), false);
    assert.equal(handle.streamResumed("resumed"), true);
    await until(() => cancels(server.got).length === 1, 2000, "the lost one's cancel");
    assert.ok(Date.now() - closedAt >= 70, "after the grace");
    assert.deepEqual(cancels(server.got)[0].params, { requestId: lost, reason: "Client vanished: its response stream closed and was not resumed within 80 ms" });
    // Silent for 400 ms: ended; its requests in flight answered and cancelled upstream.
    await until(() => closed, 2000, "the client's transport closed");
    assert.deepEqual(
      client.got.map((m) => [m.id, m.error?.code]),
      [
        ["resumed", -32000],
        ["waiting", -32000],
      ],
    );
    assert.deepEqual(
      cancels(server.got).slice(1).map((m) => m.params),
      [resumed, waiting].map((requestId) => ({ requestId, reason: "Client session expired: no request for 400 ms" })),
    );
    assert.equal(relay.clientCount, 0);
    assert.deepEqual(
      events.map((e) => e.type),
      ["stream-lost", "stream-lost", "stream-resumed", "stream-not-resumed", "session-expired"],
    );
    assert.deepEqual(events.at(-1).requests, [
      { requestId: "resumed", upstreamId: resumed },
      { requestId: "waiting", upstreamId: waiting },
    ]);
    await relay.close();
  });

  test("a 2026-07-28 client of one request beside a 2025-11-25 server: the relay's own handshake, its discovery answered, its answers made 2026-07-28 ones, its closed stream a cancel upstream", async () => {
    const { relay, server } = await setup(0);
    const handshake = relay.handshake({ name: "gateway", version: "9.9.9" });
    await until(() => server.got.length === 1, 2000, "the relay's initialize");
    assert.deepEqual(server.got[0].params, { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "gateway", version: "9.9.9" } });
    await server.send({ id: server.got[0].id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {}, tasks: {} }, serverInfo: { name: "raw", version: "1" } } });
    await handshake;
    await until(() => server.got.length === 2, 2000, "notifications/initialized");
    assert.equal(server.got[1].method, "notifications/initialized");
    await relay.handshake({ name: "gateway", version: "9.9.9" }); // once
    assert.equal(server.got.length, 2);

    const [mine, theirs] = InMemoryTransport.createLinkedPair();
    const handle = relay.connect(theirs, { streamableHttp: true, protocolVersion: "2026-07-28" });
    await theirs.start();
    const client = await end(mine);
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    await client.send({ id: 1, method: "server/discover", params: { _meta: meta } });
    await until(() => client.got.length === 1, 2000, "the discovery's answer");
    assert.deepEqual(client.got[0].result.capabilities, { tools: {} });
    assert.equal(client.got[0].result.resultType, "complete");
    assert.equal(server.got.length, 2, "not forwarded");
    await client.send({ id: 2, method: "tools/call", params: { name: "slow", _meta: meta } });
    await until(() => server.got.length === 3, 2000, "the call upstream");
    assert.equal(handle.streamClosed(2), true, "its cancel");
    await until(() => cancels(server.got).length === 1, 2000, "the cancel upstream");
    assert.deepEqual(cancels(server.got)[0].params, { requestId: server.got[2].id });
    assert.deepEqual(relay.modernAnswer("tools/list", { jsonrpc: "2.0", id: 3, result: { tools: [] } }).result, { tools: [], resultType: "complete", ttlMs: 0, cacheScope: "private" });
    assert.throws(() => relay.connect(theirs, { protocolVersion: "2026-07-28", idleTtl: 5 }), (e) => e.code === "ERR_INVALID_OPTION");
    await relay.close();
  });

  test("bad options and transports are InvalidArgumentErrors that say what is wrong", () => {
    const t = { start: async () => {}, send: async () => {}, close: async () => {} };
    assert.throws(() => createRelay(), (e) => e instanceof InvalidArgumentError && e.code === "ERR_INVALID_OPTION");
    assert.throws(() => createRelay({ upstream: {} }), (e) => e.code === "ERR_INVALID_TRANSPORT");
    assert.throws(() => createRelay({ upstream: t, bogus: 1 }), (e) => e.code === "ERR_INVALID_OPTION" && /unknown option `bogus`/.test(e.message));
    assert.throws(() => createRelay({ upstream: t, timeout: -1 }), (e) => e.code === "ERR_INVALID_OPTION" && /timeout/.test(e.message));
    assert.throws(() => createRelay({ upstream: t, maxInFlightPerClient: 0 }), (e) => e.code === "ERR_INVALID_OPTION");
    assert.throws(() => createRelay({ upstream: t, onError: "x" }), (e) => e.code === "ERR_INVALID_OPTION");
    assert.throws(() => createRelay({ upstream: t }).connect({}), (e) => e.code === "ERR_INVALID_TRANSPORT");
    for (const bad of [{ resumeGrace: -1 }, { resumeGrace: "10" }, { idleTtl: Number.NaN }, { idleTtl: Infinity }]) {
      assert.throws(() => createRelay({ upstream: t }).connect(t, bad), (e) => e instanceof InvalidArgumentError && e.code === "ERR_INVALID_OPTION" && /resumeGrace|idleTtl/.test(e.message));
    }
  });
});

// An unmodified MCP TypeScript SDK 1.x Client through guardTransport(), against an
// in-process SDK McpServer and raw peers. Every test asserts what crossed the wire; the
// "SDK alone" controls show the same scenario without the guard, so each assertion is one
// the SDK by itself fails.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { guardTransport } from "mcp-cancel";
import { z } from "zod";

import { answerInitialize, cancels, connect, messages, rawPeer, sleep, until } from "./helpers.mjs";

/** An McpServer with `slow` (honours its signal) and records of what its handler saw. */
function slowServer() {
  const seen = { started: [], aborted: [], completed: [] };
  const server = new McpServer({ name: "slow-server", version: "0.0.0" });
  server.registerTool("slow", { inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
    seen.started.push(extra.requestId);
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        seen.aborted.push({ requestId: extra.requestId, reason: extra.signal.reason });
        resolve();
      });
    });
    if (!extra.signal.aborted) seen.completed.push(extra.requestId);
    return { content: [{ type: "text", text: "done" }] };
  });
  return { server, seen };
}

const callSlow = (client, ms, options) => client.callTool({ name: "slow", arguments: { ms } }, undefined, options);

describe("SDK Client + guardTransport against an in-process McpServer", () => {
  for (const guard of [true, false]) {
    const label = guard ? "with the guard" : "SDK alone (control)";

    test(`abort in flight: one cancel reaches the server and its handler stops — ${label}`, async () => {
      const { server, seen } = slowServer();
      const { client, clientWire, serverWire, errors } = await connect({ guard, serverSide: (t) => server.connect(t) });
      const ac = new AbortController();
      const call = callSlow(client, 5000, { signal: ac.signal });
      await until(() => seen.started.length === 1, 2000, "the handler to start");
      ac.abort();
      await assert.rejects(call);
      await until(() => seen.aborted.length === 1, 2000, "the handler's abort");
      const callId = messages(clientWire, "out").find((m) => m.method === "tools/call").id;
      const expectedReason = guard ? "Request cancelled" : "AbortError: This operation was aborted";
      assert.deepEqual(cancels(serverWire, "in"), [
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: expectedReason } },
      ]);
      assert.equal(seen.aborted[0].reason, expectedReason, "the server's handler sees the reason on the wire");
      await sleep(50);
      assert.equal(messages(serverWire, "out").filter((m) => m.id === callId).length, 0, "no response for the cancelled call");
      assert.deepEqual(errors, []);
      await client.ping();
      await client.close();
    });

    test(`abort after the call completed: ${guard ? "no cancel is sent" : "the SDK still sends a cancel for the finished id"}`, async () => {
      const { server } = slowServer();
      const { client, serverWire, events } = await connect({ guard, serverSide: (t) => server.connect(t) });
      const ac = new AbortController();
      await callSlow(client, 1, { signal: ac.signal });
      ac.abort();
      await sleep(50);
      assert.equal(cancels(serverWire, "in").length, guard ? 0 : 1);
      if (guard) assert.deepEqual(events.map((e) => `${e.type}:${e.why}`), ["cancel-not-sent:not-in-flight"]);
      await client.close();
    });

    test(`abort with a string reason: the reason is sent as given — ${label}`, async () => {
      const { server } = slowServer();
      const { client, serverWire } = await connect({ guard, serverSide: (t) => server.connect(t) });
      const ac = new AbortController();
      const call = callSlow(client, 5000, { signal: ac.signal });
      await until(() => messages(serverWire, "in").some((m) => m.method === "tools/call"));
      ac.abort("user pressed stop");
      await assert.rejects(call);
      await sleep(20);
      assert.deepEqual(cancels(serverWire, "in").map((m) => m.params.reason), ["user pressed stop"]);
      await client.close();
    });

    test(`abort with an Error reason: ${guard ? "its text is not sent to the server" : "the SDK sends its text"}`, async () => {
      const { server } = slowServer();
      const { client, serverWire } = await connect({ guard, serverSide: (t) => server.connect(t) });
      const ac = new AbortController();
      const call = callSlow(client, 5000, { signal: ac.signal });
      await until(() => messages(serverWire, "in").some((m) => m.method === "tools/call"));
      ac.abort(new Error("connect ECONNREFUSED 10.1.2.3:5432 (user=admin)"));
      await assert.rejects(call);
      await sleep(20);
      assert.deepEqual(
        cancels(serverWire, "in").map((m) => m.params.reason),
        [guard ? "Request cancelled" : "Error: connect ECONNREFUSED 10.1.2.3:5432 (user=admin)"],
      );
      await client.close();
    });
  }
});

describe("SDK Client + guardTransport against raw peers", () => {
  for (const guard of [true, false]) {
    const label = guard ? "with the guard" : "SDK alone (control)";

    test(`late progress and a late error reply after the cancel ${guard ? "never reach the SDK" : "reach client.onerror"}`, async () => {
      // Behaves like Python mcp 1.30.0: on cancel it still replies {code: 0, "Request cancelled"},
      // and progress that was already on its way arrives after the cancel.
      const { client, serverWire, errors, events } = await connect({
        guard,
        serverSide: (t) =>
          rawPeer(t, {
            onMessage(m, send) {
              if (m.method === "tools/call") {
                send({ method: "notifications/progress", params: { progressToken: m.params._meta.progressToken, progress: 1 } });
              }
              if (m.method === "notifications/cancelled") {
                const id = m.params.requestId;
                send({ method: "notifications/progress", params: { progressToken: id, progress: 2 } });
                send({ id, error: { code: 0, message: "Request cancelled" } });
              }
              if (m.method === "ping") send({ id: m.id, result: {} });
            },
          }),
      });
      const ac = new AbortController();
      let progress = 0;
      const call = client.callTool({ name: "x", arguments: {} }, undefined, { signal: ac.signal, onprogress: () => progress++ });
      await until(() => progress === 1, 2000, "first progress");
      ac.abort();
      await assert.rejects(call);
      await until(() => messages(serverWire, "out").some((m) => m.error), 2000, "the late error reply");
      await sleep(20);
      if (guard) {
        assert.deepEqual(errors, []);
        assert.deepEqual(events.map((e) => e.type), ["cancel-sent", "late-progress-dropped", "late-response-dropped"]);
      } else {
        assert.deepEqual(errors.map((e) => e.message.split(":")[0]).sort(), [
          "Received a progress notification for an unknown token",
          "Received a response for an unknown message ID",
        ]);
      }
      await client.ping();
      await client.close();
    });

    test(`connect() timeout: initialize is ${guard ? "never cancelled" : "cancelled by the SDK"}`, async () => {
      const serverWire = [];
      const attempt = connect({
        guard,
        serverWire,
        serverSide: (t) => rawPeer(t, { answerInitialize: false }),
        connectOptions: { timeout: 100 },
      });
      await assert.rejects(attempt, /timed out/i);
      await sleep(30);
      const initialize = messages(serverWire, "in").find((m) => m.method === "initialize");
      assert.ok(initialize, "initialize was sent");
      assert.deepEqual(
        cancels(serverWire, "in").map((m) => m.params.requestId),
        guard ? [] : [initialize.id],
      );
    });

    test(`the server cancels its request id 0: ${guard ? "the SDK's handler is aborted and sends no reply" : "the SDK ignores the cancel and replies"}`, async () => {
      const server = new McpServer({ name: "asks-roots", version: "0.0.0" });
      let handlerDone = false;
      const { client, serverWire, errors, events } = await connect({
        guard,
        serverSide: (t) => server.connect(t),
        clientOptions: { capabilities: { roots: {} } },
      });
      client.setRequestHandler(ListRootsRequestSchema, async () => {
        await sleep(100); // ignores its signal, like many handlers do
        handlerDone = true;
        return { roots: [] };
      });
      const ac = new AbortController();
      const ask = server.server.listRoots(undefined, { signal: ac.signal });
      await until(() => messages(serverWire, "out").some((m) => m.method === "roots/list"));
      const id = messages(serverWire, "out").find((m) => m.method === "roots/list").id;
      assert.equal(id, 0, "the server's first request has id 0");
      ac.abort("no longer needed");
      await assert.rejects(ask);
      await until(() => handlerDone, 2000, "the client's handler");
      await sleep(30);
      const replies = messages(serverWire, "in").filter((m) => m.method === undefined && m.id === 0);
      assert.equal(replies.length, guard ? 0 : 1);
      if (guard) {
        // The SDK got request 0 under a stand-in id, so it honoured the cancel: nothing to suppress.
        assert.deepEqual(events.map((e) => e.type), ["cancel-received"]);
        assert.deepEqual(errors, []);
      }
      await client.close();
    });
  }
});

/**
 * A transport that answers `initialize` and fails every `tools/call` it is given: with a
 * rejection, or (`sync`) by throwing from `send` itself. `sent` holds what it sent.
 */
function failingWire(sync) {
  const sent = [];
  const wire = {
    sent,
    start: async () => {},
    close: async () => wire.onclose?.(),
    send(message) {
      if (message.method === "tools/call") {
        const error = new Error("the wire is down");
        if (sync) throw error;
        return Promise.reject(error);
      }
      sent.push(message);
      answerInitialize(wire, message, "down");
      return Promise.resolve();
    },
  };
  return wire;
}

describe("guardTransport's send", () => {
  for (const sync of [false, true]) {
    test(`a request the inner transport fails to send ${sync ? "(send throws)" : "(send rejects)"}: the call rejects with its error and no cancel follows`, async () => {
      const wire = failingWire(sync);
      const transport = guardTransport(wire);
      const client = new Client({ name: "c", version: "0" });
      await client.connect(transport);
      const ac = new AbortController();
      await assert.rejects(client.callTool({ name: "slow", arguments: {} }, undefined, { signal: ac.signal }), /the wire is down/);
      // It never left: not in flight, so its abort sends nothing.
      assert.equal(transport.session.inFlightCount, 0);
      ac.abort();
      await sleep(10);
      assert.deepEqual(wire.sent.map((m) => m.method), ["initialize", "notifications/initialized"]);
      await client.close();
    });
  }

  test("a message the session refuses comes back as a rejected promise, never a throw", async () => {
    const transport = guardTransport(failingWire(false));
    const sent = transport.send({ jsonrpc: "2.0", id: { not: "an id" }, method: "tools/call", params: { name: "x" } });
    assert.ok(sent instanceof Promise);
    await assert.rejects(sent, { code: "ERR_INVALID_REQUEST_ID" });
    assert.equal(await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" }), undefined);
  });
});

// A server's nested requests end with the call they were sent for: an SDK McpServer (1.x
// and 2.x) whose tools ask the user (`elicitInput()`) or the client's model
// (`createMessage()`) with no signal, its transport guarded with `{ role: "server" }`, and a
// client that cancels the tool call while the nested request is pending. On the wire: the
// server's `notifications/cancelled` for the nested request; in the server: the nested
// promise rejected; in the client: the handler's signal aborted. And what must not change:
// an answered nested request, and a nested request whose call completed.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Client as Client2, InMemoryTransport as InMemory2 } from "@modelcontextprotocol/client";
import { McpServer as McpServer2 } from "@modelcontextprotocol/server";
import { randomUUID } from "node:crypto";
import http from "node:http";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { CancellationSession, guardTransport } from "mcp-cancel";

import { tap } from "../demo/wiretap.mjs";
import { messages, sleep, until } from "./helpers.mjs";

const ELICIT = { message: "What is your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } };
const SAMPLE = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 };

/** What the server's tools saw of their nested request: its outcome and when (ms). */
function outcomes() {
  const seen = [];
  const record = (tool) => (promise) =>
    promise.then(
      (value) => {
        seen.push({ tool, at: performance.now(), value });
        return value;
      },
      (error) => {
        seen.push({ tool, at: performance.now(), error });
        throw error;
      },
    );
  return { seen, record };
}

/**
 * An SDK 1.x McpServer with `ask` (elicitation) and `sample` (sampling), each sent the usual
 * way, with no signal and no relatedRequestId, and `fire` (an elicitation left pending as the
 * call returns).
 */
function server1(record) {
  const server = new McpServer({ name: "nested-1x", version: "0.0.0" });
  server.registerTool("ask", {}, async () => {
    const answer = await record("ask")(server.server.elicitInput(ELICIT)).catch(() => undefined);
    return { content: [{ type: "text", text: JSON.stringify(answer ?? null) }] };
  });
  server.registerTool("sample", {}, async () => {
    await record("sample")(server.server.createMessage(SAMPLE)).catch(() => {});
    return { content: [{ type: "text", text: "sampled" }] };
  });
  server.registerTool("fire", {}, async () => {
    record("fire")(server.server.elicitInput(ELICIT)).catch(() => {});
    return { content: [{ type: "text", text: "fired" }] };
  });
  return server;
}

/** `ask`, `sample` and `fire` on an SDK 2.x McpServer, through `ctx.mcpReq` (no relatedRequestId either). */
function server2(record) {
  const server = new McpServer2({ name: "nested-2x", version: "0.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("ask", {}, async (ctx) => {
    await record("ask")(ctx.mcpReq.elicitInput(ELICIT)).catch(() => {});
    return { content: [{ type: "text", text: "asked" }] };
  });
  server.registerTool("sample", {}, async (ctx) => {
    await record("sample")(ctx.mcpReq.requestSampling(SAMPLE)).catch(() => {});
    return { content: [{ type: "text", text: "sampled" }] };
  });
  server.registerTool("fire", {}, async (ctx) => {
    record("fire")(ctx.mcpReq.elicitInput(ELICIT)).catch(() => {});
    return { content: [{ type: "text", text: "fired" }] };
  });
  return server;
}

const SDKS = [
  { name: "SDK 1.32.2", call: (client, params, options) => client.callTool(params, undefined, options), makeServer: server1, Client, InMemory: InMemoryTransport, ElicitSchema: ElicitRequestSchema, SampleSchema: CreateMessageRequestSchema },
  { name: "SDK 2.4.0", call: (client, params, options) => client.callTool(params, options), makeServer: server2, Client: Client2, InMemory: InMemory2, ElicitSchema: "elicitation/create", SampleSchema: "sampling/createMessage" },
];

for (const sdk of SDKS) {
  describe(`nested requests of a cancelled tool call (${sdk.name}, the server's transport guarded)`, () => {
    /**
     * The server and a client in memory, each end tapped below its guard; the client's
     * elicitation and sampling handlers wait for `answer()` or their signal.
     */
    async function connectBoth({ guardClient = false } = {}) {
      const { seen, record } = outcomes();
      const server = sdk.makeServer(record);
      const [clientEnd, serverEnd] = sdk.InMemory.createLinkedPair();
      const serverWire = [];
      const serverEvents = [];
      await server.connect(guardTransport(tap(serverEnd, serverWire), { role: "server", onEvent: (e) => serverEvents.push(e) }));
      const client = new sdk.Client({ name: "pkg-tests", version: "0.0.0" }, { capabilities: { elicitation: {}, sampling: {} } });
      const handled = [];
      const answers = [];
      const handler = (kind, result) => async (request, extra) => {
        const signal = extra?.signal ?? extra?.mcpReq?.signal;
        const entry = { kind, id: extra?.requestId ?? extra?.mcpReq?.id, abortedAt: undefined };
        handled.push(entry);
        return new Promise((resolve, reject) => {
          answers.push(() => resolve(result));
          signal.addEventListener("abort", () => {
            entry.abortedAt = performance.now();
            reject(new Error("aborted"));
          });
        });
      };
      client.setRequestHandler(sdk.ElicitSchema, handler("elicit", { action: "accept", content: { name: "Ada" } }));
      client.setRequestHandler(sdk.SampleSchema, handler("sample", { role: "assistant", content: { type: "text", text: "ok" }, model: "m" }));
      await client.connect(guardClient ? guardTransport(clientEnd) : clientEnd);
      return { client, serverWire, serverEvents, seen, handled, answers, close: () => client.close() };
    }

    const nested = (wire, method) => messages(wire, "out").filter((m) => m.method === method);
    const cancelsOf = (wire, id) => messages(wire, "out").filter((m) => m.method === "notifications/cancelled" && m.params.requestId === id);

    for (const [tool, method] of [
      ["ask", "elicitation/create"],
      ["sample", "sampling/createMessage"],
    ]) {
      test(`the client aborts \`${tool}\` while its ${method} is pending: the server cancels it and the tool's promise rejects`, async () => {
        const c = await connectBoth({ guardClient: true });
        // An answered nested request first: its answer reaches the tool, no cancel is sent.
        if (tool === "sample") {
          const done = c.client.callTool({ name: "ask", arguments: {} });
          await until(() => c.answers.length === 1, 2000, "the elicitation");
          c.answers[0]();
          await done;
          assert.deepEqual(messages(c.serverWire, "out").filter((m) => m.method === "notifications/cancelled"), [], "no cancel for answered nested requests");
          assert.equal(c.seen[0].value?.action, "accept", "the answer reached the tool");
        }
        const before = c.seen.length;
        const ac = new AbortController();
        const call = sdk.call(c.client, { name: tool, arguments: {} }, { signal: ac.signal });
        await until(() => c.handled.length > 0 && c.handled.at(-1).kind === (tool === "ask" ? "elicit" : "sample"), 2000, `the client's ${method} handler`);
        const request = nested(c.serverWire, method).at(-1);
        const abortedAt = performance.now();
        ac.abort("user pressed stop");
        await assert.rejects(call);
        await until(() => cancelsOf(c.serverWire, request.id).length === 1, 500, `the server's cancel of its ${method} ${request.id}`);
        const cancel = cancelsOf(c.serverWire, request.id)[0];
        assert.equal(cancel.params.reason, "The request it was sent for was cancelled");
        await until(() => c.seen.length > before, 500, "the tool's nested promise to settle");
        const outcome = c.seen.at(-1);
        assert.ok(outcome.error !== undefined, "the nested promise rejected");
        assert.equal(outcome.error.code, -32000);
        assert.match(outcome.error.message, /The request it was sent for was cancelled/);
        assert.ok(outcome.at - abortedAt < 500, `rejected ${Math.round(outcome.at - abortedAt)} ms after the abort`);
        // The client's handler signal aborts, for the server's first request (id 0) too: the
        // client's guard hands the SDK 1.x, which drops a cancel of id 0, a stand-in id.
        await until(() => c.handled.at(-1).abortedAt !== undefined, 500, "the client's handler signal");
        assert.ok(c.handled.at(-1).abortedAt - abortedAt < 500);
        const cascaded = c.serverEvents.find((e) => e.type === "cancel-cascaded");
        assert.equal(cascaded.requestId, request.id);
        assert.equal(cascaded.method, method);
        assert.equal(typeof cascaded.parentId, "number");
        await c.close();
      });
    }

    test("a nested request whose call completed is not cancelled by a late cancel of the call", async () => {
      const c = await connectBoth();
      const result = await c.client.callTool({ name: "fire", arguments: {} });
      assert.equal(result.content[0].text, "fired");
      await until(() => c.handled.length === 1, 2000, "the client's elicitation handler");
      const call = messages(c.serverWire, "in").find((m) => m.method === "tools/call");
      // The client's cancel of a call that completed: ignored, nothing cascades.
      await c.client.notification({ method: "notifications/cancelled", params: { requestId: call.id, reason: "late" } });
      await sleep(50);
      assert.deepEqual(messages(c.serverWire, "out").filter((m) => m.method === "notifications/cancelled"), []);
      c.answers[0]();
      await until(() => c.seen.length === 1, 2000, "the answer");
      assert.equal(c.seen[0].value?.action, "accept", "the answer reached the tool's promise");
      await c.close();
    });
  });
}

describe("relate() in the low-level API", () => {
  test("the peer's cancel of a request cancels its nested request: the cancel to send, the signal, onCascade, the event", () => {
    const sent = [];
    const cascaded = [];
    const events = [];
    const session = new CancellationSession({
      role: "server",
      send: (m) => sent.push(m),
      onCascade: (id, error) => cascaded.push({ id, name: error.name, message: error.message }),
      onEvent: (e) => events.push(e),
      cascadeReason: "the tool call was cancelled",
    });
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: "", method: "tools/call", params: { name: "ask" } }), false);
    session.track(0, "elicitation/create");
    const signal = session.signal(0);
    assert.equal(session.relate(0, ""), true);
    assert.equal(session.relate(0, "nobody"), false, "the parent is not in flight");
    assert.equal(session.relate(1, ""), false, "the child is not in flight");
    session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "", reason: "stop" } });
    assert.deepEqual(sent, [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0, reason: "the tool call was cancelled" } }]);
    assert.deepEqual(cascaded, [{ id: 0, name: "AbortError", message: "the tool call was cancelled" }]);
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason.message, "the tool call was cancelled");
    assert.deepEqual(
      events.filter((e) => e.type === "cancel-cascaded"),
      [{ direction: "outbound", type: "cancel-cascaded", requestId: 0, method: "elicitation/create", parentId: "" }],
    );
    assert.equal(session.isInFlight(0), false);
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 0, result: { action: "cancel" } }), true, "its late answer is dropped");
  });

  test("an id that is no request id relates nothing; a closed session throws", () => {
    const session = new CancellationSession({ role: "server" });
    session.shouldDropIncoming({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} });
    session.track(1, "sampling/createMessage");
    assert.equal(session.relate(1, null), false);
    assert.equal(session.relate(1.5, 7), false);
    assert.equal(session.relate(1, 7), true);
    session.close();
    assert.throws(() => session.relate(1, 7), (e) => e.code === "ERR_CLOSED");
  });
});

/** An SDK 1.x Client whose user never answers an elicitation; `asked()`: how many it got. */
function neverAnswering() {
  const client = new Client({ name: "pkg-tests", version: "0.0.0" }, { capabilities: { elicitation: {} } });
  let asked = 0;
  client.setRequestHandler(ElicitRequestSchema, () => {
    asked++;
    return new Promise(() => {});
  });
  return { client, asked: () => asked };
}

describe("over stdio: an SDK 1.32.2 McpServer process, its transport guarded", () => {
  test("the client aborts `ask`: the server's cancel of the elicitation arrives within 500 ms and elicitInput() rejects", async (t) => {
    const server = fileURLToPath(new URL("peers/node-server.mjs", import.meta.url));
    const stdio = new StdioClientTransport({ command: process.execPath, args: [server, "--guard"], stderr: "pipe" });
    let stderr = "";
    stdio.stderr?.on("data", (d) => (stderr += d));
    const wire = [];
    const { client, asked } = neverAnswering();
    t.after(() => client.close().catch(() => {}));
    await client.connect(tap(stdio, wire), { timeout: 20000 });
    const ac = new AbortController();
    const call = client.callTool({ name: "ask", arguments: {} }, undefined, { signal: ac.signal });
    await until(() => asked() === 1, 10000, "the elicitation");
    const elicitation = messages(wire, "in").find((m) => m.method === "elicitation/create");
    ac.abort("user pressed stop");
    await assert.rejects(call);
    await until(() => messages(wire, "in").some((m) => m.method === "notifications/cancelled" && m.params.requestId === elicitation.id), 500, "the server's cancel of its elicitation");
    await until(() => stderr.includes("ask: rejected: MCP error -32000: The request it was sent for was cancelled"), 500, "elicitInput() to reject");
  });
});

/** A server with `slow`: progress every 20 ms until its signal aborts (`aborted(at)`). */
const SLOW_SERVERS = [
  {
    name: "SDK 1.32.2 McpServer",
    InMemory: InMemoryTransport,
    make(aborted) {
      const server = new McpServer({ name: "slow-1x", version: "0.0.0" });
      server.registerTool("slow", {}, async (extra) => {
        extra.signal.addEventListener("abort", () => aborted(performance.now()));
        for (let i = 1; i <= 20 && !extra.signal.aborted; i++) {
          await sleep(20);
          await extra.sendNotification({ method: "notifications/progress", params: { progressToken: "p", progress: i } });
        }
        return { content: [{ type: "text", text: "done" }] };
      });
      return server;
    },
  },
  {
    name: "SDK 2.4.0 McpServer",
    InMemory: InMemory2,
    make(aborted) {
      const server = new McpServer2({ name: "slow-2x", version: "0.0.0" }, { capabilities: { tools: {} } });
      server.registerTool("slow", {}, async (ctx) => {
        const { signal } = ctx.mcpReq;
        signal.addEventListener("abort", () => aborted(performance.now()));
        for (let i = 1; i <= 20 && !signal.aborted; i++) {
          await sleep(20);
          if (!signal.aborted) await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: "p", progress: i } });
        }
        return { content: [{ type: "text", text: "done" }] };
      });
      return server;
    },
  },
];

for (const peer of SLOW_SERVERS) describe(`the handler of the client's request 0 or "" aborts on its cancel (${peer.name}, guarded)`, () => {
  for (const id of [0, "", 5, "req-5"]) {
    test(`request id ${JSON.stringify(id)}: the handler's signal aborts within 300 ms; no progress and no response after`, async () => {
      let abortedAt;
      const server = peer.make((at) => (abortedAt = at));
      const [clientEnd, serverEnd] = peer.InMemory.createLinkedPair();
      await server.connect(guardTransport(serverEnd, { role: "server" }));
      const got = [];
      clientEnd.onmessage = (m) => got.push({ at: performance.now(), m });
      await clientEnd.start();
      const send = (m) => clientEnd.send({ jsonrpc: "2.0", ...m });
      await send({ id: "init", method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
      await send({ method: "notifications/initialized" });
      await send({ id, method: "tools/call", params: { name: "slow", arguments: {}, _meta: { progressToken: "p" } } });
      await until(() => got.some((r) => r.m.method === "notifications/progress"), 2000, "progress");
      const cancelledAt = performance.now();
      await send({ method: "notifications/cancelled", params: { requestId: id, reason: "stop" } });
      await until(() => abortedAt !== undefined, 300, "the handler's signal");
      assert.ok(abortedAt - cancelledAt < 300);
      await sleep(100);
      const after = got.filter((r) => r.at > abortedAt);
      assert.deepEqual(after.filter((r) => r.m.method === "notifications/progress"), [], "no progress after the abort");
      assert.deepEqual(got.filter((r) => r.m.id === id), [], "no response for it");
      assert.ok(got.every((r) => typeof r.m.id !== "string" || !r.m.id.startsWith("mcp-cancel:")), "no stand-in id on the wire");
      await server.close();
    });
  }
});

describe("over Streamable HTTP: an SDK 1.32.2 McpServer, its session's transport guarded", () => {
  test("the client aborts `ask`: the server's cancel of the elicitation reaches the client within 500 ms and elicitInput() rejects", async (t) => {
    const { seen, record } = outcomes();
    const server = server1(record);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await server.connect(guardTransport(transport, { role: "server" }));
    const httpServer = http.createServer(async (req, res) => {
      try {
        await transport.handleRequest(req, res);
      } catch (error) {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      }
    });
    await new Promise((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
    t.after(async () => {
      await server.close().catch(() => {});
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    });
    const wire = [];
    const { client, asked } = neverAnswering();
    await client.connect(tap(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${httpServer.address().port}/mcp`)), wire));
    t.after(() => client.close().catch(() => {}));
    const ac = new AbortController();
    const call = client.callTool({ name: "ask", arguments: {} }, undefined, { signal: ac.signal });
    await until(() => asked() === 1, 5000, "the elicitation");
    const elicitation = messages(wire, "in").find((m) => m.method === "elicitation/create");
    const abortedAt = performance.now();
    ac.abort("user pressed stop");
    await assert.rejects(call);
    await until(() => messages(wire, "in").some((m) => m.method === "notifications/cancelled" && m.params.requestId === elicitation.id), 500, "the server's cancel of its elicitation");
    await until(() => seen.length === 1, 500, "elicitInput() to settle");
    assert.equal(seen[0].error?.code, -32000);
    assert.ok(seen[0].at - abortedAt < 500);
  });
});

// Recipe (docs/integrations.md "mcp-use"): mcp-use 1.34.6's HttpConnector with
// `wrapTransport: (transport) => guardTransport(transport)`, against the real server-everything
// in Streamable HTTP mode on 127.0.0.1.
//
// What mcp-use 1.34.6 does (node_modules/mcp-use/dist):
// - HttpConnector applies `opts.wrapTransport(transport, serverId)` to the SDK's
//   StreamableHTTPClientTransport before `client.connect()` (chunk-3XAZE4TX.js:1818-1824, and
//   the same code in chunk-J4VRW5ND.js:311-317 behind `mcp-use/browser`; also to the SSE
//   fallback's transport, :1899-1902). The main `mcp-use` entry needs the `langchain` package
//   (not a dependency of this repo), so the connector is imported from `mcp-use/browser`,
//   which runs on Node 20.
// - `connector.callTool(name, args, options)` passes `options` unchanged to the SDK Client's
//   `callTool(params, undefined, options)` (chunk-NF3GBT4Z.js:331-351): a `signal` gets through.
// - mcp-use bundles its own SDK, @modelcontextprotocol/sdk 1.26.0
//   (node_modules/mcp-use/node_modules/@modelcontextprotocol/sdk), with the same cancel code.
// - The browser MCPClient (`mcp-use/browser`) forwards a server's `wrapTransport` to its HttpConnector
//   (chunk-XHHLR7B5.js:54-104); the Node MCPClient (`mcp-use/client`) does not
//   (chunk-3XAZE4TX.js:2349-2377), and neither does its StdioConnector.
// - Its LangChain adapter calls `connector.callTool(mcpTool.name, input)`: no signal, no
//   options (chunk-27JERD25.js:281-289).
//
// The wire is recorded by demo/web.mjs's HTTP wire tap (a reverse proxy in front of the
// server): every JSON-RPC body POSTed and every message the server sent back.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { guardTransport } from "mcp-cancel";
import { HttpConnector, MCPClient } from "mcp-use/browser";
import { LangChainAdapter } from "mcp-use/adapters";

import { startDemoWeb } from "../demo/web.mjs";
import { sleep, until } from "./helpers.mjs";

// Telemetry: mcp-use/browser's (PostHog) never starts outside a browser (chunk-DDMBF2UU.js:431-440,
// 483-491); the Node one (PostHog, Scarf; `mcp-use/client`) is off with this variable
// (chunk-FOGBXW3W.js:542-547), read when its first client is made, so set here and that module
// loaded after it. The tests use loopback only.
process.env.MCP_USE_ANONYMIZED_TELEMETRY = "false";
const { MCPClient: NodeMCPClient } = await import("mcp-use/client");

const SLOW = "trigger-long-running-operation"; // one progress per step; ignores a cancel
const SLOW_ARGS = { duration: 1.6, steps: 8 };

const out = (wire) => wire.filter((r) => r.dir === "out").map((r) => r.message);
const inbound = (wire) => wire.filter((r) => r.dir === "in").map((r) => r.message);
const cancelsOn = (wire) => out(wire).filter((m) => m.method === "notifications/cancelled");
const lastCallId = (wire) => out(wire).findLast((m) => m.method === "tools/call").id;
const progressOf = (wire, token) => inbound(wire).filter((m) => m.method === "notifications/progress" && m.params.progressToken === token);

/** The recipe, line for line as in docs/integrations.md "mcp-use". */
async function withGuard(url) {
  const connector = new HttpConnector(url, {
    wrapTransport: (transport) => guardTransport(transport),
  });
  await connector.connect();
  await connector.initialize();
  return connector;
}

/** The same with mcp-use alone. */
async function withoutGuard(url) {
  const connector = new HttpConnector(url);
  await connector.connect();
  await connector.initialize();
  return connector;
}

/** An HttpConnector to `url`, connected and initialized (guarded when `guard`); `errors`: client.onerror. */
async function connectMcpUse(url, { guard }) {
  const connector = await (guard ? withGuard : withoutGuard)(url);
  const errors = [];
  const client = connector.client; // mcp-use's SDK Client
  const previous = client.onerror;
  client.onerror = (error) => {
    errors.push(error);
    previous?.(error);
  };
  return { connector, client, errors };
}

/** Calls the slow tool through `callTool`, aborts it after two progress notifications, waits for the rest. */
async function abortPartWay(demo, connector) {
  demo.wire.length = 0;
  const progress = [];
  const stop = new AbortController(); // e.g. the Stop button
  const answer = connector.callTool(SLOW, SLOW_ARGS, { signal: stop.signal, onprogress: (p) => progress.push(p.progress) });
  await until(() => progress.length >= 2, 10_000, "two progress notifications");
  stop.abort();
  await assert.rejects(answer, /This operation was aborted/);
  const progressAtAbort = progress.length;
  const callId = lastCallId(demo.wire);
  // The tool runs on after the cancel: wait for its last progress.
  await until(() => progressOf(demo.wire, callId).some((m) => m.params.progress === SLOW_ARGS.steps), 10_000, "the last progress");
  await sleep(200);
  const cancelAt = demo.wire.findIndex((r) => r.dir === "out" && r.message.method === "notifications/cancelled");
  const lateProgress = demo.wire.slice(cancelAt).filter((r) => r.dir === "in" && r.message.method === "notifications/progress");
  return { callId, progress, progressAtAbort, lateProgress };
}

describe("mcp-use HttpConnector + wrapTransport: guardTransport, server-everything over Streamable HTTP", { timeout: 60_000 }, () => {
  let demo;
  let guarded;

  before(async () => {
    demo = await startDemoWeb({ port: 0 }); // server-everything streamableHttp + the wire tap, on 127.0.0.1
    guarded = await connectMcpUse(demo.serverUrl, { guard: true });
  });

  after(async () => {
    await guarded?.connector.disconnect();
    await demo?.close();
  });

  test("wrapTransport puts the guard under mcp-use's SDK Client; the session id and protocol version pass through", () => {
    const transport = guarded.client.transport; // what mcp-use's Client was connected to
    const inner = guarded.connector.streamableTransport; // the SDK's StreamableHTTPClientTransport
    assert.equal(guarded.connector.getTransportType(), "streamable-http");
    assert.ok(transport.session, "the Client's transport is guardTransport()'s");
    assert.equal(transport.inner, inner);
    assert.match(String(transport.sessionId), /^[0-9a-f-]{36}$/, "the Mcp-Session-Id, read through the guard");
    assert.equal(transport.sessionId, inner.sessionId);
    assert.equal("hasPerRequestStream" in transport, "hasPerRequestStream" in inner, "SDK 1.x HTTP: no per-request streams");
    const negotiated = inbound(demo.wire).find((m) => m.result?.protocolVersion !== undefined).result.protocolVersion;
    assert.equal(inner.protocolVersion, negotiated, "the Client's setProtocolVersion() reached the inner transport");
  });

  test("callTool(name, args, { signal }) aborted part-way: one notifications/cancelled for the call's id, late progress dropped, client.onerror silent", async () => {
    const { callId, progress, progressAtAbort, lateProgress } = await abortPartWay(demo, guarded.connector);
    assert.deepEqual(cancelsOn(demo.wire), [
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: "Request cancelled" } },
    ]);
    assert.ok(lateProgress.length >= 3, `late progress crossed the wire after the cancel (${lateProgress.length})`);
    assert.equal(progress.length, progressAtAbort, "no progress reached onprogress after the abort");
    // server-everything suppresses a cancelled call's result: no late response to drop here.
    assert.equal(inbound(demo.wire).filter((m) => m.id === callId && m.method === undefined).length, 0);
    assert.deepEqual(guarded.errors, [], "client.onerror stayed silent");

    // A follow-up call works.
    demo.wire.length = 0;
    const sum = await guarded.connector.callTool("get-sum", { a: 2, b: 3 });
    assert.match(sum.content[0].text, /The sum of 2 and 3 is 5/);
    assert.deepEqual(cancelsOn(demo.wire), []);
    assert.deepEqual(guarded.errors, []);
  });

  test("aborting after the call completed sends nothing", async () => {
    demo.wire.length = 0;
    const stop = new AbortController();
    await guarded.connector.callTool("echo", { message: "done" }, { signal: stop.signal });
    stop.abort();
    await sleep(200);
    assert.deepEqual(cancelsOn(demo.wire), []);
    assert.deepEqual(guarded.errors, []);
  });

  test("without the guard (HttpConnector alone): String(reason) on the wire, late progress reaches client.onerror, a finished call gets cancelled", async () => {
    const alone = await connectMcpUse(demo.serverUrl, { guard: false });
    try {
      assert.equal(alone.client.transport.session, undefined);
      const { callId, lateProgress } = await abortPartWay(demo, alone.connector);
      assert.deepEqual(cancelsOn(demo.wire), [
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: "AbortError: This operation was aborted" } },
      ]);
      assert.ok(lateProgress.length >= 3);
      assert.equal(alone.errors.length, lateProgress.length, "each late progress is a client.onerror");
      for (const error of alone.errors) assert.match(error.message, /Received a progress notification for an unknown token/);

      demo.wire.length = 0;
      const stop = new AbortController();
      await alone.connector.callTool("echo", { message: "done" }, { signal: stop.signal });
      const doneId = lastCallId(demo.wire);
      stop.abort();
      await until(() => cancelsOn(demo.wire).length > 0, 2000, "the SDK's cancel");
      assert.deepEqual(cancelsOn(demo.wire), [
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: doneId, reason: "AbortError: This operation was aborted" } },
      ]);
    } finally {
      await alone.connector.disconnect();
    }
  });

  test("mcp-use/browser's MCPClient forwards a server's wrapTransport (on Node 20 too): the same one cancel", async () => {
    const url = demo.serverUrl;
    const client = new MCPClient({
      mcpServers: { everything: { url, wrapTransport: (transport) => guardTransport(transport) } },
    });
    try {
      const session = await client.createSession("everything");
      assert.ok(session.connector.client.transport.session, "the session's transport is guarded");
      const { callId, lateProgress } = await abortPartWay(demo, session); // MCPSession.callTool → connector.callTool, options passed on
      assert.deepEqual(cancelsOn(demo.wire), [
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: "Request cancelled" } },
      ]);
      assert.ok(lateProgress.length >= 3);
    } finally {
      await client.closeAllSessions();
    }
  });

  test("mcp-use/client's MCPClient (Node) ignores wrapTransport: the guard is never applied", async () => {
    let wrapped = 0;
    const client = new NodeMCPClient({
      mcpServers: {
        everything: {
          url: demo.serverUrl,
          wrapTransport: (transport) => {
            wrapped++;
            return guardTransport(transport);
          },
        },
      },
    });
    try {
      const session = await client.createSession("everything");
      assert.equal(session.connector.constructor.name, "HttpConnector");
      assert.equal(wrapped, 0, "wrapTransport was not called");
      assert.equal(session.connector.client.transport.session, undefined, "the SDK Client talks to the bare transport");
    } finally {
      await client.closeAllSessions();
    }
  });

  test("mcp-use's LangChain adapter passes no signal: an aborted invoke() sends nothing and resolves with the full result", async () => {
    const tools = await new LangChainAdapter().createToolsFromConnectors([guarded.connector]);
    const slow = tools.find((tool) => tool.name === SLOW);
    demo.wire.length = 0;
    const stop = new AbortController();
    const started = performance.now();
    setTimeout(() => stop.abort(), 200);
    const result = await slow.invoke({ duration: 0.8, steps: 4 }, { signal: stop.signal });
    assert.ok(stop.signal.aborted);
    assert.ok(performance.now() - started >= 750, "invoke() waited for the tool to finish");
    assert.match(result, /Long running operation completed/);
    assert.deepEqual(cancelsOn(demo.wire), [], "no cancel: the signal never reached mcp-use");
    assert.deepEqual(guarded.errors, []);
  });
});

// `mcp-cancel bridge` with real peers, every assertion on the server's wire:
//
//   SDK client ─stdio─▶ bridge --http ─Streamable HTTP─▶ server-everything (2025-11-25)
//                                                     ─▶ an SDK 2.x server (2026-07-28)
//   3 SDK clients ─Streamable HTTP─▶ bridge --stdio ─stdio─▶ server-everything (shared child)
//
// The HTTP server's wire is demo/web.mjs's tap; the stdio child's is pkg-tests/peers/stdio-tap.mjs.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Client as Client2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransport2 } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { EVERYTHING } from "../demo/everything.mjs";
import { startDemoWeb } from "../demo/web.mjs";
import { CLI, runBridge, startStdioBridge } from "./bridge-helpers.mjs";
import { sleep, until } from "./helpers.mjs";
import { startSlowHttp } from "./peers/slow2.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const LONG = "trigger-long-running-operation";

const sent = (wire) => wire.filter((r) => r.dir === "out").map((r) => r.message);
const received = (wire) => wire.filter((r) => r.dir === "in").map((r) => r.message);
const cancelsIn = (wire) => sent(wire).filter((m) => m.method === "notifications/cancelled");

/** An SDK 1.x client whose stdio transport runs `mcp-cancel bridge <args>`. */
async function clientThroughBridge(args, ClientClass = Client, Transport = StdioClientTransport, clientOptions) {
  const transport = new Transport({ command: process.execPath, args: [CLI, "bridge", ...args], stderr: "pipe" });
  const client = new ClientClass({ name: "bridge-test", version: "0.0.0" }, clientOptions);
  const errors = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, errors, transport };
}

describe("mcp-cancel bridge --http: stdio in, Streamable HTTP out", { timeout: 90_000 }, () => {
  test("2025-11-25 (server-everything): an abort is one cancel for the bridge's id; late progress never reaches the client; a follow-up works", async (t) => {
    const demo = await startDemoWeb({ port: 0 });
    t.after(() => demo.close());
    const { client, errors } = await clientThroughBridge(["--http", demo.serverUrl]);
    t.after(() => client.close());
    const ac = new AbortController();
    let progress = 0;
    const call = client.callTool({ name: LONG, arguments: { duration: 1.6, steps: 4 } }, undefined, { signal: ac.signal, onprogress: () => progress++ });
    await until(() => progress >= 1, 10_000, "progress");
    ac.abort("user pressed stop");
    await assert.rejects(call);
    const callId = sent(demo.wire).find((m) => m.method === "tools/call").id;
    await until(() => cancelsIn(demo.wire).length === 1, 5000, "the cancel at the server");
    assert.deepEqual(cancelsIn(demo.wire)[0].params, { requestId: callId, reason: "user pressed stop" });
    // The tool ignores cancels; the bridge also closed the request's response stream after
    // the notification, so its remaining progress reaches neither the bridge nor the client.
    const seen = progress;
    await sleep(1500);
    assert.equal(progress, seen, "no progress reached the client after the abort");
    const cancelAt = demo.wire.findIndex((r) => r.dir === "out" && r.message.method === "notifications/cancelled");
    const late = demo.wire.slice(cancelAt).filter((r) => r.dir === "in" && r.message.method === "notifications/progress");
    // At most one already on its way (the tool reports every 400 ms): the closed stream stops the rest.
    assert.ok(late.length <= 1, `progress on the server's wire after the cancel: ${late.length}`);
    assert.deepEqual(errors, [], "nothing late reached the client");
    const echo = await client.callTool({ name: "echo", arguments: { message: "after" } });
    assert.equal(echo.content[0].text, "Echo: after");
    assert.equal(cancelsIn(demo.wire).length, 1);
  });

  test("2025-11-25: the client going away cancels its request upstream", async (t) => {
    const demo = await startDemoWeb({ port: 0 });
    t.after(() => demo.close());
    const { client, transport } = await clientThroughBridge(["--http", demo.serverUrl]);
    const call = client.callTool({ name: LONG, arguments: { duration: 3, steps: 6 } }).catch(() => {});
    await until(() => sent(demo.wire).some((m) => m.method === "tools/call"), 5000, "the tools/call");
    await sleep(200);
    await transport.close(); // the bridge's stdin closes
    await call;
    await until(() => cancelsIn(demo.wire).length === 1, 5000, "the cancel at the server");
    const callId = sent(demo.wire).find((m) => m.method === "tools/call").id;
    assert.deepEqual(cancelsIn(demo.wire)[0].params, { requestId: callId, reason: "Client disconnected" });
  });

  test("2026-07-28 (an SDK 2.x server): the stdio client's notifications/cancelled becomes a closed request stream", async (t) => {
    const seen = { aborted: [] };
    const server = await startSlowHttp({ aborted: (_id, reason) => seen.aborted.push(reason) });
    t.after(server.close);
    const demo = await startDemoWeb({ port: 0, upstream: server.url.href });
    t.after(() => demo.close());
    const { client, errors } = await clientThroughBridge(["--http", demo.serverUrl], Client2, StdioClientTransport2, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    t.after(() => client.close());
    const ac = new AbortController();
    let progress = 0;
    const call = client.callTool({ name: "slow", arguments: { steps: 40 } }, { signal: ac.signal, onprogress: () => progress++ });
    await until(() => progress >= 2, 10_000, "progress");
    ac.abort();
    await assert.rejects(call);
    await until(() => seen.aborted.length === 1, 5000, "the server's handler to stop");
    assert.match(seen.aborted[0], /Connection closed/, "the server saw the request's stream close");
    await sleep(200);
    assert.deepEqual(cancelsIn(demo.wire), [], "no notifications/cancelled over HTTP in 2026-07-28");
    assert.deepEqual(errors, []);
    const done = await client.callTool({ name: "slow", arguments: { steps: 1 } });
    assert.equal(done.content[0].text, "done 1");
  });

  test("a bad URL, a bad option: exit 2 with what is wrong; an unreachable server: the client's request gets an error", async () => {
    let r = await runBridge(["--http", "not a url"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--http: not a URL: "not a url"/);
    r = await runBridge(["--http", "http://127.0.0.1:9/mcp", "--stdio", "x"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /exactly one of --http <url> and --stdio <command>/);
    r = await runBridge(["--frobnicate"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /Unknown option '--frobnicate'/);

    const { client } = await clientThroughBridge(["--http", "http://127.0.0.1:9/mcp"]).catch((error) => ({ error, client: undefined }));
    assert.equal(client, undefined, "connect() failed: the initialize got an error");
  });
});

describe("mcp-cancel bridge --stdio: Streamable HTTP in, one shared child process out", { timeout: 120_000 }, () => {
  test("three clients with overlapping ids cancel at random: every cancel reaches the server for that client's call and no other", async (t) => {
    const bridge = await startStdioBridge(`${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`, t);
    const clients = [];
    for (let i = 0; i < 3; i++) {
      const client = new Client({ name: `c${i}`, version: "0.0.0" });
      const errors = [];
      client.onerror = (error) => errors.push(error);
      await client.connect(new StreamableHTTPClientTransport(bridge.url));
      clients.push({ client, errors });
    }
    t.after(() => Promise.all(clients.map(({ client }) => client.close())));
    // One initialize upstream, shared.
    assert.equal(sent(bridge.wire()).filter((m) => m.method === "initialize").length, 1);

    // Each client: two calls (ids overlap across clients); a random half is cancelled.
    const random = seeded(20261123);
    const calls = [];
    for (const [c, { client }] of clients.entries()) {
      for (let k = 0; k < 2; k++) {
        const duration = 2 + c * 0.1 + k * 0.01; // tells the calls apart on the server's wire
        const ac = new AbortController();
        const cancel = random() < 0.5;
        calls.push({ c, duration, cancel, ac, done: client.callTool({ name: LONG, arguments: { duration, steps: 4 } }, undefined, { signal: ac.signal }).then(() => "ok", () => "rejected") });
      }
    }
    await until(() => sent(bridge.wire()).filter((m) => m.method === "tools/call").length === calls.length, 10_000, "every call at the server");
    await sleep(300);
    for (const call of calls) if (call.cancel) call.ac.abort();
    for (const call of calls) assert.equal(await call.done, call.cancel ? "rejected" : "ok");

    const wire = bridge.wire();
    const upstreamIdOf = (duration) => sent(wire).find((m) => m.method === "tools/call" && m.params.arguments.duration === duration).id;
    const cancelled = cancelsIn(wire).map((m) => m.params.requestId).sort();
    const expected = calls.filter((call) => call.cancel).map((call) => upstreamIdOf(call.duration)).sort();
    assert.deepEqual(cancelled, expected, "exactly the cancelled calls' upstream ids");
    assert.equal(new Set(sent(wire).filter((m) => m.method === "tools/call").map((m) => m.id)).size, calls.length, "distinct upstream ids");
    for (const { errors } of clients) assert.deepEqual(errors, []);
  });

  test("a client that ends its session (DELETE) has its requests cancelled upstream", async (t) => {
    const bridge = await startStdioBridge(`${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`, t);
    const transport = new StreamableHTTPClientTransport(bridge.url);
    const client = new Client({ name: "leaver", version: "0.0.0" });
    await client.connect(transport);
    const call = client.callTool({ name: LONG, arguments: { duration: 3, steps: 6 } }).catch(() => {});
    await until(() => sent(bridge.wire()).some((m) => m.method === "tools/call"), 5000, "the tools/call");
    await transport.terminateSession(); // DELETE: the session ends
    await client.close();
    await call;
    await until(() => cancelsIn(bridge.wire()).length === 1, 5000, "the cancel at the server");
    const callId = sent(bridge.wire()).find((m) => m.method === "tools/call").id;
    assert.deepEqual(cancelsIn(bridge.wire())[0].params, { requestId: callId, reason: "Client disconnected" });
  });

  test("the child exiting answers the requests in flight with an error and ends the bridge with status 1", async (t) => {
    // pkg-tests/peers/exiting-server.mjs exits 300 ms after its first tools/call.
    const bridge = await startStdioBridge(`${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(ROOT, "pkg-tests/peers/exiting-server.mjs"))}`, t);
    const client = new Client({ name: "orphan", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(bridge.url));
    await assert.rejects(client.callTool({ name: "anything", arguments: {} }), /upstream connection closed/);
    assert.equal(await bridge.exited, 1);
    assert.match(bridge.stderr(), /the server process ended/);
  });

  test("a command that cannot start: status 1 with the reason", async () => {
    const r = await runBridge(["--stdio", "/nonexistent/mcp-server", "--port", "0"]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /server process ended|could not start/);
  });
});

/** A deterministic random source (mulberry32). */
function seeded(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The real-peer matrix: an SDK 1.32.2 Client through guardTransport against three real
// servers over stdio — the TypeScript SDK 1.32.2 McpServer, Python `mcp` 2.3.0 (MCPServer)
// and Python `mcp` 1.30.0 (FastMCP), each with `slow` (honours cancellation, reports
// progress) and `stubborn` (ignores it). Every case asserts on the wire (a tap below the
// guard) and at the client. A results table is printed as test diagnostics.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CancellationSession, guardTransport } from "mcp-cancel";

import { tap } from "../demo/wiretap.mjs";
import { sleep, until } from "./helpers.mjs";

const repo = fileURLToPath(new URL("..", import.meta.url));
const PEERS = [
  { name: "TS SDK 1.32.2 McpServer", command: process.execPath, args: [`${repo}pkg-tests/peers/node-server.mjs`] },
  { name: "Python mcp 2.3.0 MCPServer", command: `${repo}.venv/mcp-2.3.0/bin/python`, args: [`${repo}pkg-tests/peers/server.py`] },
  { name: "Python mcp 1.30.0 FastMCP", command: `${repo}.venv/mcp-1.30.0/bin/python`, args: [`${repo}pkg-tests/peers/server.py`] },
];

const outCancels = (log) => log.filter((r) => r.dir === "out" && r.message.method === "notifications/cancelled").map((r) => r.message);
const inResponses = (log, id) => log.filter((r) => r.dir === "in" && r.message.method === undefined && r.message.id === id);

/** Connects an SDK Client through the guard to `peer`; returns everything a case asserts on. */
async function connect(t, peer, guardOptions = {}) {
  const stdio = new StdioClientTransport({ command: peer.command, args: peer.args, stderr: "pipe" });
  let stderr = "";
  stdio.stderr?.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const log = [];
  const events = [];
  const errors = [];
  let closed = false;
  const transport = guardTransport(tap(stdio, log), { ...guardOptions, onEvent: (e) => events.push(e) });
  const client = new Client({ name: "pkg-tests", version: "0.0.0" });
  client.onerror = (e) => errors.push(e);
  client.onclose = () => (closed = true);
  t.after(() => client.close().catch(() => {}));
  await client.connect(transport, { timeout: 20000 });
  return { client, log, events, errors, stderr: () => stderr, closed: () => closed };
}

const table = [];

for (const peer of PEERS) {
  const available = existsSync(peer.command);
  describe(`real peer: ${peer.name}`, { timeout: 60000, skip: available ? false : `${peer.command} missing: run scripts/setup.sh --test` }, () => {
    test("abort in flight: one cancel with the generic reason, no late message reaches the SDK, the server still answers", async (t) => {
      const c = await connect(t, peer);
      const ac = new AbortController();
      let progress = 0;
      const call = c.client.callTool({ name: "slow", arguments: { ms: 3000 } }, undefined, { signal: ac.signal, onprogress: () => progress++ });
      await until(() => progress >= 1, 10000, "progress");
      ac.abort();
      await assert.rejects(call);
      const progressAtAbort = progress;
      await sleep(700);
      const callId = c.log.find((r) => r.message.method === "tools/call").message.id;
      assert.deepEqual(outCancels(c.log), [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: "Request cancelled" } }]);
      assert.equal(progress, progressAtAbort, "no progress after the abort");
      const lateOnWire = inResponses(c.log, callId).length;
      assert.deepEqual(c.errors, [], "client.onerror stayed silent");
      await c.client.ping();
      table.push({ peer: peer.name, case: "abort in flight", cancel: "1 (Request cancelled)", "late on wire": lateOnWire, "late to SDK": 0, "ping after": "ok" });
    });

    test("timeout: the guard cancels with the timeout reason, the SDK caller gets -32001", async (t) => {
      const c = await connect(t, peer, { timeout: 400 });
      const started = performance.now();
      await assert.rejects(c.client.callTool({ name: "slow", arguments: { ms: 5000 } }), (e) => e.code === -32001);
      const elapsed = performance.now() - started;
      assert.ok(elapsed >= 390 && elapsed < 1500, `rejected after ${elapsed.toFixed(0)} ms`);
      await sleep(300);
      assert.deepEqual(outCancels(c.log).map((m) => m.params.reason), ["Request timed out"]);
      assert.deepEqual(c.errors, []);
      await c.client.ping();
      table.push({ peer: peer.name, case: "timeout 400 ms", cancel: "1 (Request timed out)", "late on wire": 0, "late to SDK": 0, "ping after": "ok" });
    });

    test("abort after completion: no cancel on the wire", async (t) => {
      const c = await connect(t, peer);
      const ac = new AbortController();
      await c.client.callTool({ name: "slow", arguments: { ms: 50 } }, undefined, { signal: ac.signal });
      ac.abort();
      await sleep(100);
      assert.deepEqual(outCancels(c.log), []);
      assert.deepEqual(c.errors, []);
      table.push({ peer: peer.name, case: "abort after completion", cancel: "0", "late on wire": 0, "late to SDK": 0, "ping after": "ok" });
    });

    test("abort with an Error reason: its text never reaches the server", async (t) => {
      const c = await connect(t, peer);
      const ac = new AbortController();
      const call = c.client.callTool({ name: "slow", arguments: { ms: 3000 } }, undefined, { signal: ac.signal });
      await sleep(150);
      ac.abort(new Error("db password hunter2 rejected for admin@10.0.0.7"));
      await assert.rejects(call);
      await sleep(100);
      const wire = JSON.stringify(c.log.filter((r) => r.dir === "out").map((r) => r.message));
      assert.doesNotMatch(wire, /hunter2|10\.0\.0\.7/);
      assert.deepEqual(outCancels(c.log).map((m) => m.params.reason), ["Request cancelled"]);
      assert.deepEqual(c.errors, []);
      table.push({ peer: peer.name, case: "abort with an Error reason", cancel: "1 (Request cancelled)", "late on wire": 0, "late to SDK": 0, "ping after": "ok" });
    });

    test("request id 0: cancelled on the wire, any late answer dropped", async (t) => {
      // The SDK Client's id 0 is its initialize; a raw client sends a tools/call with id 0.
      const stdio = new StdioClientTransport({ command: peer.command, args: peer.args, stderr: "pipe" });
      const log = [];
      const wire = tap(stdio, log);
      t.after(() => wire.close().catch(() => {}));
      const session = new CancellationSession({ send: (m) => wire.send(m) });
      const delivered = [];
      const waiting = new Map();
      wire.onmessage = (m) => {
        if (session.shouldDropIncoming(m)) return;
        delivered.push(m);
        if (m.method === undefined) waiting.get(m.id)?.(m);
      };
      await wire.start();
      const request = (id, method, params) => {
        session.track(id, method, { params });
        const response = new Promise((resolve) => waiting.set(id, resolve));
        wire.send({ jsonrpc: "2.0", id, method, params });
        return response;
      };
      await request("init", "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } });
      await wire.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      void request(0, "tools/call", { name: "stubborn", arguments: { ms: 600 } });
      await sleep(150);
      session.cancel(0, "user pressed stop");
      await sleep(1000);
      assert.deepEqual(outCancels(log).map((m) => m.params), [{ requestId: 0, reason: "user pressed stop" }]);
      const answered = inResponses(log, 0);
      assert.equal(delivered.filter((m) => m.id === 0).length, 0, "nothing for id 0 reached the app after the cancel");
      table.push({ peer: peer.name, case: "request id 0 (stubborn)", cancel: "1", "late on wire": answered.length, "late to SDK": 0, "ping after": "-" });
    });

    test("stubborn tool: the cancel is sent; whatever the server does next never reaches the SDK", async (t) => {
      const c = await connect(t, peer);
      const ac = new AbortController();
      const call = c.client.callTool({ name: "stubborn", arguments: { ms: 500 } }, undefined, { signal: ac.signal });
      await sleep(150);
      ac.abort();
      await assert.rejects(call);
      await sleep(1000);
      const callId = c.log.find((r) => r.message.method === "tools/call").message.id;
      const late = inResponses(c.log, callId);
      assert.equal(outCancels(c.log).length, 1);
      assert.equal(c.events.filter((e) => e.type === "late-response-dropped").length, late.length);
      assert.deepEqual(c.errors, [], "client.onerror stayed silent");
      let ping = "ok";
      try {
        await c.client.ping({ timeout: 2000 });
      } catch (error) {
        ping = `fails (${c.closed() ? "server exited" : error.message})`;
      }
      const lateText = late.map((r) => (r.message.error ? `error ${r.message.error.code} ${r.message.error.message}` : "result")).join("; ") || "none";
      t.diagnostic(`${peer.name}: late answers ${lateText}; ping after: ${ping}; stderr tail: ${c.stderr().trim().split("\n").slice(-1)[0] ?? ""}`);
      table.push({ peer: peer.name, case: "stubborn tool", cancel: "1", "late on wire": `${late.length} (${lateText})`, "late to SDK": 0, "ping after": ping });
    });
  });
}

describe("results", () => {
  test("the matrix", (t) => {
    for (const row of table) t.diagnostic(Object.values(row).join(" | "));
    assert.ok(table.length > 0);
  });
});

// `mcp-cancel bridge --stdio` and clients that vanish without a word,
// every assertion on the child's stdio wire (pkg-tests/peers/stdio-tap.mjs):
//
//   SDK 1.x client (a child process, SIGKILLed mid-call) ─┐
//   SDK 1.x client behind a TCP proxy that cuts streams ───┼─Streamable HTTP─▶ bridge --stdio ─stdio─▶ server-everything
//   SDK 1.x client that goes quiet ───────────────────────┘
//
// A request whose response stream closed is cancelled upstream once --resume-grace passes
// with no resume, with a reason that says so; a resumed one is not; a session with no request
// for --session-ttl is ended (404 after), its call answered with an error and cancelled
// upstream, and its place under --max-sessions freed.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { EVERYTHING } from "../demo/everything.mjs";
import { INITIALIZE, rawRequest, runBridge, startStdioBridge } from "./bridge-helpers.mjs";
import { sleep, until } from "./helpers.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CALLER = path.join(ROOT, "pkg-tests/peers/sdk1-http-caller.mjs");
const EVERYTHING_COMMAND = `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`;
const LONG = "trigger-long-running-operation";
const JSON_POST = { "content-type": "application/json" };

const sent = (wire) => wire.filter((r) => r.dir === "out").map((r) => r.message);
const cancelsIn = (wire) => sent(wire).filter((m) => m.method === "notifications/cancelled");
const callsIn = (wire) => sent(wire).filter((m) => m.method === "tools/call");

/** The JSON lines of the bridge's stderr (its --verbose events). */
const eventsOf = (bridge) =>
  bridge
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));

/** Starts the SDK client of pkg-tests/peers/sdk1-http-caller.mjs: its process and its session id. */
async function spawnCaller(url, t, tool, args) {
  const child = spawn(process.execPath, [CALLER, url.href, tool, JSON.stringify(args)], { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
  t.after(async () => {
    child.kill("SIGKILL");
    await exited;
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const session = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the client did not connect: ${stderr}`)), 15_000);
    createInterface({ input: child.stdout }).once("line", (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line).session);
    });
  });
  return { child, exited, session };
}

/**
 * A TCP proxy on loopback to `target` (a URL): `url` to connect through it; `cut()` destroys
 * every connection open through it (the network dropping under a live client).
 */
async function cuttingProxy(target, t) {
  const sockets = new Set();
  const server = net.createServer((socket) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    socket.pipe(upstream).pipe(socket);
    socket.on("close", () => upstream.destroy());
    upstream.on("close", () => socket.destroy());
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return {
    url: new URL(`http://127.0.0.1:${server.address().port}/mcp`),
    cut: () => {
      const n = sockets.size;
      for (const s of sockets) s.destroy();
      return n;
    },
  };
}

describe("mcp-cancel bridge --stdio: clients that vanish", { timeout: 120_000 }, () => {
  test("an SDK client killed mid-call: one notifications/cancelled upstream once --resume-grace passes, with the reason; events name the session and ids", async (t) => {
    const GRACE = 800;
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--resume-grace", String(GRACE), "--verbose"] });
    const { child, exited, session } = await spawnCaller(bridge.url, t, LONG, { duration: 8, steps: 8 });
    await until(() => callsIn(bridge.wire()).length === 1, 10_000, "the tools/call at the server");
    await sleep(300);
    const killedAt = Date.now();
    child.kill("SIGKILL");
    assert.equal(await exited, "SIGKILL");
    await until(() => cancelsIn(bridge.wire()).length === 1, GRACE + 5000, "the cancel at the server");
    const waited = Date.now() - killedAt;
    assert.ok(waited >= GRACE - 50, `the cancel came ${waited} ms after the kill, not after the grace (${GRACE} ms)`);
    const upstreamId = callsIn(bridge.wire())[0].id;
    assert.deepEqual(cancelsIn(bridge.wire())[0].params, {
      requestId: upstreamId,
      reason: `Client vanished: its response stream closed and was not resumed within ${GRACE} ms`,
    });
    // Exactly one, and it stays one.
    await sleep(1000);
    assert.equal(cancelsIn(bridge.wire()).length, 1);

    const events = eventsOf(bridge).filter((e) => e.session === session);
    const lost = events.find((e) => e.type === "stream-lost");
    const notResumed = events.find((e) => e.type === "stream-not-resumed");
    assert.ok(lost, `a stream-lost event for session ${session}: ${bridge.stderr()}`);
    assert.ok(notResumed, "a stream-not-resumed event");
    for (const event of [lost, notResumed]) {
      assert.equal(event.side, "downstream");
      assert.equal(event.upstreamId, upstreamId);
      assert.equal(typeof event.requestId, "number", "the client's own id");
      assert.equal(event.graceMs, GRACE);
    }
    assert.match(notResumed.reason, /not resumed within 800 ms/);
    t.diagnostic(`kill → cancel at the server: ${waited} ms (grace ${GRACE} ms)`);
  });

  test("--resume-grace 0: the cancel goes up as soon as the stream closes", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--resume-grace", "0"] });
    const { child, exited } = await spawnCaller(bridge.url, t, LONG, { duration: 8, steps: 8 });
    await until(() => callsIn(bridge.wire()).length === 1, 10_000, "the tools/call at the server");
    const killedAt = Date.now();
    child.kill("SIGKILL");
    await exited;
    await until(() => cancelsIn(bridge.wire()).length === 1, 3000, "the cancel at the server");
    const waited = Date.now() - killedAt;
    assert.equal(cancelsIn(bridge.wire())[0].params.reason, "Client vanished: its response stream closed and was not resumed within 0 ms");
    t.diagnostic(`kill → cancel at the server: ${waited} ms`);
  });

  test("a stream cut under a live client and resumed (GET with Last-Event-ID) within the grace: no cancel, the client gets its result", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--resume-grace", "6000", "--verbose"] });
    const proxy = await cuttingProxy(bridge.url, t);
    const transport = new StreamableHTTPClientTransport(proxy.url);
    const client = new Client({ name: "resuming-client", version: "0.0.0" });
    const errors = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    t.after(() => client.close());
    let progress = 0;
    const call = client.callTool({ name: LONG, arguments: { duration: 3, steps: 6 } }, undefined, { onprogress: () => progress++ });
    await until(() => progress >= 1, 10_000, "progress");
    const cut = proxy.cut();
    assert.ok(cut >= 2, `connections cut: ${cut}`);
    const result = await call;
    assert.match(result.content[0].text, /Long running operation completed/);
    assert.ok(progress >= 5, `progress replayed and resumed: ${progress}`);
    assert.deepEqual(cancelsIn(bridge.wire()), [], "nothing cancelled upstream");
    const events = eventsOf(bridge).filter((e) => e.session === transport.sessionId);
    assert.ok(events.some((e) => e.type === "stream-lost"), "stream-lost");
    assert.ok(events.some((e) => e.type === "stream-resumed"), `stream-resumed: ${JSON.stringify(events)}`);
    assert.ok(!events.some((e) => e.type === "stream-not-resumed"));
    // The session goes on.
    assert.equal((await client.callTool({ name: "echo", arguments: { message: "after" } })).content[0].text, "Echo: after");
  });

  test("a session with no request for --session-ttl is ended: its call gets an error, is cancelled upstream, and its next request gets 404", async (t) => {
    const TTL = 1000;
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--session-ttl", String(TTL), "--verbose"] });
    const transport = new StreamableHTTPClientTransport(bridge.url);
    const client = new Client({ name: "quiet-client", version: "0.0.0" });
    client.onerror = () => {};
    await client.connect(transport);
    const session = transport.sessionId;
    t.after(() => client.close());
    const calledAt = Date.now();
    const call = client.callTool({ name: LONG, arguments: { duration: 10, steps: 10 } }, undefined, { timeout: 60_000 });
    await assert.rejects(call, /session expired/);
    const waited = Date.now() - calledAt;
    assert.ok(waited >= TTL - 50 && waited < TTL + 3000, `answered ${waited} ms after the call`);
    await until(() => cancelsIn(bridge.wire()).length === 1, 3000, "the cancel at the server");
    assert.deepEqual(cancelsIn(bridge.wire())[0].params, { requestId: callsIn(bridge.wire())[0].id, reason: `Client session expired: no request for ${TTL} ms` });
    const expired = eventsOf(bridge).find((e) => e.type === "session-expired");
    assert.equal(expired?.session, session);
    assert.equal(expired.ttlMs, TTL);
    assert.deepEqual(expired.requests.map((r) => r.upstreamId), [callsIn(bridge.wire())[0].id]);
    // Ended: its next request (the SDK's, and a raw one) gets 404 Session not found.
    await assert.rejects(client.callTool({ name: "echo", arguments: { message: "again" } }), /404|Session not found/);
    const raw = await rawRequest(bridge.url, {
      headers: { ...JSON_POST, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    assert.equal(raw.status, 404);
    assert.match(raw.json.error.message, /Session not found/);
    assert.equal(cancelsIn(bridge.wire()).length, 1);
    t.diagnostic(`call → error to the client: ${waited} ms (ttl ${TTL} ms)`);
  });

  test("a request restarts the clock: a session that keeps calling is not ended", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--session-ttl", "700"] });
    const client = new Client({ name: "busy-client", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(bridge.url));
    t.after(() => client.close());
    for (let i = 0; i < 6; i++) {
      await sleep(300);
      assert.equal((await client.callTool({ name: "echo", arguments: { message: `m${i}` } })).content[0].text, `Echo: m${i}`);
    }
    assert.deepEqual(cancelsIn(bridge.wire()), []);
  });

  test("sessions ended by --session-ttl free their place under --max-sessions", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--max-sessions", "1", "--session-ttl", "600"] });
    const first = await rawRequest(bridge.url, { headers: JSON_POST, body: INITIALIZE });
    assert.equal(first.status, 200);
    const full = await rawRequest(bridge.url, { headers: JSON_POST, body: INITIALIZE });
    assert.equal(full.status, 503, "the cap holds while the first session lives");
    await sleep(900);
    const second = await rawRequest(bridge.url, { headers: JSON_POST, body: INITIALIZE });
    assert.equal(second.status, 200, `the expired session's place is free: ${second.text}`);
    assert.notEqual(second.headers["mcp-session-id"], first.headers["mcp-session-id"]);
    const old = await rawRequest(bridge.url, { method: "GET", headers: { "mcp-session-id": first.headers["mcp-session-id"] } });
    assert.equal(old.status, 404);
  });

  test("--resume-grace and --session-ttl: a bad value is a usage error (exit 2)", async () => {
    const cases = [
      [["--resume-grace=-1"], /--resume-grace must be an integer of at least 0, got "-1"/],
      [["--resume-grace", "soon"], /--resume-grace must be an integer of at least 0, got "soon"/],
      [["--resume-grace", "1.5"], /--resume-grace must be an integer/],
      [["--session-ttl", "50"], /--session-ttl must be 0 \(never\) or at least 100 ms, got "50"/],
      [["--session-ttl=-5"], /--session-ttl must be an integer of at least 0/],
      [["--session-ttl", ""], /--session-ttl must be an integer/],
    ];
    for (const [args, message] of cases) {
      const r = await runBridge(["--stdio", "true", "--port", "0", ...args]);
      assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
    for (const flag of ["--resume-grace", "--session-ttl"]) {
      const r = await runBridge(["--http", "http://127.0.0.1:9/mcp", flag, "1000"]);
      assert.equal(r.status, 2);
      assert.match(r.stderr, new RegExp(`${flag} is for --stdio`));
    }
  });
});

// `mcp-cancel bridge --stdio` is safe by default: every hostile request
// gets the right status and nothing of it reaches the child, whose wire (the stdio tap) is
// read after each; the SDK client still gets through.
//
//   raw HTTP requests / SDK 1.x clients ─Streamable HTTP─▶ bridge --stdio ─stdio─▶ server-everything
import assert from "node:assert/strict";
import net from "node:net";
import { describe, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { EVERYTHING } from "../demo/everything.mjs";
import { INITIALIZE, rawRequest, rssOf, runBridge, startStdioBridge } from "./bridge-helpers.mjs";
import { sleep } from "./helpers.mjs";

const EVERYTHING_COMMAND = `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`;
const JSON_POST = { "content-type": "application/json" };
const TOKEN = "a-test-token-0123456789abcdef";
const MiB = 1024 * 1024;

/** An SDK 1.x client connected to the bridge (with `headers` on every request). */
async function sdkClient(url, t, headers = {}) {
  const client = new Client({ name: "safety-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  t.after(() => client.close());
  return client;
}

describe("mcp-cancel bridge --stdio: safe by default", { timeout: 120_000 }, () => {
  test("DNS rebinding: a Host or an Origin the bridge does not serve gets 403, and nothing reaches the child", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--allow-host", "mcp.internal.example"] });
    const port = bridge.url.port;
    const hostile = [
      // What a DNS-rebinding page sends: its own name in Host and Origin.
      { host: `attacker.example:${port}`, origin: `http://attacker.example:${port}`, why: /Invalid Host: attacker\.example/ },
      { host: `attacker.example:${port}`, why: /Invalid Host/ },
      // A loopback Host with a foreign Origin: a page elsewhere posting to 127.0.0.1.
      { host: `127.0.0.1:${port}`, origin: "http://attacker.example", why: /Origin "http:\/\/attacker\.example" is not allowed/ },
      { host: `localhost:${port}`, origin: "null", why: /Origin "null" is not allowed/ },
    ];
    for (const { host, origin, why } of hostile) {
      const headers = { ...JSON_POST, host, ...(origin === undefined ? {} : { origin }) };
      for (const method of ["POST", "GET", "DELETE"]) {
        const answer = await rawRequest(bridge.url, { method, headers, body: method === "POST" ? INITIALIZE : undefined });
        assert.equal(answer.status, 403, `${method} Host ${host} Origin ${origin}`);
        assert.match(answer.json.error.message, why);
        assert.equal(answer.json.id, null);
      }
    }
    await sleep(200);
    assert.deepEqual(bridge.wire(), [], "nothing reached the child");

    // The hosts it serves: its address, localhost, and --allow-host (e.g. behind a load balancer).
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "mcp.internal.example"]) {
      const answer = await rawRequest(bridge.url, { headers: { ...JSON_POST, host }, body: INITIALIZE });
      assert.equal(answer.status, 200, `Host ${host}: ${answer.text}`);
      assert.ok(answer.headers["mcp-session-id"]);
    }
    // And the SDK client, which sends no Origin, as before.
    const client = await sdkClient(bridge.url, t);
    assert.equal((await client.callTool({ name: "echo", arguments: { message: "hi" } })).content[0].text, "Echo: hi");
  });

  test("--allow-origin admits a browser app (CORS preflight and answer); any other Origin still gets 403", async (t) => {
    const app = "http://localhost:5173";
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--allow-origin", app] });
    const preflight = await rawRequest(bridge.url, {
      method: "OPTIONS",
      headers: { origin: app, "access-control-request-method": "POST", "access-control-request-headers": "content-type, mcp-protocol-version" },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers["access-control-allow-origin"], app);
    assert.match(preflight.headers["access-control-allow-headers"], /Mcp-Session-Id/);
    const answer = await rawRequest(bridge.url, { headers: { ...JSON_POST, origin: app }, body: INITIALIZE });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers["access-control-allow-origin"], app);
    assert.match(answer.headers["access-control-expose-headers"], /Mcp-Session-Id/);
    const other = await rawRequest(bridge.url, { headers: { ...JSON_POST, origin: "http://localhost:5174" }, body: INITIALIZE });
    assert.equal(other.status, 403);
    assert.equal(sentTo(bridge).filter((m) => m.method === "initialize").length, 1, "only the allowed app's initialize reached the child");
  });

  test("--auth-token (from the environment): 401 without the token or with a wrong one, nothing reaches the child; the SDK client with it gets through", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { env: { MCP_CANCEL_AUTH_TOKEN: TOKEN } });
    for (const authorization of [undefined, "Bearer wrong-token-0123456789abcdef", `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, "Bearer "]) {
      const headers = { ...JSON_POST, ...(authorization === undefined ? {} : { authorization }) };
      const answer = await rawRequest(bridge.url, { headers, body: INITIALIZE });
      assert.equal(answer.status, 401, `Authorization: ${authorization}`);
      assert.match(answer.headers["www-authenticate"], /^Bearer/);
    }
    await sleep(200);
    assert.deepEqual(bridge.wire(), [], "nothing reached the child");
    const client = await sdkClient(bridge.url, t, { authorization: `Bearer ${TOKEN}` });
    assert.equal((await client.callTool({ name: "echo", arguments: { message: "ok" } })).content[0].text, "Echo: ok");
  });

  test("a non-loopback address without a token, a short token, a bad origin: exit 2 with what is wrong", async () => {
    let r = await runBridge(["--stdio", "true", "--host", "0.0.0.0", "--port", "0"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /refusing to listen on 0\.0\.0\.0, which is not a loopback address, without a token/);
    r = await runBridge(["--stdio", "true", "--port", "0", "--auth-token", "short"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /at least 16 characters/);
    r = await runBridge(["--stdio", "true", "--port", "0", "--allow-origin", "localhost:5173/app"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--allow-origin must be an origin/);
    r = await runBridge(["--stdio", "true", "--port", "0", "--max-body", "0"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--max-body must be an integer of at least 1/);
    r = await runBridge(["--http", "http://127.0.0.1:9/mcp", "--auth-token", TOKEN]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--auth-token is for --stdio/);
  });

  test("a 64 MiB body gets 413 and is never held (declared or streamed); an endless one is cut; nothing reaches the child; memory stays flat", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t);
    /** One round of hostile bodies: 128 MiB and an endless one; what was sent (bytes). */
    const round = async () => {
      // Declared: the Content-Length alone is refused, before any of the body is read.
      const declared = await sendHuge(bridge.url, { chunked: false, total: 64 * MiB });
      assert.equal(declared.status, 413);
      assert.match(declared.text, /must not exceed 4194304 bytes/);
      // Streamed (chunked, no length): refused where it passes the limit.
      const streamed = await sendHuge(bridge.url, { chunked: true, total: 64 * MiB });
      assert.equal(streamed.status, 413);
      // A body that does not end: after the answer, the connection is cut (1 MiB or 2 s later).
      const endless = await sendHuge(bridge.url, { chunked: true, total: 16 * 1024 * MiB, waitForClose: true });
      assert.equal(endless.status, 413);
      assert.ok(endless.closed, "the connection was cut");
      assert.ok(endless.sentBytes < 16 * 1024 * MiB);
      return 128 * MiB + endless.sentBytes;
    };
    // Memory is flat when it does not grow with what is sent. The first round grows the
    // process to its working size (buffers, code, garbage not yet collected: 13-46 MiB seen),
    // so it is the baseline; three more rounds follow. A bridge that held a body would grow
    // by at least 64 MiB a round (one 64 MB POST once grew it by 190 MiB).
    await sleep(300);
    const start = rssOf(bridge.child.pid);
    await round();
    const before = rssOf(bridge.child.pid);
    let sent = 0;
    for (let i = 0; i < 3; i++) sent += await round();
    const after = rssOf(bridge.child.pid);
    t.diagnostic(`the bridge's RSS: ${(start / MiB).toFixed(1)} MiB at start, ${(before / MiB).toFixed(1)} MiB after the first round, ${(after / MiB).toFixed(1)} MiB after ${(sent / MiB) | 0} MiB more`);
    assert.ok(after - before < 48 * MiB, `RSS grew ${((after - before) / MiB).toFixed(1)} MiB (${(before / MiB).toFixed(1)} → ${(after / MiB).toFixed(1)})`);
    assert.deepEqual(bridge.wire(), [], "nothing reached the child");
    // --max-body: a smaller bound, and a body under it still passes.
    const small = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--max-body", "1024"] });
    const padded = JSON.stringify({ ...JSON.parse(INITIALIZE), pad: "x".repeat(2000) });
    assert.equal((await rawRequest(small.url, { headers: JSON_POST, body: padded })).status, 413);
    assert.equal((await rawRequest(small.url, { headers: JSON_POST, body: INITIALIZE })).status, 200);
  });

  test("--max-sessions: a new session beyond the cap gets 503; one ended frees its place", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--max-sessions", "2"] });
    const first = new StreamableHTTPClientTransport(bridge.url);
    const a = new Client({ name: "a", version: "0.0.0" });
    await a.connect(first);
    await sdkClient(bridge.url, t);
    const third = await rawRequest(bridge.url, { headers: JSON_POST, body: INITIALIZE });
    assert.equal(third.status, 503);
    assert.match(third.json.error.message, /most sessions \(2, --max-sessions\)/);
    assert.equal(third.headers["retry-after"], "5");
    await first.terminateSession();
    await a.close();
    const fourth = await rawRequest(bridge.url, { headers: JSON_POST, body: INITIALIZE });
    assert.equal(fourth.status, 200, fourth.text);
  });

  test("a slow client (headers or body that never end) gets 408 and its connection closed after --request-timeout", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--request-timeout", "600"] });
    const partialHeaders = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${bridge.url.port}\r\nContent-Type: application/json\r\n`;
    const partialBody = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${bridge.url.port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`;
    for (const opening of [partialHeaders, partialBody]) {
      const started = Date.now();
      const answer = await stall(bridge.url, opening);
      assert.match(answer.text, /^HTTP\/1\.1 408/, answer.text);
      assert.ok(answer.closed, "the connection is closed");
      assert.ok(Date.now() - started < 5000, `closed after ${Date.now() - started} ms`);
    }
    assert.deepEqual(bridge.wire(), [], "nothing reached the child");
  });
});

/** The messages the child received. */
function sentTo(bridge) {
  return bridge
    .wire()
    .filter((r) => r.dir === "out")
    .map((r) => r.message);
}

/**
 * POSTs a body of `total` bytes in 64 KiB writes (with its Content-Length, or chunked). Ends
 * once the answer's head has arrived (or, with `waitForClose`, when the bridge closes the
 * connection): `{ status, text, sentBytes, closed }`.
 */
function sendHuge(url, { chunked, total, waitForClose = false }) {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const framed = chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]) : chunk;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let sentBytes = 0;
    let answer = "";
    let done = false;
    const finish = (closed) => {
      if (done) return;
      done = true;
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1]);
      resolve({ status, text: answer, sentBytes, closed });
    };
    socket.setEncoding("utf8");
    socket.on("data", (d) => {
      answer += d;
      if (!waitForClose && answer.includes("\r\n\r\n")) setTimeout(() => finish(false), 100);
    });
    socket.on("error", () => finish(true));
    socket.on("close", () => finish(true));
    socket.on("connect", () => {
      const length = chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${total}`;
      socket.write(`POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${length}\r\n\r\n`);
      const pump = () => {
        while (!done && sentBytes < total) {
          sentBytes += chunk.length;
          if (!socket.write(framed)) return socket.once("drain", pump);
        }
        if (!done && chunked) socket.write("0\r\n\r\n");
      };
      pump();
    });
    setTimeout(() => (done ? undefined : reject(new Error(`no answer; ${sentBytes} bytes sent; ${answer}`))), 30_000).unref();
  });
}

/** Opens a connection, writes `opening` and nothing more: what comes back, and whether it closed. */
function stall(url, opening) {
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(opening));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (d) => (text += d));
    socket.on("error", () => {});
    socket.on("close", () => resolve({ text, closed: true }));
    setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, 10_000).unref();
  });
}

// `bridge` against `mcp-remote`, everything on loopback, in one run:
//
//   1. One Streamable HTTP MCP server (SDK 1.x McpServer, a session per client) with a fast
//      `echo` tool and a `slow` tool that reports progress. An SDK 1.x stdio Client spawns
//      (a) `node cli/main.js bridge --http <url>`, (b) `mcp-remote <url>` (the devDependency,
//      run as users run it: `--allow-http` for the loopback http URL, `--transport http-only`,
//      its logging left on), and (c), for reference, an SDK 1.x Streamable HTTP client straight
//      to the server (no hop). Latency: sequential `tools/call echo`, blocks in rotating order
//      after a warm-up, median and p99 of every call; added latency = hop − direct. Throughput:
//      20 calls in flight on one client for a fixed time.
//   2. The abort: the client aborts a `slow` call at its first progress. The tool ignores its
//      signal and answers anyway (a server that does not implement cancellation): it keeps
//      sending progress and, when its SDK would drop the answer, sends the result itself. A
//      tap on the server records what reaches it (a `notifications/cancelled`? for which id?
//      is the request's response stream closed by the client side?), one on the client's
//      transport what reaches the client after its abort (progress, the late response).
//   3. One `bridge --stdio` instance (server-everything as its child) with 50 sessions calling
//      `echo` back to back, beside Node's `http` alone and the SDK's own Streamable HTTP
//      server transport under the same load (bench/bridge-load.mjs).
//
//   node bench/remote.mjs [--quick]     (~2 min; bench/run.mjs runs it too)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

import { describeThroughput, runThroughput } from "./bridge-load.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "cli/main.js");
const MCP_REMOTE = path.join(ROOT, "node_modules/mcp-remote/dist/proxy.js");
const pkgVersion = (name) => JSON.parse(readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.now();
const quantile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

// ----- the server: SDK 1.x McpServer over Streamable HTTP, with a wire tap -----

/**
 * A Streamable HTTP MCP server on 127.0.0.1 (a session per client, no auth). `wire` records
 * every JSON-RPC message POSTed to it and, for each POST that carried a request, whether the
 * client side closed the response stream before the server ended it. `slowCalls` records each
 * `slow` call as the tool saw it.
 */
async function startServer() {
  const wire = [];
  const slowCalls = [];
  const sessions = new Map();

  function mcpServer(transport) {
    const server = new McpServer({ name: "bench-remote", version: "0.0.0" });
    server.registerTool("echo", { inputSchema: { message: z.string() } }, async ({ message }) => ({ content: [{ type: "text", text: message }] }));
    // Ignores its signal, as a server without cancellation does: it keeps reporting progress
    // and answers at the end, itself when its SDK would drop the answer of a cancelled request.
    server.registerTool("slow", { inputSchema: { steps: z.number(), ms: z.number() } }, async ({ steps, ms }, extra) => {
      const call = { requestId: extra.requestId, sessionId: extra.sessionId, startedAt: now(), abortedAt: undefined, progress: [], lateResponse: undefined };
      slowCalls.push(call);
      extra.signal.addEventListener("abort", () => (call.abortedAt = now()), { once: true });
      const token = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        await sleep(ms);
        if (token === undefined) continue;
        const sent = { step, at: now(), error: undefined };
        try {
          // Protocol.notification, not extra.sendNotification (which stops at the cancel).
          await server.server.notification({ method: "notifications/progress", params: { progressToken: token, progress: step, total: steps } }, { relatedRequestId: extra.requestId });
        } catch (error) {
          sent.error = error.message;
        }
        call.progress.push(sent);
      }
      const result = { content: [{ type: "text", text: `done after ${steps} steps` }] };
      if (extra.signal.aborted) {
        try {
          await transport.send({ jsonrpc: "2.0", id: extra.requestId, result }, { relatedRequestId: extra.requestId });
          call.lateResponse = "sent";
        } catch (error) {
          call.lateResponse = `not sent: ${error.message}`;
        }
      }
      return result;
    });
    return server;
  }

  const httpServer = http.createServer(async (req, res) => {
    if (new URL(req.url, "http://x").pathname !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    let body;
    if (req.method === "POST") {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const sessionId = req.headers["mcp-session-id"];
      const messages = Array.isArray(body) ? body : [body];
      const at = now();
      for (const m of messages) wire.push({ at, sessionId, message: m });
      const requests = messages.filter((m) => m.method !== undefined && m.id !== undefined).map((m) => m.id);
      if (requests.length > 0) {
        res.on("close", () => {
          if (!res.writableEnded) wire.push({ at: now(), sessionId, streamClosedByClient: requests });
        });
      }
    }
    const sessionId = req.headers["mcp-session-id"];
    if (req.method !== "POST") wire.push({ at: now(), sessionId, httpMethod: req.method });
    let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (transport === undefined) {
      if (req.method !== "POST" || body?.method !== "initialize") {
        res.writeHead(typeof sessionId === "string" ? 404 : 400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "no valid session" } }));
        return;
      }
      const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (id) => sessions.set(id, created) });
      created.onclose = () => created.sessionId !== undefined && sessions.delete(created.sessionId);
      await mcpServer(created).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
  httpServer.keepAliveTimeout = 60_000;
  await new Promise((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const url = new URL(`http://127.0.0.1:${httpServer.address().port}/mcp`);
  const close = async () => {
    for (const t of sessions.values()) await t.close().catch(() => {});
    httpServer.closeAllConnections();
    await new Promise((resolve) => httpServer.close(resolve));
  };
  return { url, wire, slowCalls, close };
}

// ----- the clients -----

/**
 * An SDK 1.x Client connected through `kind`: "bridge" and "mcp-remote" spawn the hop with the
 * SDK's StdioClientTransport, "direct" is the SDK's Streamable HTTP client transport. `received`
 * records every message the client's transport delivers, with the time.
 */
async function connect(kind, url, configDir) {
  let transport;
  let stderr = "";
  if (kind === "direct") {
    transport = new StreamableHTTPClientTransport(url);
  } else {
    const args = kind === "bridge" ? [CLI, "bridge", "--http", url.href] : [MCP_REMOTE, url.href, "--allow-http", "--transport", "http-only"];
    // mcp-remote keeps its OAuth state and lock files under $MCP_REMOTE_CONFIG_DIR (else ~/.mcp-auth).
    transport = new StdioClientTransport({ command: process.execPath, args, env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir }, stderr: "pipe" });
    // Drained, or a hop that logs every message (mcp-remote does) blocks on a full pipe.
    transport.stderr?.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  }
  const client = new Client({ name: `bench-${kind}`, version: "0.0.0" });
  client.onerror = () => {}; // late progress and responses for forgotten ids are expected here
  await client.connect(transport);
  const received = [];
  const sent = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.push({ at: now(), message });
    return send(message, options);
  };
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    received.push({ at: now(), message });
    deliver?.(message, extra);
  };
  return { kind, client, transport, received, sent, pid: transport.pid, stderr: () => stderr, close: () => client.close() };
}

const echo = (client, message = "x".repeat(100)) => client.callTool({ name: "echo", arguments: { message } });

/** ms per call of `n` sequential echo calls, each call's time pushed to `into`. */
async function sequential(client, n, into) {
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const result = await echo(client);
    into.push(now() - t0);
    if (result.content?.[0]?.text?.length !== 100) throw new Error("bench self-check failed: echo result");
  }
}

/** Completed calls per second with `inFlight` echo calls always pending on `client`, for `ms`. */
async function throughput(client, inFlight, ms) {
  let calls = 0;
  const start = now();
  const stopAt = start + ms;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (now() < stopAt) {
        await echo(client);
        calls++;
      }
    }),
  );
  return calls / ((now() - start) / 1000);
}

// ----- the abort, per hop -----

async function abortCase(conn, server, { steps, ms }) {
  const wireFrom = server.wire.length;
  const receivedFrom = conn.received.length;
  const sentFrom = conn.sent.length;
  const slowFrom = server.slowCalls.length;
  const stop = new AbortController();
  let abortedAt;
  let outcome;
  const call = conn.client
    .callTool({ name: "slow", arguments: { steps, ms } }, undefined, {
      signal: stop.signal,
      onprogress: () => {
        if (abortedAt !== undefined) return;
        abortedAt = now();
        stop.abort("user pressed stop");
      },
    })
    .then(
      () => (outcome = "resolved"),
      (error) => (outcome = `rejected: ${error.message ?? error}`),
    );
  await call;
  // Everything the tool does after the abort: its remaining steps, its answer, and a margin.
  await sleep(steps * ms + 500);
  const received = conn.received.slice(receivedFrom);
  const slow = server.slowCalls[slowFrom];
  // The call as the client sent it: its id and progress token.
  const clientSent = conn.sent.slice(sentFrom);
  const clientCall = clientSent.find((x) => x.message.method === "tools/call");
  const progressToken = clientCall?.message.params?._meta?.progressToken;
  const clientCancel = clientSent.find((x) => x.message.method === "notifications/cancelled");
  const wire = server.wire.slice(wireFrom);
  const cancels = wire.filter((w) => w.message?.method === "notifications/cancelled");
  const closed = wire.find((w) => w.streamClosedByClient?.includes(slow?.requestId));
  const late = received.filter((r) => r.at > abortedAt);
  const lateProgress = late.filter((r) => r.message.method === "notifications/progress" && r.message.params.progressToken === progressToken);
  const lateResponse = late.filter((r) => r.message.method === undefined && r.message.id === clientCall?.message.id);
  const ms1 = (t) => (t === undefined ? undefined : Math.round(t - abortedAt));
  return {
    hop: conn.kind,
    clientOutcome: outcome,
    clientRequestId: clientCall?.message.id,
    clientCancel: clientCancel?.message.params,
    serverRequestId: slow?.requestId,
    otherHttpRequests: wire.filter((w) => w.httpMethod !== undefined).map((w) => `${w.httpMethod} +${ms1(w.at)} ms`),
    cancels: cancels.map((c) => ({ requestId: c.message.params?.requestId, reason: c.message.params?.reason, afterMs: ms1(c.at), forThisCall: c.message.params?.requestId === slow?.requestId })),
    streamClosedAfterMs: ms1(closed?.at),
    toolSignalAbortedAfterMs: ms1(slow?.abortedAt),
    serverProgressAfterAbort: slow?.progress.filter((p) => p.at > abortedAt).length ?? 0,
    serverProgressSendErrors: slow?.progress.filter((p) => p.error !== undefined).length ?? 0,
    serverLateResponse: slow?.lateResponse ?? "not needed (the SDK sent the result: the cancel did not reach it)",
    lateProgressAtClient: lateProgress.length,
    lateResponseAtClient: lateResponse.length,
  };
}

// ----- the run -----

/**
 * The comparison (parts 1 and 2) and the one-instance figures (part 3). `quick`: fewer calls,
 * shorter times. `log` gets a line per step.
 */
export async function runRemote({ quick = false, log = () => {} } = {}) {
  const started = now();
  const loadStart = loadavg()[0];
  const kinds = ["direct", "bridge", "mcp-remote"];
  const configDir = mkdtempSync(path.join(tmpdir(), "mcp-remote-config-"));
  const server = await startServer();
  const conns = {};
  const latency = {};
  const throughputPerSecond = {};
  const aborts = [];
  const inFlight = 20;
  const tputMs = quick ? 1000 : 2000;
  const slow = { steps: 6, ms: 100 };
  try {
    for (const kind of kinds) conns[kind] = await connect(kind, server.url, configDir);

    // 1. Latency: sequential calls in blocks, the hops in rotating order.
    const block = quick ? 50 : 100;
    const blocks = quick ? 4 : 6;
    for (const kind of kinds) await sequential(conns[kind].client, quick ? 100 : 300, []); // warm-up
    const times = Object.fromEntries(kinds.map((k) => [k, []]));
    for (let b = 0; b < blocks; b++) {
      for (let i = 0; i < kinds.length; i++) {
        const kind = kinds[(b + i) % kinds.length];
        await sequential(conns[kind].client, block, times[kind]);
      }
    }
    for (const kind of kinds) {
      const sorted = [...times[kind]].sort((a, b) => a - b);
      latency[kind] = { calls: sorted.length, p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99) };
    }
    for (const kind of ["bridge", "mcp-remote"]) {
      latency[kind].addedP50Ms = latency[kind].p50Ms - latency.direct.p50Ms;
      latency[kind].addedP99Ms = latency[kind].p99Ms - latency.direct.p99Ms;
    }
    log(`latency, ${latency.direct.calls} sequential echo calls each: ${kinds.map((k) => `${k} p50 ${latency[k].p50Ms.toFixed(2)} ms, p99 ${latency[k].p99Ms.toFixed(2)} ms`).join("; ")}`);

    // Throughput: `inFlight` calls pending on one client, each hop in turn, ABC then CBA; the mean.
    const rates = Object.fromEntries(kinds.map((k) => [k, []]));
    for (const order of [kinds, [...kinds].reverse()]) for (const kind of order) rates[kind].push(await throughput(conns[kind].client, inFlight, tputMs));
    for (const kind of kinds) throughputPerSecond[kind] = rates[kind].reduce((a, b) => a + b, 0) / rates[kind].length;
    log(`throughput, ${inFlight} in flight on one client, 2 × ${tputMs / 1000} s each: ${kinds.map((k) => `${k} ${throughputPerSecond[k].toFixed(0)}/s`).join("; ")}`);

    // 2. The abort.
    for (const kind of kinds) {
      const a = await abortCase(conns[kind], server, slow);
      aborts.push(a);
      log(`abort through ${kind}: ${describeAbort(a)}`);
    }
  } finally {
    for (const c of Object.values(conns)) await c.close().catch(() => {});
    await server.close();
    rmSync(configDir, { recursive: true, force: true });
  }

  // 3. One bridge --stdio instance and the servers beside it, the same load.
  const instance = await runThroughput({ clients: 50, seconds: quick ? 3 : 5, warmupMs: quick ? 2000 : 6000, rounds: quick ? 1 : 3, log: (line) => log(`  ${line}`) });
  log("one bridge --stdio beside the reference servers, 50 sessions, medians:");
  for (const line of describeThroughput(instance)) log(`  ${line}`);

  return {
    versions: { mcpRemote: pkgVersion("mcp-remote"), sdk: pkgVersion("@modelcontextprotocol/sdk"), sdk2Client: pkgVersion("@modelcontextprotocol/client"), everything: pkgVersion("@modelcontextprotocol/server-everything") },
    mcpRemoteArgs: ["--allow-http", "--transport", "http-only"],
    latency,
    throughput: { inFlight, seconds: (2 * tputMs) / 1000, perSecond: throughputPerSecond },
    abort: { ...slow, cases: aborts },
    instance,
    load: { start: loadStart, end: loadavg()[0], cores: cpus().length },
    seconds: (now() - started) / 1000,
  };
}

/** One line for an abort case. */
export function describeAbort(a) {
  const cancel = a.cancels.length === 0 ? "no notifications/cancelled" : a.cancels.map((c) => `notifications/cancelled { requestId: ${JSON.stringify(c.requestId)} } +${c.afterMs} ms${c.forThisCall ? "" : " (not the call's id!)"}`).join(", ");
  const stream = a.streamClosedAfterMs === undefined ? "request stream left open" : `request stream closed +${a.streamClosedAfterMs} ms`;
  return `server got ${cancel}; ${stream}; late at the client: ${a.lateProgressAtClient} progress, ${a.lateResponseAtClient} response`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runRemote({ quick: process.argv.includes("--quick"), log: (line) => console.log(line) });
  console.log(JSON.stringify(r));
}

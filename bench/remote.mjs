// `bridge` against `mcp-remote` (issue #26, part 5), everything on loopback, in one run:
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
//   3. One `bridge --stdio` instance (server-everything as its child) with 50 SDK 1.x
//      Streamable HTTP clients in this process calling `echo` back to back for a fixed time:
//      calls per second, and the CPU time (Linux /proc/<pid>/stat) of the bridge, the child and
//      this process (the clients) per call, after a warm-up (V8 optimizes the bridge's code
//      for seconds). The three share the machine's cores, so the rate is what this machine
//      does end to end; 1 / (the bridge's CPU per call) is what one bridge would carry on a
//      core of its own. In the same rounds (3; the order rotates), with the same clients, the
//      floors under it (bench/bridge-floor.mjs): (a) Node's http alone answering the JSON-RPC,
//      (b) the SDK's StreamableHTTPServerTransport + McpServer with the tool in process.
//
//   node bench/remote.mjs [--quick] [--profile]     (~4 min; bench/run.mjs runs it too)
//
// --profile (~30 s more): part 3 again with the bridge under `node --cpu-prof` (wall time of
// its main thread, the measured seconds only), then, where `perf` is installed, under `perf
// record` (CPU of every thread; node --perf-basic-prof), each summed by where the code lives
// (the MCP SDK, @hono/node-server, express and its middleware, the relay's JS and wasm, the
// CLI, Node's own modules, GC, V8's compiler). Prints the results as JSON on its last line.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
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

import { describeFloor, median, runFloor } from "./bridge-floor.mjs";
import { manyClients, startStdioBridge } from "./bridge-load.mjs";

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

// ----- the profile -----

/** Where a profile node's code lives. */
function where(url, functionName) {
  if (url === "") {
    if (functionName === "(garbage collector)") return "GC";
    if (functionName === "(idle)") return "idle";
    if (functionName === "(program)") return "V8/native (program)";
    return `native: ${functionName}`;
  }
  if (url.startsWith("node:")) return "Node's own modules (node:*: http, streams, net, events)";
  if (url.startsWith("wasm://")) return "the relay's wasm";
  const file = url.startsWith("file://") ? fileURLToPath(url) : url;
  const nm = file.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const rest = file.slice(nm + "/node_modules/".length).split("/");
    const name = rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
    if (name === "@modelcontextprotocol/sdk") return `@modelcontextprotocol/sdk (${rest.slice(3, -1).join("/") || "root"})`;
    return name;
  }
  const rel = path.relative(ROOT, file);
  if (rel.startsWith("pkg/")) return "the relay's wasm glue (pkg/)";
  if (rel.startsWith("js/") || rel.startsWith("dist/")) return `mcp-cancel's JS (${rel})`;
  if (rel.startsWith("cli/")) return `the CLI (${rel})`;
  return rel;
}

/** Is `place` code a package or this repository owns (not Node's, V8's or native)? */
const owned = (place) => !/^(native:|Node's own|GC|idle|V8\/native|kernel|libc|V8 |Node\/libuv)/.test(place);

const sortedShares = (m, total) => [...m].sort((a, b) => b[1] - a[1]).map(([what, v]) => ({ what, ms: v / 1000, pct: (100 * v) / total }));
const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);

/**
 * From a .cpuprofile, the samples between `fromUs` and `toUs` (V8's clock: CLOCK_MONOTONIC,
 * as process.hrtime): self time by where the code lives (`byPlace`); the same with the time of
 * Node's own modules and native code charged to the nearest caller that is a package or this
 * repository's code (`byOwner`: who asked for the write, the parse, the stream); the top
 * functions by self time, and the callers of the top native functions. A sample is wall time
 * of the main thread while it is not idle, preemption included; V8's background threads (GC,
 * the optimizing compiler) are not in it.
 */
function aggregateCpuProfile(profile, fromUs, toUs) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const placeOf = (id) => where(nodes.get(id).callFrame.url, nodes.get(id).callFrame.functionName);
  const label = (id) => {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    return `${functionName || "(anonymous)"}${url ? ` ${path.basename(url)}:${lineNumber + 1}` : ""} [${placeOf(id)}]`;
  };
  const self = new Map();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t >= fromUs && t <= toUs) add(self, profile.samples[i], profile.timeDeltas[i] ?? 0);
  }
  const byPlace = new Map();
  const byOwner = new Map();
  const byFunction = new Map();
  const nativeCallers = new Map();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const place = placeOf(id);
    if (place === "idle") {
      idle += us;
      continue;
    }
    total += us;
    add(byPlace, place, us);
    add(byFunction, label(id), us);
    let owner = id;
    while (owner !== undefined && !owned(placeOf(owner))) owner = parent.get(owner);
    add(byOwner, owner === undefined ? place : placeOf(owner), us);
    if (place.startsWith("native:") && parent.has(id)) {
      if (!nativeCallers.has(place)) nativeCallers.set(place, new Map());
      add(nativeCallers.get(place), owner === undefined ? label(parent.get(id)) : label(owner), us);
    }
  }
  const topNatives = sortedShares(byPlace, total).filter((p) => p.what.startsWith("native:")).slice(0, 3);
  return {
    busyMs: total / 1000,
    idleMs: idle / 1000,
    byPlace: sortedShares(byPlace, total).filter((p) => p.pct >= 0.5),
    byOwner: sortedShares(byOwner, total).filter((p) => p.pct >= 0.5),
    topFunctions: sortedShares(byFunction, total).slice(0, 20),
    nativeCallers: topNatives.map((n) => ({ native: n.what, ms: n.ms, callers: sortedShares(nativeCallers.get(n.what), total).slice(0, 5) })),
  };
}

/** Where a frame of `perf script` (node run with --perf-basic-prof) lives. */
function perfPlace(sym, dso) {
  if (dso.includes("kernel")) return "kernel";
  if (/^JS:wasm-function|^Stub:js-to-wasm|^Stub:wasm-to-js/.test(sym)) return "the relay's wasm";
  const js = /^JS:.*\s(\S+):\d+:\d+$/.exec(sym);
  if (js) return where(js[1].startsWith("/") ? `file://${js[1]}` : js[1], "");
  if (sym.startsWith("JS:") || sym.startsWith("Stub:")) return "V8/native (program)";
  if (dso.includes("libc.so") || dso.includes("libstdc++") || dso.includes("libm.so")) return "libc";
  if (/Heap::|Scavenge|MarkCompact|Sweeper|ConcurrentMarking|MarkingVisitor|GCTracer|MinorMS/.test(sym)) return "GC";
  if (/compiler::|OptimizingCompile|Compiler::|Maglev|Baseline(Batch)?Compiler/.test(sym)) return "V8 compiler";
  if (/llhttp/.test(sym)) return "Node/libuv (the HTTP parser, llhttp)";
  return "V8/native (program)";
}

/**
 * From `perf script -F tid,ip,sym,dso` of the bridge (node --perf-basic-prof
 * --interpreted-frames-native-stack): CPU samples of every thread of the process. The main
 * thread's samples are charged, leaf first, to the nearest frame of a package or this
 * repository (`byOwner`; else to Node's own modules, else to what runs: promise reactions, the
 * HTTP parser, the event loop), and counted by what the leaf is (`byLeaf`); the other threads'
 * (V8's GC and optimizing compiler) by what they do. `markers`: main-thread samples with
 * JSON.parse, JSON.stringify, a stream write or the wasm on the stack.
 */
export function aggregatePerf(script, pid) {
  const byOwner = new Map();
  const byLeaf = new Map();
  const background = new Map();
  const markers = new Map();
  let main = 0;
  let all = 0;
  const MARKERS = [
    ["JSON.parse", /Builtin_JsonParse|JsonParser/],
    ["JSON.stringify", /JsonStringify|JsonStringifier/],
    ["stream writes (StreamBase::Write*, the write syscalls)", /StreamBase::Write|uv__write|uv_try_write/],
    ["the relay's wasm (and its JS↔wasm stubs)", /^JS:wasm-function|^Stub:js-to-wasm|^Stub:wasm-to-js/],
    ["GC on the main thread", /Heap::|Scavenge|MarkCompact|Sweeper|GCTracer/],
  ];
  for (const block of script.split(/\n\s*\n/)) {
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    if (lines.length < 2) continue;
    const tid = Number(lines[0].trim().split(/\s+/)[0]);
    const frames = lines.slice(1).map((l) => {
      const m = /^\s*[0-9a-f]+\s+(.*)\s+\(([^()]*)\)\s*$/.exec(l);
      return m ? { sym: m[1].trim(), dso: m[2] } : { sym: l.trim(), dso: "" };
    });
    all++;
    if (tid !== pid) {
      const syms = frames.map((f) => f.sym).join("\n");
      add(background, /compiler::|OptimizingCompile|Maglev/.test(syms) ? "V8's optimizing compiler (background threads)" : /Heap|Scaveng|Marking|Sweep|GC/.test(syms) ? "GC (background threads)" : "other background threads", 1);
      continue;
    }
    main++;
    const places = frames.map((f) => perfPlace(f.sym, f.dso));
    add(byLeaf, places[0], 1);
    const syms = frames.map((f) => f.sym).join("\n");
    const owner =
      places.find(owned) ??
      (places.includes("GC") ? "GC" : undefined) ??
      places.find((p) => p.startsWith("Node's own")) ??
      (/RunMicrotasks/.test(syms) ? "promise reactions (V8's microtask queue; no JS caller on the stack)" : /llhttp/.test(syms) ? "Node/libuv (the HTTP parser, llhttp)" : "Node/libuv (no JS on the stack: the event loop, reads, writes)");
    add(byOwner, owner, 1);
    for (const [name, re] of MARKERS) if (frames.some((f) => re.test(f.sym))) add(markers, name, 1);
  }
  const share = (m) => sortedShares(m, all).map(({ what, ms, pct }) => ({ what, samples: ms * 1000, pct }));
  return { samples: all, mainSamples: main, byOwner: share(byOwner).filter((p) => p.pct >= 0.5), byLeaf: share(byLeaf).filter((p) => p.pct >= 0.5), background: share(background), markers: share(markers) };
}

const hasPerf = () => {
  try {
    return spawnSync("perf", ["--version"], { stdio: "ignore" }).status === 0;
  } catch {
    return false;
  }
};

/**
 * Part 3 under a profiler, twice: the bridge under `node --cpu-prof` (the samples of the
 * measured seconds only), then, when `perf` is installed, under `perf record` (node
 * --perf-basic-prof, the measured seconds only): the first says which JS runs on the main
 * thread, the second what the CPU time is, every thread included.
 */
export async function profileBridge({ clients, seconds, warmupMs }) {
  const dir = mkdtempSync(path.join(tmpdir(), "mcp-cancel-prof-"));
  try {
    const out = {};
    {
      const bridge = await startStdioBridge(["--cpu-prof", "--cpu-prof-dir", dir]);
      let from;
      let to;
      const hr = () => Number(process.hrtime.bigint() / 1000n);
      const many = await manyClients(bridge, { clients, seconds, warmupMs, onStart: () => (from = hr()), onEnd: () => (to = hr()) });
      await bridge.stop();
      const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
      if (file === undefined) throw new Error("the bridge wrote no .cpuprofile");
      out.cpuProf = { many, ...aggregateCpuProfile(JSON.parse(readFileSync(path.join(dir, file), "utf8")), from, to) };
    }
    if (hasPerf()) {
      // In the temp dir: V8 writes an isolate-*.log into the working directory here.
      const bridge = await startStdioBridge(["--perf-basic-prof", "--interpreted-frames-native-stack"], dir);
      const data = path.join(dir, "perf.data");
      let perf;
      let perfExited;
      const many = await manyClients(bridge, {
        clients,
        seconds,
        warmupMs,
        onStart: async () => {
          perf = spawn("perf", ["record", "-g", "-F", "999", "-o", data, "-p", String(bridge.pid)], { stdio: "ignore" });
          perfExited = new Promise((resolve) => perf.on("exit", resolve));
          await sleep(300); // perf attaches
        },
        onEnd: async () => {
          perf.kill("SIGINT");
          await perfExited;
        },
      });
      const script = spawnSync("perf", ["script", "-i", data, "-F", "tid,ip,sym,dso"], { encoding: "utf8", maxBuffer: 1 << 30 }).stdout;
      await bridge.stop();
      rmSync(`/tmp/perf-${bridge.pid}.map`, { force: true });
      out.perf = { many, ...aggregatePerf(script, bridge.pid) };
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ----- the run -----

/**
 * The comparison (parts 1 and 2) and the one-instance figures (part 3). `quick`: fewer calls,
 * shorter times. `profile`: also profile the bridge in part 3. `log` gets a line per step.
 */
export async function runRemote({ quick = false, profile = false, log = () => {} } = {}) {
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

  // 3. One bridge --stdio instance, 50 clients, after a warm-up long enough for V8 to have
  // optimized the bridge's code; in the same rounds, with the same clients, the floors under
  // it (bench/bridge-floor.mjs): (a) node:http alone, (b) the SDK's transport + McpServer.
  const part3 = { clients: 50, seconds: quick ? 3 : 5, warmupMs: quick ? 2000 : 6000 };
  const floors = await runFloor({ ...part3, rounds: quick ? 1 : 3, ways: ["bare", "sdk", "bridge"], log: (line) => log(`  ${line}`) });
  // The same with a load generator that costs little (plain HTTP requests, no SDK Client):
  // what the server side carries when the clients do not hold a core.
  const floorsLight = await runFloor({ ...part3, rounds: quick ? 1 : 3, ways: ["bare", "sdk", "bridge"], light: true, log: (line) => log(`  light: ${line}`) });
  const b = floors.summary.bridge;
  const instance = {
    clients: part3.clients,
    seconds: part3.seconds,
    warmupMs: part3.warmupMs,
    rounds: floors.rounds,
    perSecond: b.perSecond.median,
    perSecondRange: b.perSecond.range,
    p50Ms: median(b.runs.map((x) => x.p50Ms)),
    p99Ms: median(b.runs.map((x) => x.p99Ms)),
    cpuPerCallUs: { bridge: b.ownUs.median, child: b.childUs.median, clients: b.clientsUs.median },
    bridgeAloneCeiling: b.aloneCeiling,
  };
  log(`one bridge --stdio, ${part3.clients} SDK 1.x clients, echo on server-everything, ${part3.seconds} s after ${part3.warmupMs / 1000} s of warm-up, ${floors.rounds} round(s) with the floors, medians:`);
  for (const line of describeFloor(floors)) log(`  ${line}`);
  log("the same with 50 light clients (plain HTTP requests, same sessions and calls), medians:");
  for (const line of describeFloor(floorsLight)) log(`  ${line}`);

  let cpuProfile;
  if (profile) {
    cpuProfile = await profileBridge(part3);
    const show = (rows, unit = "ms") => rows.forEach((p) => log(`  ${p.pct.toFixed(1).padStart(5)}%  ${unit === "ms" ? `${p.ms.toFixed(0).padStart(6)} ms` : `${String(p.samples).padStart(6)} samples`}  ${p.what}`));
    const c = cpuProfile.cpuProf;
    log(`node --cpu-prof, the bridge's main thread over the measured ${part3.seconds} s (${c.many.calls} calls, ${c.many.perSecond.toFixed(0)}/s; ${c.busyMs.toFixed(0)} ms not idle, ${((c.busyMs / c.many.calls) * 1000).toFixed(0)} µs per call; /proc: ${c.many.cpuPerCallUs.bridge.toFixed(0)} µs CPU per call). Self time by place:`);
    show(c.byPlace);
    log("the same, Node's and native time charged to the nearest package or repository code on the stack:");
    show(c.byOwner);
    log("top functions (self):");
    show(c.topFunctions);
    for (const n of c.nativeCallers) {
      log(`callers of ${n.native}:`);
      show(n.callers);
    }
    const p = cpuProfile.perf;
    if (p) {
      log(`perf record, every thread of the bridge over the measured ${part3.seconds} s (${p.many.calls} calls, ${p.many.perSecond.toFixed(0)}/s, /proc: ${p.many.cpuPerCallUs.bridge.toFixed(0)} µs CPU per call; ${p.samples} samples, ${p.mainSamples} on the main thread). Main thread, charged to the nearest package or repository code:`);
      show(p.byOwner, "samples");
      log("main thread, by the leaf frame:");
      show(p.byLeaf, "samples");
      log("other threads:");
      show(p.background, "samples");
      log("main-thread samples with, on the stack:");
      show(p.markers, "samples");
    } else {
      log("(perf is not installed: no CPU profile of every thread)");
    }
  }

  return {
    versions: { mcpRemote: pkgVersion("mcp-remote"), sdk: pkgVersion("@modelcontextprotocol/sdk"), sdk2Client: pkgVersion("@modelcontextprotocol/client"), everything: pkgVersion("@modelcontextprotocol/server-everything") },
    mcpRemoteArgs: ["--allow-http", "--transport", "http-only"],
    latency,
    throughput: { inFlight, seconds: (2 * tputMs) / 1000, perSecond: throughputPerSecond },
    abort: { ...slow, cases: aborts },
    instance,
    floors,
    floorsLight,
    profile: cpuProfile,
    load: { start: loadStart, end: loadavg()[0], cores: cpus().length },
    seconds: (now() - started) / 1000,
  };
}

/** BENCHMARKS.md's part for bench/remote.mjs: the bridge against mcp-remote, one bridge --stdio. */
export function remoteSection(r) {
  const md = [];
  const ms = (x) => `${x.toFixed(2)} ms`;
  const plus = (x) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)} ms`;
  const label = { direct: "direct (SDK 1.x Streamable HTTP client, no hop)", bridge: "`mcp-cancel bridge --http`", "mcp-remote": `\`mcp-remote\` ${r.versions.mcpRemote}` };
  md.push("### The bridge against mcp-remote (issue #26)");
  md.push("");
  md.push(`One Streamable HTTP server on loopback (SDK ${r.versions.sdk} \`McpServer\`, a session per client, no auth; bench/remote.mjs). An SDK ${r.versions.sdk} stdio \`Client\` spawns \`node cli/main.js bridge --http <url>\` or \`mcp-remote <url> ${r.mcpRemoteArgs.join(" ")}\` (its logging left on, as users run it); for reference, an SDK ${r.versions.sdk} Streamable HTTP client calls the server directly. Latency: ${r.latency.direct.calls} sequential \`tools/call echo\` (100-byte text) per way after a warm-up, in blocks whose order rotates, median and p99 of every call; added = the way's − direct. Throughput: ${r.throughput.inFlight} calls always in flight on one client, ${r.throughput.seconds} s per way (ABC then CBA), completed calls per second. Clients, hops and server share the machine (load average ${r.load.start.toFixed(1)} at the start, ${r.load.end.toFixed(1)} at the end on ${r.load.cores} cores).`);
  md.push("");
  md.push("| way to the server | p50 | p99 | added p50 | added p99 | calls/s, 20 in flight |");
  md.push("|---|---:|---:|---:|---:|---:|");
  for (const k of ["direct", "bridge", "mcp-remote"]) {
    const l = r.latency[k];
    md.push(`| ${label[k]} | ${ms(l.p50Ms)} | ${ms(l.p99Ms)} | ${k === "direct" ? "—" : plus(l.addedP50Ms)} | ${k === "direct" ? "—" : plus(l.addedP99Ms)} | ${r.throughput.perSecond[k].toFixed(0)} |`);
  }
  md.push("");
  md.push("Through a hop, the HTTP client side runs in the hop's process; direct, the bench's one process runs both the HTTP client and the server, which is why the direct way's rate with 20 in flight can come out below a hop's: it is the reference for latency, not a ceiling.");
  md.push("");
  md.push(`The abort: the client aborts a \`slow\` call (${r.abort.steps} progress steps, ${r.abort.ms} ms apart) at its first progress. The tool ignores its signal and answers anyway, as a server without cancellation does (it keeps sending progress, and sends its result itself where its SDK would drop it). A tap on the server records what reaches it; one on the client's transport what reaches the client after its abort (the SDK \`Client\` itself drops such messages, as ids it no longer knows; a client that does not is handed them). Times are from the abort.`);
  md.push("");
  md.push("| way | the client sends | the server receives | the request's response stream | after the abort, at the client |");
  md.push("|---|---|---|---|---|");
  for (const c of r.abort.cases) {
    const sent = c.clientCancel ? `\`notifications/cancelled\` { requestId: ${JSON.stringify(c.clientCancel.requestId)} }` : "nothing";
    const got = c.cancels.length === 0 ? "no `notifications/cancelled`" : c.cancels.map((x) => `\`notifications/cancelled\` { requestId: ${JSON.stringify(x.requestId)}${x.reason ? `, reason: ${JSON.stringify(x.reason)}` : ""} } at +${x.afterMs} ms (the call's id there: ${JSON.stringify(c.serverRequestId)}${x.forThisCall ? "" : ", **not this call**"})`).join("; ");
    const other = c.otherHttpRequests.length ? `; also ${c.otherHttpRequests.join(", ")}` : "";
    const stream = c.streamClosedAfterMs === undefined ? "left open: the tool's later progress and its answer go down it" : `closed by the client side at +${c.streamClosedAfterMs} ms`;
    md.push(`| ${label[c.hop]} | ${sent} (its id for the call: ${JSON.stringify(c.clientRequestId)}) | ${got}${other} | ${stream} | ${c.lateProgressAtClient} progress, ${c.lateResponseAtClient} response |`);
  }
  md.push("");
  const i = r.instance;
  const f = r.floors;
  md.push(
    `One \`bridge --stdio\` instance, server-everything ${r.versions.everything} as its child, ${i.clients} SDK ${r.versions.sdk} Streamable HTTP clients in the bench's process calling \`echo\` (100-byte message) back to back for ${i.seconds.toFixed(0)} s after ${i.warmupMs / 1000} s of the same (V8 goes on optimizing the server's code for seconds). In the same run, in ${f.rounds} round${f.rounds > 1 ? "s whose order rotates" : ""}, the same clients against two floors, each a process of its own as the bridge is (bench/floor-server.mjs): (a) Node's \`http\` alone, each POST's JSON-RPC parsed and answered on an SSE stream, no checks; (b) the SDK's \`StreamableHTTPServerTransport\` and an \`McpServer\` per session with the tool in process: no bridge, no child. CPU time per call from Linux \`/proc/<pid>/stat\`; for the bridge, its own plus its child's. ${f.rounds > 1 ? "Medians (min–max)" : "One round"}:`,
  );
  md.push("");
  floorTable(md, f, "SDK 1.x clients");
  md.push("");
  md.push(`The same, in ${r.floorsLight.rounds} more round${r.floorsLight.rounds > 1 ? "s" : ""}, with a load generator that costs little: the same 50 sessions and \`tools/call echo\`, as plain HTTP requests (node:http, keep-alive) whose SSE answer is read whole and checked, no SDK \`Client\` (bench/bridge-floor.mjs \`lightClients\`):`);
  md.push("");
  floorTable(md, r.floorsLight, "light clients");
  md.push("");
  const a = f.summary.bare;
  const b = f.summary.sdk;
  const c = f.summary.bridge;
  const cores = (us) => ((us * 2000) / 1e6).toFixed(2);
  const n = (x) => x.toFixed(0);
  md.push(
    `All of it shares the machine's ${r.load.cores} cores (load average ${f.load.start.toFixed(1)} at the start of part 3, ${f.load.end.toFixed(1)} after the SDK clients' rounds), so a rate is this machine's end to end, clients included. At 2,000 calls per second the clients alone would need ${cores(c.clientsUs.median)} cores' worth of CPU (most of it on their one JS thread); with (a)'s server ${cores(a.clientsUs.median + a.serverUs.median)}, with (b)'s ${cores(b.clientsUs.median + b.serverUs.median)}, with the bridge and its child ${cores(c.clientsUs.median + c.serverUs.median)}, of the ${r.load.cores} there are; and one JS thread gets at most one core, so these clients ask for at most about 1 / their CPU per call = ${n(1e6 / c.clientsUs.median)} calls per second (a little more: some of it is their GC threads'), whatever answers them. With the light clients the servers' own CPU decides (load average ${r.floorsLight.load.end.toFixed(1)} at the end of the light rounds).`,
  );
  md.push("");
  return md;
}

/** A table of bench/bridge-floor.mjs's result `f`: a row per way, medians (min–max). */
function floorTable(md, f, clients) {
  const n = (x) => x.toFixed(0);
  const cell = (m) => (f.rounds > 1 ? `${n(m.median)} (${n(m.range[0])}–${n(m.range[1])})` : n(m.median));
  md.push(`| way, ${clients} | \`tools/call\` per second | CPU per call, server side | of it, the child | CPU per call, the clients | server alone on a core: 1 / its own CPU per call |`);
  md.push("|---|---:|---:|---:|---:|---:|");
  for (const s of Object.values(f.summary)) {
    md.push(`| ${s.label} | ${cell(s.perSecond)} | ${cell(s.serverUs)} µs | ${s.childUs.median > 0 ? `${cell(s.childUs)} µs` : "—"} | ${cell(s.clientsUs)} µs | ${n(s.aloneCeiling)}/s |`);
  }
}

/** One line for an abort case. */
export function describeAbort(a) {
  const cancel = a.cancels.length === 0 ? "no notifications/cancelled" : a.cancels.map((c) => `notifications/cancelled { requestId: ${JSON.stringify(c.requestId)} } +${c.afterMs} ms${c.forThisCall ? "" : " (not the call's id!)"}`).join(", ");
  const stream = a.streamClosedAfterMs === undefined ? "request stream left open" : `request stream closed +${a.streamClosedAfterMs} ms`;
  return `server got ${cancel}; ${stream}; late at the client: ${a.lateProgressAtClient} progress, ${a.lateResponseAtClient} response`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runRemote({ quick: process.argv.includes("--quick"), profile: process.argv.includes("--profile"), log: (line) => console.log(line) });
  console.log(JSON.stringify(r));
}

// The floors under `bridge --stdio`'s throughput budget (issue #26, part 5: ≥ 2,000
// `tools/call` per second through one instance, 50 clients, on this machine), measured in
// one run with the bridge itself and the same load (bench/remote.mjs `manyClients`: 50 SDK
// 1.x Streamable HTTP clients in this process calling `echo` with a 100-byte message back to
// back, after a warm-up; CPU time of each process from /proc):
//
//   (a) bare    Node's `http` alone answering the JSON-RPC (bench/floor-server.mjs bare)
//   (b) sdk     the SDK 1.x StreamableHTTPServerTransport + McpServer, the tool in process
//               (bench/floor-server.mjs sdk): the floor of serving MCP with the SDK's transport
//   (c) bridge  `mcp-cancel bridge --stdio` with server-everything as its child (as in
//               bench/remote.mjs part 3)
//   (c0) bridge-before  the same with another checkout's cli/ (`--before <dir>`), for an A/B
//
// Each round runs every way once, in an order that rotates from round to round (the machine
// is shared: paired runs, medians and the spread). The server of (a) and (b) is a process of
// its own, as the bridge is; (c)'s CPU is the bridge's plus its child's.
//
//   node bench/bridge-floor.mjs [--rounds 3] [--seconds 5] [--warmup 6000] [--ways bare,sdk,bridge]
//                               [--before <checkout>] [--light]
//
// --light: the same sessions and calls from plain HTTP requests instead of SDK Clients (see
// lightClients): what the server side carries when the load generator costs little.
//
// Prints a line per measurement and the results as JSON on its last line.
import { spawn } from "node:child_process";
import http from "node:http";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { listening } from "../pkg-tests/bridge-helpers.mjs";
import { cpuMs, selfCpuMs } from "./proc.mjs";
import { manyClients, startStdioBridge } from "./bridge-load.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FLOOR_SERVER = path.join(ROOT, "bench/floor-server.mjs");

/** A floor server (bench/floor-server.mjs `mode`) as a process: what manyClients needs. */
async function startFloorServer(mode) {
  const server = spawn(process.execPath, [FLOOR_SERVER, mode], { stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise((resolve) => server.on("exit", resolve));
  const { url, stderr } = await listening(server, 20_000);
  const stop = async () => {
    server.kill("SIGTERM");
    const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { pid: server.pid, childPid: undefined, url, stop, stderr };
}


/**
 * The light load (`--light`): the same 50 sessions and the same `tools/call echo`, sent as
 * plain HTTP requests (node:http, keep-alive, one connection per session) whose SSE answer is
 * read whole and checked for the echo, instead of 50 SDK Clients: no JSON-RPC bookkeeping, no
 * zod, no web streams on the client side. It shows what the server side carries when the
 * clients cost little. Returns what `manyClients` does (its CPU fields, rate, latencies).
 */
export async function lightClients(server, { clients, seconds, warmupMs }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const post = (headers, body) =>
    new Promise((resolve, reject) => {
      const req = http.request(server.url, { method: "POST", agent, headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, text }));
      });
      req.on("error", reject);
      req.end(body);
    });
  const sessions = [];
  for (let i = 0; i < clients; i++) {
    const init = await post({}, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench-light", version: "0.0.0" } } }));
    const sessionId = init.headers["mcp-session-id"];
    if (init.status !== 200 || typeof sessionId !== "string") throw new Error(`light client: initialize answered ${init.status}: ${init.text}`);
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    await post(headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    sessions.push({ headers, nextId: 1 });
  }
  const message = "x".repeat(100);
  const call = async (session) => {
    const r = await post(session.headers, JSON.stringify({ jsonrpc: "2.0", id: session.nextId++, method: "tools/call", params: { name: "echo", arguments: { message } } }));
    if (r.status !== 200 || !r.text.includes(`Echo: ${message}`)) throw new Error(`light client: tools/call answered ${r.status}: ${r.text.slice(0, 200)}`);
  };
  const loop = async (ms, latencies) => {
    const stopAt = performance.now() + ms;
    await Promise.all(
      sessions.map(async (session) => {
        while (performance.now() < stopAt) {
          const t0 = performance.now();
          await call(session);
          latencies?.push(performance.now() - t0);
        }
      }),
    );
  };
  await loop(warmupMs);
  const childCpuMs = () => (server.childPid === undefined ? 0 : cpuMs(server.childPid));
  const latencies = [];
  const before = { bridge: cpuMs(server.pid), child: childCpuMs(), self: selfCpuMs() };
  const start = performance.now();
  await loop(seconds * 1000, latencies);
  const elapsed = (performance.now() - start) / 1000;
  const after = { bridge: cpuMs(server.pid), child: childCpuMs(), self: selfCpuMs() };
  for (const { headers } of sessions) {
    await new Promise((resolve) => http.request(server.url, { method: "DELETE", agent, headers }, (res) => res.resume().on("end", resolve)).on("error", resolve).end());
  }
  agent.destroy();
  const calls = latencies.length;
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(calls - 1, Math.floor(p * calls))];
  const perCallUs = (k) => ((after[k] - before[k]) / calls) * 1000;
  return { clients, seconds: elapsed, calls, perSecond: calls / elapsed, p50Ms: q(0.5), p99Ms: q(0.99), cpuPerCallUs: { bridge: perCallUs("bridge"), child: perCallUs("child"), clients: perCallUs("self") } };
}

export const WAYS = {
  bare: { label: "(a) node:http alone, the JSON-RPC answered directly", start: () => startFloorServer("bare") },
  sdk: { label: "(b) SDK 1.x StreamableHTTPServerTransport + McpServer, tool in process", start: () => startFloorServer("sdk") },
  bridge: { label: "(c) bridge --stdio, server-everything as its child", start: () => startStdioBridge() },
};

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs) => [Math.min(...xs), Math.max(...xs)];

/**
 * `rounds` rounds of every way in `ways` (names of WAYS, or "bridge-before" with `before`:
 * a checkout whose cli/main.js is the bridge to compare), each 50 clients for `seconds` after
 * `warmupMs`. Per way: calls per second and CPU µs per call (server process; for a bridge,
 * the bridge, its child and both), each run's and the median with the spread.
 */
export async function runFloor({ rounds = 3, seconds = 5, warmupMs = 6000, clients = 50, ways = ["bare", "sdk", "bridge"], before, light = false, log = () => {} } = {}) {
  const load = light ? lightClients : manyClients;
  const table = { ...WAYS };
  if (before !== undefined) {
    table["bridge-before"] = { label: `(c0) bridge --stdio of ${before}`, start: () => startStdioBridge([], ROOT, path.join(before, "cli/main.js")) };
    if (!ways.includes("bridge-before")) ways = [...ways, "bridge-before"];
  }
  const runs = Object.fromEntries(ways.map((w) => [w, []]));
  const loadStart = loadavg()[0];
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < ways.length; i++) {
      const way = ways[(r + i) % ways.length];
      const server = await table[way].start();
      let m;
      try {
        m = await load(server, { clients, seconds, warmupMs });
      } finally {
        await server.stop();
      }
      const run = {
        perSecond: m.perSecond,
        p50Ms: m.p50Ms,
        p99Ms: m.p99Ms,
        serverUs: m.cpuPerCallUs.bridge + m.cpuPerCallUs.child,
        ownUs: m.cpuPerCallUs.bridge,
        childUs: m.cpuPerCallUs.child,
        clientsUs: m.cpuPerCallUs.clients,
        load: loadavg()[0],
      };
      runs[way].push(run);
      log(
        `round ${r + 1}, ${way}: ${run.perSecond.toFixed(0)}/s (p50 ${run.p50Ms.toFixed(1)} ms, p99 ${run.p99Ms.toFixed(1)} ms); CPU per call: ${
          m.cpuPerCallUs.child > 0 ? `bridge ${run.ownUs.toFixed(0)} + child ${run.childUs.toFixed(0)} = ${run.serverUs.toFixed(0)} µs` : `server ${run.serverUs.toFixed(0)} µs`
        }, clients ${run.clientsUs.toFixed(0)} µs; load ${run.load.toFixed(1)}`,
      );
    }
  }
  const summary = {};
  for (const way of ways) {
    const rs = runs[way];
    const pick = (k) => rs.map((x) => x[k]);
    summary[way] = {
      label: table[way].label,
      perSecond: { median: median(pick("perSecond")), range: spread(pick("perSecond")) },
      serverUs: { median: median(pick("serverUs")), range: spread(pick("serverUs")) },
      ownUs: { median: median(pick("ownUs")), range: spread(pick("ownUs")) },
      childUs: { median: median(pick("childUs")), range: spread(pick("childUs")) },
      clientsUs: { median: median(pick("clientsUs")), range: spread(pick("clientsUs")) },
      // One server process on a core of its own: 1 / its CPU per call.
      aloneCeiling: 1e6 / median(pick("ownUs")),
      runs: rs,
    };
  }
  // The A/B: the bridge's own CPU per call over the other checkout's, round by round (each
  // round runs both, close in time: the pairs share the machine's state).
  let paired;
  if (runs.bridge !== undefined && runs["bridge-before"] !== undefined) {
    const ratios = runs.bridge.map((x, i) => x.ownUs / runs["bridge-before"][i].ownUs);
    paired = { ownUsRatio: { median: median(ratios), range: spread(ratios), runs: ratios } };
  }
  return { clients: light ? `${clients} light (plain HTTP)` : clients, seconds, warmupMs, rounds, summary, paired, load: { start: loadStart, end: loadavg()[0], cores: cpus().length, cpu: cpus()[0]?.model } };
}

/** Lines of a table: one per way, medians and spreads. */
export function describeFloor(result) {
  const f = (x) => x.toFixed(0);
  return Object.values(result.summary).map(
    (s) =>
      `${s.label}: ${f(s.perSecond.median)}/s (${f(s.perSecond.range[0])}–${f(s.perSecond.range[1])}); CPU per call ${f(s.serverUs.median)} µs (${f(s.serverUs.range[0])}–${f(s.serverUs.range[1])})${
        s.childUs.median > 0 ? ` = own ${f(s.ownUs.median)} + child ${f(s.childUs.median)}` : ""
      }; clients ${f(s.clientsUs.median)} µs; alone on a core: ~${f(s.aloneCeiling)}/s`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "3" },
      seconds: { type: "string", default: "5" },
      warmup: { type: "string", default: "6000" },
      ways: { type: "string", default: "bare,sdk,bridge" },
      before: { type: "string" },
      light: { type: "boolean" },
    },
  });
  const result = await runFloor({
    rounds: Number(values.rounds),
    seconds: Number(values.seconds),
    warmupMs: Number(values.warmup),
    ways: values.ways.split(","),
    before: values.before === undefined ? undefined : path.resolve(values.before),
    light: values.light === true,
    log: (line) => console.log(line),
  });
  for (const line of describeFloor(result)) console.log(line);
  if (result.paired !== undefined) {
    const r = result.paired.ownUsRatio;
    console.log(`the bridge's own CPU per call over ${values.before}'s, round by round: ${r.runs.map((x) => x.toFixed(2)).join(", ")}; median ${r.median.toFixed(2)}`);
  }
  console.log(JSON.stringify(result));
}

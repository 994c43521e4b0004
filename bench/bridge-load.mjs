// One `bridge --stdio` instance (server-everything as its child) under load, beside the
// servers it is measured against, in one run with the same load (bench/remote.mjs part 3):
//
//   bare    Node's `http` alone answering the JSON-RPC (bench/reference-server.mjs bare)
//   sdk     the SDK 1.x StreamableHTTPServerTransport + McpServer, the tool in process
//           (bench/reference-server.mjs sdk): serving MCP with the SDK's own transport
//   bridge  `mcp-cancel bridge --stdio` with server-everything as its child
//   bridge-before  the same with another checkout's cli/ (`--before <dir>`), for an A/B
//
// The load: 50 sessions calling `tools/call echo` (a 100-byte message) back to back for a fixed
// time after a warm-up (V8 goes on optimizing the server's code for seconds), each as plain HTTP
// requests (node:http, keep-alive, one connection per session) whose SSE answer is read whole
// and checked. No SDK Client on this side: 50 of them in one process need more CPU than the
// servers they drive, and the figure would be the clients'. CPU time of each process from
// Linux /proc. Each round runs every way once, the order turning from round to round (the
// machine is shared: medians and the spread). A bridge's CPU is its own plus its child's.
//
//   node bench/bridge-load.mjs [--rounds 3] [--seconds 5] [--warmup 6000] [--ways bare,sdk,bridge]
//                              [--before <checkout>]
//
// Prints a line per measurement and the results as JSON on its last line.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { listening } from "../pkg-tests/bridge-helpers.mjs";
import { cpuMs, selfCpuMs } from "./proc.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "cli/main.js");
const EVERYTHING = path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const REFERENCE_SERVER = path.join(ROOT, "bench/reference-server.mjs");

/** A process that serves MCP on a URL it prints; `stop()` ends it. */
async function started(child, childPid) {
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const { url, stderr } = await listening(child, 20_000);
  const stop = async () => {
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { pid: child.pid, childPid: childPid?.(child), url, stop, stderr };
}

/** `bridge --stdio` of `cli` with server-everything as its child. */
export function startStdioBridge(cli = CLI) {
  const bridge = spawn(process.execPath, [cli, "bridge", "--stdio", `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`, "--port", "0", "--max-sessions", "200"], {
    stdio: ["ignore", "ignore", "pipe"],
    cwd: ROOT,
  });
  // `/bin/sh -c "exec node …"`: the shell's pid is the server's.
  return started(bridge, (b) => Number(readFileSync(`/proc/${b.pid}/task/${b.pid}/children`, "utf8").trim().split(" ")[0]));
}

const startReferenceServer = (mode) => started(spawn(process.execPath, [REFERENCE_SERVER, mode], { stdio: ["ignore", "ignore", "pipe"] }));

/**
 * `clients` sessions on `server`, each calling `echo` back to back: `warmupMs` first, then
 * `seconds` measured. Calls per second, latencies, and CPU µs per call of the server, its
 * child and this process.
 */
export async function load(server, { clients, seconds, warmupMs }) {
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
    const init = await post({}, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench-load", version: "0.0.0" } } }));
    const sessionId = init.headers["mcp-session-id"];
    if (init.status !== 200 || typeof sessionId !== "string") throw new Error(`load: initialize answered ${init.status}: ${init.text}`);
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    await post(headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    sessions.push({ headers, nextId: 1 });
  }
  const message = "x".repeat(100);
  const call = async (session) => {
    const r = await post(session.headers, JSON.stringify({ jsonrpc: "2.0", id: session.nextId++, method: "tools/call", params: { name: "echo", arguments: { message } } }));
    if (r.status !== 200 || !r.text.includes(`Echo: ${message}`)) throw new Error(`load: tools/call answered ${r.status}: ${r.text.slice(0, 200)}`);
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
  const before = { server: cpuMs(server.pid), child: childCpuMs(), self: selfCpuMs() };
  const start = performance.now();
  await loop(seconds * 1000, latencies);
  const elapsed = (performance.now() - start) / 1000;
  const after = { server: cpuMs(server.pid), child: childCpuMs(), self: selfCpuMs() };
  for (const { headers } of sessions) {
    await new Promise((resolve) => http.request(server.url, { method: "DELETE", agent, headers }, (res) => res.resume().on("end", resolve)).on("error", resolve).end());
  }
  agent.destroy();
  const calls = latencies.length;
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(calls - 1, Math.floor(p * calls))];
  const perCallUs = (k) => ((after[k] - before[k]) / calls) * 1000;
  return { clients, seconds: elapsed, calls, perSecond: calls / elapsed, p50Ms: q(0.5), p99Ms: q(0.99), cpuPerCallUs: { server: perCallUs("server"), child: perCallUs("child"), clients: perCallUs("self") } };
}

export const WAYS = {
  bare: { label: "Node's `http` alone, the JSON-RPC answered directly", start: () => startReferenceServer("bare") },
  sdk: { label: "the SDK 1.x `StreamableHTTPServerTransport` + `McpServer`, tool in process", start: () => startReferenceServer("sdk") },
  bridge: { label: "`bridge --stdio`, server-everything as its child", start: () => startStdioBridge() },
};

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs) => [Math.min(...xs), Math.max(...xs)];

/**
 * `rounds` rounds of every way in `ways` (names of WAYS, or "bridge-before" with `before`: a
 * checkout whose cli/main.js is the bridge to compare). Per way: calls per second and CPU µs
 * per call (server process; for a bridge, the bridge, its child and both), each run's and the
 * median with the spread.
 */
export async function runThroughput({ rounds = 3, seconds = 5, warmupMs = 6000, clients = 50, ways = ["bare", "sdk", "bridge"], before, log = () => {} } = {}) {
  const table = { ...WAYS };
  if (before !== undefined) {
    table["bridge-before"] = { label: `\`bridge --stdio\` of ${before}`, start: () => startStdioBridge(path.join(before, "cli/main.js")) };
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
        serverUs: m.cpuPerCallUs.server + m.cpuPerCallUs.child,
        ownUs: m.cpuPerCallUs.server,
        childUs: m.cpuPerCallUs.child,
        clientsUs: m.cpuPerCallUs.clients,
        load: loadavg()[0],
      };
      runs[way].push(run);
      log(
        `round ${r + 1}, ${way}: ${run.perSecond.toFixed(0)}/s (p50 ${run.p50Ms.toFixed(1)} ms, p99 ${run.p99Ms.toFixed(1)} ms); CPU per call: ${
          run.childUs > 0 ? `bridge ${run.ownUs.toFixed(0)} + child ${run.childUs.toFixed(0)} = ${run.serverUs.toFixed(0)} µs` : `server ${run.serverUs.toFixed(0)} µs`
        }, clients ${run.clientsUs.toFixed(0)} µs; load ${run.load.toFixed(1)}`,
      );
    }
  }
  const summary = {};
  for (const way of ways) {
    const rs = runs[way];
    const pick = (k) => rs.map((x) => x[k]);
    const stat = (k) => ({ median: median(pick(k)), range: spread(pick(k)) });
    summary[way] = {
      label: table[way].label,
      perSecond: stat("perSecond"),
      p50Ms: stat("p50Ms"),
      serverUs: stat("serverUs"),
      ownUs: stat("ownUs"),
      childUs: stat("childUs"),
      clientsUs: stat("clientsUs"),
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
  return { clients, seconds, warmupMs, rounds, summary, paired, load: { start: loadStart, end: loadavg()[0], cores: cpus().length } };
}

/** A line per way: medians and spreads. */
export function describeThroughput(result) {
  const f = (x) => x.toFixed(0);
  return Object.entries(result.summary).map(
    ([way, s]) =>
      `${way}: ${f(s.perSecond.median)}/s (${f(s.perSecond.range[0])}–${f(s.perSecond.range[1])}); CPU per call ${f(s.serverUs.median)} µs (${f(s.serverUs.range[0])}–${f(s.serverUs.range[1])})${
        s.childUs.median > 0 ? ` = own ${f(s.ownUs.median)} + child ${f(s.childUs.median)}` : ""
      }; clients ${f(s.clientsUs.median)} µs`,
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
    },
  });
  const result = await runThroughput({
    rounds: Number(values.rounds),
    seconds: Number(values.seconds),
    warmupMs: Number(values.warmup),
    ways: values.ways.split(","),
    before: values.before === undefined ? undefined : path.resolve(values.before),
    log: (line) => console.log(line),
  });
  for (const line of describeThroughput(result)) console.log(line);
  if (result.paired !== undefined) {
    const r = result.paired.ownUsRatio;
    console.log(`the bridge's own CPU per call over ${values.before}'s, round by round: ${r.runs.map((x) => x.toFixed(2)).join(", ")}; median ${r.median.toFixed(2)}`);
  }
  console.log(JSON.stringify(result));
}

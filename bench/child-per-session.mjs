// `bridge --stdio "<command>" --child-per-session`: how many sessions a second the bridge
// opens and closes, and what each session's server process costs in memory, for two
// children: server-everything (`node …/server-everything/dist/index.js stdio`) and a small
// SDK 1.x McpServer (pkg-tests/peers/node-server.mjs).
//
// A session is what a client does with it at its shortest: `initialize`,
// `notifications/initialized`, one `tools/call`, `DELETE`, as plain HTTP (node:http,
// keep-alive; no SDK Client, whose own cost would be in the figure), each answer read whole.
// It is measured one session after another and with `--concurrency` sessions at once; the
// shared mode (one child for all) is measured the same way for comparison. Memory: with
// `--hold` sessions open (each past its first call), the mean resident set size (Linux
// /proc VmRSS) and proportional set size (Pss: shared pages split among their processes) of
// a session's child, and what the bridge's own RSS grew by per session (small beside its
// garbage collector's swings: it may come out negative).
// `deleteToExitMs`: from the DELETE's answer to the child's exit (the bridge closes its
// stdin; SIGTERM 2 s later if it still runs). Loopback only.
//
//   node bench/child-per-session.mjs [--sessions 30] [--concurrency 10] [--hold 10]
//
// Prints a line per measurement on stderr and the results as one JSON line on stdout:
// `{ sessionsPerSecond, sessionsPerSecondConcurrent, rssPerSessionBytes, ... }` (those of
// server-everything; the small server's under `sdkServer`).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { listening, rssOf } from "../pkg-tests/bridge-helpers.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "cli/main.js");
const node = (file) => `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(ROOT, file))}`;
const SERVERS = {
  everything: { command: `${node("node_modules/@modelcontextprotocol/server-everything/dist/index.js")} stdio`, call: { name: "echo", arguments: { message: "hi" } } },
  sdkServer: { command: node("pkg-tests/peers/node-server.mjs"), call: { name: "slow", arguments: { ms: 0 } } },
};

const { values } = parseArgs({
  options: { sessions: { type: "string", default: "30" }, concurrency: { type: "string", default: "10" }, hold: { type: "string", default: "10" } },
});
const SESSIONS = Number(values.sessions);
const CONCURRENCY = Number(values.concurrency);
const HOLD = Number(values.hold);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const note = (text) => process.stderr.write(`${text}\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One HTTP request to the bridge: `{ status, headers, text }` once its answer has ended. */
function request(url, method, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: { accept: "application/json, text/event-stream", "content-type": "application/json", ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** A session from initialize to its first tools/call's answer: its id. */
async function openSession(url, call) {
  const init = await request(url, "POST", {}, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0" } } });
  const id = init.headers["mcp-session-id"];
  if (init.status !== 200 || id === undefined || !init.text.includes('"result"')) throw new Error(`initialize: ${init.status} ${init.text}`);
  const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
  await request(url, "POST", headers, { jsonrpc: "2.0", method: "notifications/initialized" });
  const answer = await request(url, "POST", headers, { jsonrpc: "2.0", id: 1, method: "tools/call", params: call });
  if (answer.status !== 200 || !answer.text.includes('"result"')) throw new Error(`tools/call: ${answer.status} ${answer.text}`);
  return headers;
}

async function closeSession(url, headers) {
  const answer = await request(url, "DELETE", headers);
  if (answer.status !== 200) throw new Error(`DELETE: ${answer.status} ${answer.text}`);
}

/**
 * The proportional set size of process `pid`, bytes (Linux /proc/<pid>/smaps_rollup Pss):
 * its resident pages with each page shared by n processes counted 1/n, so that the node
 * binary and libraries the children share are not counted once per child as in RSS.
 */
function pssOf(pid) {
  const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
  return match === null ? Number.NaN : Number(match[1]) * 1024;
}

/** The pids of process `pid`'s children. */
function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function startBridge(command, perSession) {
  const args = ["bridge", "--stdio", command, "--port", "0", "--max-sessions", "500", ...(perSession ? ["--child-per-session"] : [])];
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "ignore", "pipe"], cwd: ROOT });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const { url } = await listening(child, 20_000);
  const stop = async () => {
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  };
  return { pid: child.pid, url, stop };
}

/** Sessions opened and closed, `concurrency` at a time: sessions per second. */
async function rate(url, call, sessions, concurrency) {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next++ < sessions) await closeSession(url, await openSession(url, call));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return sessions / ((performance.now() - started) / 1000);
}

const waitUntil = async (pred, ms) => {
  const end = performance.now() + ms;
  while (!pred() && performance.now() < end) await new Promise((r) => setTimeout(r, 5));
  return pred();
};

/** One session at a time, each timed: initialize → first answer (ms), and DELETE → the child's exit (ms). */
async function timedSessions(bridge, call, sessions) {
  const startMs = [];
  const exitMs = [];
  for (let i = 0; i < sessions; i++) {
    const before = new Set(childrenOf(bridge.pid));
    const t0 = performance.now();
    const headers = await openSession(bridge.url, call);
    startMs.push(performance.now() - t0);
    const mine = childrenOf(bridge.pid).find((pid) => !before.has(pid));
    await closeSession(bridge.url, headers);
    const t1 = performance.now();
    if (mine !== undefined && (await waitUntil(() => !childrenOf(bridge.pid).includes(mine), 10_000))) exitMs.push(performance.now() - t1);
  }
  return { sessionStartMs: median(startMs), deleteToExitMs: median(exitMs) };
}

/** With `hold` sessions open: the mean RSS of a session's child, and the bridge's growth per session (bytes). */
async function memory(bridge, call, hold) {
  await new Promise((r) => setTimeout(r, 500));
  const bridgeBefore = rssOf(bridge.pid);
  const held = [];
  for (let i = 0; i < hold; i++) held.push(await openSession(bridge.url, call));
  await new Promise((r) => setTimeout(r, 500));
  const children = childrenOf(bridge.pid);
  const mean = (xs) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
  const result = {
    rssPerSessionBytes: mean(children.map(rssOf)),
    pssPerSessionBytes: mean(children.map(pssOf)),
    bridgeRssPerSessionBytes: Math.round((rssOf(bridge.pid) - bridgeBefore) / hold),
    childrenHeld: children.length,
  };
  for (const headers of held) await closeSession(bridge.url, headers);
  return result;
}

async function measure(name, { command, call }) {
  const bridge = await startBridge(command, true);
  try {
    await rate(bridge.url, call, 3, 1); // warm-up
    // Memory first, on a bridge that has served only the warm-up (less garbage to collect
    // in the middle of the measurement).
    const mem = await memory(bridge, call, HOLD);
    const sequential = await rate(bridge.url, call, SESSIONS, 1);
    const concurrent = await rate(bridge.url, call, SESSIONS, CONCURRENCY);
    const timed = await timedSessions(bridge, call, 10);
    const result = { sessionsPerSecond: +sequential.toFixed(1), sessionsPerSecondConcurrent: +concurrent.toFixed(1), ...mem, ...timed };
    result.sessionStartMs = +result.sessionStartMs.toFixed(1);
    result.deleteToExitMs = +result.deleteToExitMs.toFixed(1);
    note(`${name}, a child per session: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await bridge.stop();
  }
}

/** The shared mode (one child for all), the same sessions: sessions per second. */
async function measureShared(name, { command, call }) {
  const bridge = await startBridge(command, false);
  try {
    await rate(bridge.url, call, 3, 1);
    const result = { sharedSessionsPerSecond: +(await rate(bridge.url, call, SESSIONS, 1)).toFixed(1), sharedSessionsPerSecondConcurrent: +(await rate(bridge.url, call, SESSIONS, CONCURRENCY)).toFixed(1) };
    note(`${name}, one child for all: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await bridge.stop();
  }
}

const everything = { ...(await measure("server-everything", SERVERS.everything)), ...(await measureShared("server-everything", SERVERS.everything)) };
const sdkServer = { ...(await measure("SDK 1.x McpServer", SERVERS.sdkServer)), ...(await measureShared("SDK 1.x McpServer", SERVERS.sdkServer)) };
agent.destroy();
process.stdout.write(`${JSON.stringify({ ...everything, concurrency: CONCURRENCY, sessions: SESSIONS, sessionsHeld: HOLD, sdkServer })}\n`);

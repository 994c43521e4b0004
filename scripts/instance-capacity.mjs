// How far one `mcp-cancel bridge --stdio` instance goes, roughly: the
// figures of docs/bridge.md, "Latency and capacity". Not part of `npm test` or `npm run bench`.
//
//   node scripts/instance-capacity.mjs [--sessions 100] [--clients 1,20,50] [--seconds 5]
//
// Runs `bridge --stdio` on server-everything (no wire tap), then
//   1. memory: the bridge's RSS (Linux /proc) before and after opening --sessions idle SDK 1.x
//      sessions (each: initialize, notifications/initialized, its GET stream held open), twice,
//      and after ending them (DELETE);
//   2. throughput: for each --clients count, that many SDK 1.x clients calling the `echo`
//      tool back to back for --seconds: tools/call per second, latency p50/p99, and the CPU
//      time of the bridge, of the child and of this process (the clients) per call.
// Everything on loopback; the clients share this process (and the machine's cores) with the
// bridge and the child, so the calls per second are a floor; CPU per call is the steadier figure.
// The SDK 1.x client warns MaxListenersExceededWarning here after ~1,500 calls on one client:
// its transport adds an abort listener per request and never removes it (not the bridge's).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { cpuMs as cpu, rssBytes as rss, selfCpuMs as selfCpu } from "../bench/proc.mjs";
import { listening } from "../pkg-tests/bridge-helpers.mjs";

import { EVERYTHING } from "../demo/everything.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: { sessions: { type: "string", default: "100" }, clients: { type: "string", default: "1,20,50" }, seconds: { type: "string", default: "5" } },
});
const SESSIONS = Number(values.sessions);
const CLIENT_COUNTS = values.clients.split(",").map(Number);
const SECONDS = Number(values.seconds);
const MiB = 1024 * 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));


const bridge = spawn(process.execPath, [path.join(ROOT, "cli/main.js"), "bridge", "--stdio", `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`, "--port", "0", "--max-sessions", String(4 * SESSIONS + 100)], {
  stdio: ["ignore", "ignore", "pipe"],
});
const { url } = await listening(bridge, 15_000);
// The child: /bin/sh -c "exec node …" is the server process itself.
const childPid = Number(readFileSync(`/proc/${bridge.pid}/task/${bridge.pid}/children`, "utf8").trim().split(" ")[0]);

async function connect(name) {
  const transport = new StreamableHTTPClientTransport(url);
  const client = new Client({ name, version: "0.0.0" });
  await client.connect(transport);
  return { client, transport };
}
async function end(clients) {
  for (const { client, transport } of clients) {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }
}
async function open(n, tag) {
  const clients = [];
  for (let i = 0; i < n; i += 10) clients.push(...(await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, k) => connect(`${tag}${i + k}`)))));
  return clients;
}

const out = [];
const say = (line) => {
  out.push(line);
  console.log(line);
};
say(`machine: ${cpus().length} × ${cpus()[0].model}, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} at start; node ${process.version}`);

// Warm up: the first sessions and calls load the code paths.
const warm = await open(10, "warm");
for (const { client } of warm) await client.callTool({ name: "echo", arguments: { message: "warm" } });
await end(warm);
await sleep(2000);

// 1. Memory per idle session.
const before = rss(bridge.pid);
const first = await open(SESSIONS, "idle");
await sleep(2000);
const after1 = rss(bridge.pid);
const second = await open(SESSIONS, "idle2");
await sleep(2000);
const after2 = rss(bridge.pid);
await end([...first, ...second]);
await sleep(2000);
const ended = rss(bridge.pid);
// V8 keeps what it freed: opening as many again shows whether the ended sessions' memory is reused.
const again = await open(2 * SESSIONS, "again");
await sleep(2000);
const reopened = rss(bridge.pid);
await end(again);
const per = (bytes) => `${((bytes / SESSIONS) / 1024).toFixed(0)} KiB`;
say(`bridge RSS: ${(before / MiB).toFixed(1)} MiB with no session; +${SESSIONS} idle sessions ${(after1 / MiB).toFixed(1)} MiB (${per(after1 - before)} each); +${SESSIONS} more ${(after2 / MiB).toFixed(1)} MiB (${per(after2 - after1)} each); all ended ${(ended / MiB).toFixed(1)} MiB; ${2 * SESSIONS} opened again ${(reopened / MiB).toFixed(1)} MiB. Child RSS ${(rss(childPid) / MiB).toFixed(1)} MiB (one, shared)`);

// 2. Throughput with N clients calling echo back to back.
for (const n of CLIENT_COUNTS) {
  const clients = await open(n, `load${n}-`);
  for (const { client } of clients) await client.callTool({ name: "echo", arguments: { message: "warm" } });
  const latencies = [];
  const cpu0 = { bridge: cpu(bridge.pid), child: cpu(childPid), self: selfCpu() };
  const start = performance.now();
  const stopAt = start + SECONDS * 1000;
  await Promise.all(
    clients.map(async ({ client }, i) => {
      while (performance.now() < stopAt) {
        const t0 = performance.now();
        await client.callTool({ name: "echo", arguments: { message: `m${i}` } });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const calls = latencies.length;
  const cpuPer = (ms) => `${((ms / calls) * 1000).toFixed(0)} µs`;
  latencies.sort((x, y) => x - y);
  const q = (p) => latencies[Math.min(calls - 1, Math.floor(p * calls))].toFixed(1);
  say(
    `${n} clients, echo: ${(calls / elapsed).toFixed(0)} tools/call per second (${calls} in ${elapsed.toFixed(1)} s), latency p50 ${q(0.5)} ms p99 ${q(0.99)} ms; CPU per call: bridge ${cpuPer(cpu(bridge.pid) - cpu0.bridge)}, child ${cpuPer(cpu(childPid) - cpu0.child)}, clients ${cpuPer(selfCpu() - cpu0.self)}; bridge RSS ${(rss(bridge.pid) / MiB).toFixed(1)} MiB`,
  );
  await end(clients);
}
say(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} at the end`);
bridge.kill("SIGTERM");
await new Promise((resolve) => bridge.on("exit", resolve));

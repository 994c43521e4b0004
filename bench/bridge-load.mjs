// One `bridge --stdio` instance (server-everything as its child) driven by many SDK 1.x
// Streamable HTTP clients calling `echo` back to back: calls per second, latencies, and the CPU
// time per call of the bridge, its child and this process (issue #26, part 5). bench/remote.mjs
// runs it for the bridge's row, bench/bridge-floor.mjs for the floors under it (with the same
// clients against a server that is not a bridge).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { listening } from "../pkg-tests/bridge-helpers.mjs";
import { cpuMs, selfCpuMs } from "./proc.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "cli/main.js");
const EVERYTHING = path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const now = () => performance.now();
const quantile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

export async function startStdioBridge(nodeFlags = [], cwd = ROOT, cli = CLI) {
  const bridge = spawn(process.execPath, [...nodeFlags, cli, "bridge", "--stdio", `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`, "--port", "0", "--max-sessions", "200"], {
    stdio: ["ignore", "ignore", "pipe"],
    cwd,
  });
  const exited = new Promise((resolve) => bridge.on("exit", resolve));
  const { url, stderr } = await listening(bridge, 20_000);
  // `/bin/sh -c "exec node …"`: the shell's pid is the server's.
  const childPid = Number(readFileSync(`/proc/${bridge.pid}/task/${bridge.pid}/children`, "utf8").trim().split(" ")[0]);
  const stop = async () => {
    bridge.kill("SIGTERM");
    const timer = setTimeout(() => bridge.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { pid: bridge.pid, childPid, url, stop, stderr };
}

export async function manyClients(bridge, { clients, seconds, warmupMs, onStart = () => {}, onEnd = () => {} }) {
  const conns = [];
  for (let i = 0; i < clients; i += 10) {
    conns.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(10, clients - i) }, async () => {
          const transport = new StreamableHTTPClientTransport(bridge.url);
          const client = new Client({ name: "bench-many", version: "0.0.0" });
          await client.connect(transport);
          return { client, transport };
        }),
      )),
    );
  }
  // Warm-up: every client a few calls, then all of them at once for `warmupMs` (V8 is still
  // optimizing the bridge's code for seconds: its CPU per call falls until then).
  for (const { client } of conns) for (let i = 0; i < 3; i++) await everythingEcho(client);
  await loop(conns, warmupMs, []);
  const latencies = [];
  await onStart();
  // A floor server (bench/bridge-floor.mjs) has no child process.
  const childCpuMs = () => (bridge.childPid === undefined ? 0 : cpuMs(bridge.childPid));
  const before = { bridge: cpuMs(bridge.pid), child: childCpuMs(), self: selfCpuMs() };
  const start = now();
  // Second by second too: the bridge's CPU per call in each, to see that it is steady.
  const windows = [];
  let mark = { at: start, calls: 0, cpu: before.bridge };
  const ticker = setInterval(() => {
    const at = now();
    const cpu = cpuMs(bridge.pid);
    windows.push({ perSecond: ((latencies.length - mark.calls) * 1000) / (at - mark.at), bridgeCpuPerCallUs: ((cpu - mark.cpu) / (latencies.length - mark.calls)) * 1000 });
    mark = { at, calls: latencies.length, cpu };
  }, 1000);
  await loop(conns, seconds * 1000, latencies);
  clearInterval(ticker);
  const elapsed = (now() - start) / 1000;
  const after = { bridge: cpuMs(bridge.pid), child: childCpuMs(), self: selfCpuMs() };
  await onEnd();
  for (const { client, transport } of conns) {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }
  const calls = latencies.length;
  latencies.sort((a, b) => a - b);
  const perCallUs = (k) => ((after[k] - before[k]) / calls) * 1000;
  return {
    clients,
    seconds: elapsed,
    calls,
    perSecond: calls / elapsed,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    cpuPerCallUs: { bridge: perCallUs("bridge"), child: perCallUs("child"), clients: perCallUs("self") },
    bridgeAloneCeiling: 1e6 / perCallUs("bridge"),
    windows,
  };
}

const everythingEcho = (client) => client.callTool({ name: "echo", arguments: { message: "x".repeat(100) } });

async function loop(conns, ms, latencies) {
  const stopAt = now() + ms;
  await Promise.all(
    conns.map(async ({ client }) => {
      while (now() < stopAt) {
        const t0 = now();
        await everythingEcho(client);
        latencies.push(now() - t0);
      }
    }),
  );
}

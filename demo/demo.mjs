#!/usr/bin/env node
// npm run demo: cancel a real MCP server's tool call part-way, with and without mcp-cancel,
// and print the annotated wire trace of each run.
//
//   npm run demo
//   npm run demo -- --server "python3 my_server.py" --tool slow --args '{"n": 5}' --cancel-after 800

import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { guardTransport } from "mcp-cancel";

import { tap } from "./wiretap.mjs";

const require = createRequire(import.meta.url);
const everything = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

const usage = `usage: npm run demo -- [options]

  --server "<command>"   stdio MCP server to run (default: server-everything, from npm)
  --tool <name>          tool to call (default: trigger-long-running-operation)
  --args <json>          tool arguments (default: {"duration": 4, "steps": 8})
  --cancel-after <ms>    abort the call after this many ms (default: 1200)
  --settle <ms>          after the abort, wait this long at most for late messages (default: 4000)
  -h, --help             this text`;

let opts;
try {
  opts = parseArgs({
    options: {
      server: { type: "string" },
      tool: { type: "string", default: "trigger-long-running-operation" },
      args: { type: "string", default: '{"duration": 4, "steps": 8}' },
      "cancel-after": { type: "string", default: "1200" },
      settle: { type: "string", default: "4000" },
      help: { type: "boolean", short: "h", default: false },
    },
  }).values;
} catch (error) {
  fail(`${error.message}\n\n${usage}`);
}
if (opts.help) {
  console.log(usage);
  process.exit(0);
}
let toolArgs;
try {
  toolArgs = JSON.parse(opts.args);
} catch (error) {
  fail(`--args is not valid JSON: ${error.message}`);
}
const cancelAfter = Number(opts["cancel-after"]);
const settle = Number(opts.settle);
if (!Number.isFinite(cancelAfter) || cancelAfter < 0) fail("--cancel-after must be a number of milliseconds");
if (!Number.isFinite(settle) || settle < 0) fail("--settle must be a number of milliseconds");

const serverLabel = opts.server ?? "@modelcontextprotocol/server-everything (stdio)";
const c = process.stdout.isTTY && !process.env.NO_COLOR
  ? { b: (s) => `\x1b[1m${s}\x1b[0m`, dim: (s) => `\x1b[2m${s}\x1b[0m`, red: (s) => `\x1b[31m${s}\x1b[0m`, green: (s) => `\x1b[32m${s}\x1b[0m`, yellow: (s) => `\x1b[33m${s}\x1b[0m` }
  : { b: (s) => s, dim: (s) => s, red: (s) => s, green: (s) => s, yellow: (s) => s };

function fail(message) {
  console.error(`demo: ${message}`);
  process.exit(2);
}

/** One run of the scenario; `guarded` puts mcp-cancel between the SDK Client and the wire. */
async function run(guarded) {
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const log = [];
  const timeline = []; // { at, text } of things that are not wire messages
  const sdkErrors = [];
  const delivered = new WeakSet();
  const events = [];

  const stdio = new StdioClientTransport(
    opts.server
      ? { command: "/bin/sh", args: ["-c", `exec ${opts.server}`], stderr: "pipe" }
      : { command: process.execPath, args: [everything, "stdio"], stderr: "pipe" },
  );
  let stderr = "";
  stdio.stderr?.on("data", (chunk) => (stderr = (stderr + chunk).slice(-2000)));
  const wireSide = tap(stdio, log, now);
  const transport = guarded
    ? guardTransport(wireSide, { logger: (e) => events.push({ at: now(), e }) })
    : wireSide;

  const client = new Client({ name: "mcp-cancel-demo", version: "0.1.0" });
  client.onerror = (error) => {
    sdkErrors.push(error.message);
    timeline.push({ at: now(), text: c.red(`✖ client.onerror: ${error.message.slice(0, 110)}`) });
  };
  try {
    await client.connect(transport, { timeout: 15000 });
  } catch (error) {
    const why = stderr.trim() ? `\n--- server stderr ---\n${stderr.trim()}` : "";
    fail(`could not start or initialize the MCP server ${serverLabel}: ${error.message}${why}`);
  }
  // Mark what reached the SDK (the guard may drop messages before it); the handshake
  // messages before this point reached it, or connect() would have failed.
  for (const rec of log) if (rec.dir === "in") delivered.add(rec.message);
  const sdkOnMessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    delivered.add(message);
    sdkOnMessage?.(message, extra);
  };

  const controller = new AbortController();
  let progressSeen = 0;
  const call = client.callTool({ name: opts.tool, arguments: toolArgs }, undefined, {
    signal: controller.signal,
    onprogress: () => progressSeen++,
    timeout: cancelAfter + settle + 60000,
  });
  const timer = setTimeout(() => {
    timeline.push({ at: now(), text: c.yellow("✋ user presses Cancel: AbortController.abort()") });
    controller.abort();
  }, cancelAfter);
  let outcome;
  try {
    const result = await call;
    outcome = `call completed before the abort: ${JSON.stringify(result).slice(0, 100)}`;
    clearTimeout(timer);
  } catch (error) {
    outcome = `call rejected: ${error.name}: ${error.message}`;
  }
  timeline.push({ at: now(), text: c.dim(`   (SDK caller: ${outcome})`) });

  // Wait for the late response to the cancelled request, or `settle` ms.
  const callId = log.find((r) => r.dir === "out" && r.message.method === "tools/call")?.message.id;
  const deadline = performance.now() + settle;
  while (performance.now() < deadline) {
    if (log.some((r) => r.dir === "in" && r.message.method === undefined && r.message.id === callId)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 100));
  let pingOk = false;
  try {
    await client.ping({ timeout: 5000 });
    pingOk = true;
  } catch {}
  await client.close();
  return { log, timeline, sdkErrors, delivered, events, callId, pingOk, outcome, progressSeen };
}

function describe(message) {
  const m = message;
  if (m.method === "notifications/progress") {
    const p = m.params ?? {};
    return `notifications/progress ${p.progress}/${p.total ?? "?"} (token ${JSON.stringify(p.progressToken)})`;
  }
  if (m.method === "notifications/cancelled") {
    return `notifications/cancelled requestId=${JSON.stringify(m.params?.requestId)} reason=${JSON.stringify(m.params?.reason)}`;
  }
  if (m.method !== undefined && m.id !== undefined) {
    const extra = m.method === "tools/call" ? ` ${m.params?.name} ${JSON.stringify(m.params?.arguments)}` : "";
    return `request #${m.id} ${m.method}${extra}`;
  }
  if (m.method !== undefined) return `notification ${m.method}`;
  if (m.error) return `error response #${m.id}: ${m.error.code} ${m.error.message}`;
  return `result #${m.id}${JSON.stringify(m.result ?? {}).length > 80 ? "" : " " + JSON.stringify(m.result)}`;
}

function printTrace(title, r, guarded) {
  console.log(`\n${c.b(title)}`);
  const rows = [];
  for (const rec of r.log) {
    const arrow = rec.dir === "out" ? "→ server" : "← server";
    let note = "";
    if (rec.dir === "in") {
      note = r.delivered.has(rec.message) || !guarded ? c.green("delivered to the SDK") : c.yellow("dropped by mcp-cancel (late)");
    }
    rows.push({ at: rec.at, text: `${arrow}  ${describe(rec.message)}  ${note}` });
  }
  for (const { at, e } of r.events) {
    if (e.type === "cancel-sent") rows.push({ at, text: c.dim(`   mcp-cancel: cancel of #${e.requestId} allowed (in flight), reason on the wire: ${JSON.stringify(e.reason)}`) });
    else if (e.type === "cancel-not-sent") rows.push({ at, text: c.yellow(`   mcp-cancel: cancel of #${e.requestId} not sent (${e.why})`) });
    else if (e.type === "late-progress-dropped" || e.type === "late-response-dropped") continue; // shown on the message
    else rows.push({ at, text: c.dim(`   mcp-cancel event: ${JSON.stringify(e)}`) });
  }
  rows.push(...r.timeline);
  rows.sort((a, b) => a.at - b.at);
  for (const row of rows) console.log(`  ${("+" + (row.at / 1000).toFixed(3) + "s").padStart(9)}  ${row.text}`);
}

function counts(r) {
  const late = r.log.filter(
    (rec) =>
      rec.dir === "in" &&
      ((rec.message.method === undefined && rec.message.id === r.callId) || rec.message.method === "notifications/progress"),
  );
  const cancelAt = r.log.find((rec) => rec.dir === "out" && rec.message.method === "notifications/cancelled")?.at ?? Infinity;
  const lateOnWire = late.filter((rec) => rec.at >= cancelAt);
  const lateReachedSdk = lateOnWire.filter((rec) => r.delivered.has(rec.message));
  return { lateOnWire: lateOnWire.length, lateReachedSdk: lateReachedSdk.length };
}

console.log(c.b("mcp-cancel demo"));
console.log(`server: ${serverLabel}`);
console.log(`call:   ${opts.tool} ${JSON.stringify(toolArgs)} with a progress token; abort after ${cancelAfter} ms`);

const bare = await run(false);
printTrace("Run 1 — the MCP TypeScript SDK alone", bare, false);
const guarded = await run(true);
printTrace("Run 2 — the same SDK Client through guardTransport() from mcp-cancel", guarded, true);

const b = counts(bare);
const g = counts(guarded);
const cancels = (r) => r.log.filter((rec) => rec.dir === "out" && rec.message.method === "notifications/cancelled").map((rec) => rec.message.params?.reason);
console.log(`\n${c.b("Summary")}`);
console.log(`  late messages on the wire after the cancel:   SDK alone ${b.lateOnWire}, with mcp-cancel ${g.lateOnWire}`);
console.log(`  late messages that reached the SDK client:    SDK alone ${b.lateOnWire}, with mcp-cancel ${g.lateReachedSdk}`);
console.log(`  errors the SDK surfaced (client.onerror):     SDK alone ${bare.sdkErrors.length}, with mcp-cancel ${guarded.sdkErrors.length}`);
console.log(`  reason sent to the server:                    SDK alone ${JSON.stringify(cancels(bare))}, with mcp-cancel ${JSON.stringify(cancels(guarded))}`);
console.log(`  server still answers ping afterwards:         SDK alone ${bare.pingOk}, with mcp-cancel ${guarded.pingOk}`);
if (guarded.sdkErrors.length > 0 || g.lateReachedSdk > 0) {
  console.error(c.red("\nmcp-cancel let a late message or an error through: this is a bug."));
  process.exit(1);
}
console.log(c.green(`\nWith mcp-cancel: ${g.lateReachedSdk} late messages reached the SDK client, 0 errors.`));

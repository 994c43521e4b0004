#!/usr/bin/env node
// npm run demo: cancel a real MCP server's tool call part-way, with and without mcp-cancel,
// and print the annotated wire trace of each run.
//
//   npm run demo                          abort a long-running tool call part-way
//   npm run demo -- --scenario task       abort a task-augmented call before its taskId is known
//   npm run demo -- --scenario timeout    a timeout with progress resets and a maximum total
//   npm run demo -- --server "python3 my_server.py" --tool slow --args '{"n": 5}' --cancel-after 800

import { parseArgs } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateTaskResultSchema, GetTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { guardTransport } from "mcp-cancel";

import { EVERYTHING } from "./everything.mjs";
import { tap } from "./wiretap.mjs";


const SCENARIOS = {
  // A user abort part-way through a tool call that ignores cancellation.
  cancel: { tool: "trigger-long-running-operation", args: '{"duration": 4, "steps": 8}', cancelAfter: "1200", settle: "4000" },
  // A task-augmented call (2025-11-25) aborted before its CreateTaskResult: the cancel must be
  // tasks/cancel, sent once the taskId is known.
  task: { tool: "simulate-research-query", args: '{"topic": "cancellation"}', cancelAfter: "0", settle: "2500" },
  // Timeouts: 500 ms reset by progress, 1500 ms maximum total; no user abort.
  timeout: { tool: "trigger-long-running-operation", args: '{"duration": 4, "steps": 16}', cancelAfter: "", settle: "3000" },
};
// The MCP TypeScript SDK's own names and meanings: the same options for the guard and the SDK.
const TIMEOUTS = { timeout: 500, resetTimeoutOnProgress: true, maxTotalTimeout: 1500 };

const usage = `usage: npm run demo -- [options]

  --scenario <name>      cancel (default): abort a long-running call part-way
                         task: abort a task-augmented call before its taskId is known
                         timeout: 500 ms timeout reset by progress, 1500 ms maximum total
  --server "<command>"   stdio MCP server to run (default: server-everything, from npm)
  --tool <name>          tool to call (default: the scenario's)
  --args <json>          tool arguments (default: the scenario's)
  --cancel-after <ms>    abort the call after this many ms (default: 1200; task: 0)
  --settle <ms>          after the abort, wait this long at most for late messages (default: 4000)
  -h, --help             this text`;

let opts;
try {
  opts = parseArgs({
    options: {
      scenario: { type: "string", default: "cancel" },
      server: { type: "string" },
      tool: { type: "string" },
      args: { type: "string" },
      "cancel-after": { type: "string" },
      settle: { type: "string" },
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
const scenario = SCENARIOS[opts.scenario];
if (!scenario) fail(`--scenario must be one of: ${Object.keys(SCENARIOS).join(", ")}`);
opts.tool ??= scenario.tool;
opts.args ??= scenario.args;
opts["cancel-after"] ??= scenario.cancelAfter;
opts.settle ??= scenario.settle;
let toolArgs;
try {
  toolArgs = JSON.parse(opts.args);
} catch (error) {
  fail(`--args is not valid JSON: ${error.message}`);
}
const cancelAfter = opts["cancel-after"] === "" ? Infinity : Number(opts["cancel-after"]);
const settle = Number(opts.settle);
if (Number.isNaN(cancelAfter) || cancelAfter < 0) fail("--cancel-after must be a number of milliseconds");
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
      : { command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "pipe" },
  );
  let stderr = "";
  stdio.stderr?.on("data", (chunk) => (stderr = (stderr + chunk).slice(-2000)));
  const wireSide = tap(stdio, log, now);
  const guardTimeouts = opts.scenario === "timeout" ? TIMEOUTS : {};
  const transport = guarded
    ? guardTransport(wireSide, { ...guardTimeouts, onEvent: (e) => events.push({ at: now(), e }) })
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

  if (opts.scenario === "task") await waitForTool(client, opts.tool);
  const controller = new AbortController();
  let progressSeen = 0;
  let call;
  if (opts.scenario === "task") {
    call = client.request({ method: "tools/call", params: { name: opts.tool, arguments: toolArgs } }, CreateTaskResultSchema, {
      task: { ttl: 60000 },
      signal: controller.signal,
    });
  } else {
    // The SDK alone gets the same timeouts as the guard, in its own options.
    const sdkTimeouts = opts.scenario === "timeout" && !guarded ? TIMEOUTS : { timeout: 120000 };
    call = client.callTool({ name: opts.tool, arguments: toolArgs }, undefined, {
      signal: controller.signal,
      onprogress: () => progressSeen++,
      ...sdkTimeouts,
    });
  }
  const abort = () => {
    timeline.push({ at: now(), text: c.yellow("✋ user presses Cancel: AbortController.abort()") });
    controller.abort();
  };
  let timer;
  if (cancelAfter === 0) abort();
  else if (Number.isFinite(cancelAfter)) timer = setTimeout(abort, cancelAfter);
  let outcome;
  let rejectedAt = Infinity;
  try {
    const result = await call;
    outcome = `call completed${cancelAfter === Infinity ? "" : " before the abort"}: ${JSON.stringify(result).slice(0, 100)}`;
    clearTimeout(timer);
  } catch (error) {
    rejectedAt = now();
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
  let taskStatus;
  const taskId = log.find((r) => r.dir === "in" && r.message.result?.task?.taskId)?.message.result.task.taskId;
  if (taskId) {
    try {
      taskStatus = (await client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema)).status;
    } catch (error) {
      taskStatus = `unknown (${error.message})`;
    }
    timeline.push({ at: now(), text: c.b(`   task ${taskId.slice(0, 8)}… status now: ${taskStatus}`) });
  } else if (log.some((r) => r.dir === "out" && r.message.params?.task !== undefined)) {
    // The server may take the cancel that came before its CreateTaskResult and send none:
    // the client never learns the task's id, so it can neither ask about it nor cancel it.
    taskStatus = "never known (no CreateTaskResult came)";
  }
  let pingOk = false;
  try {
    await client.ping({ timeout: 5000 });
    pingOk = true;
  } catch {}
  await client.close();
  return { log, timeline, sdkErrors, delivered, events, callId, pingOk, outcome, progressSeen, taskStatus, rejectedAt };
}

async function waitForTool(client, name) {
  // server-everything registers its task tool after initialization.
  for (let i = 0; i < 50; i++) {
    const { tools } = await client.listTools();
    if (tools.some((t) => t.name === name)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`the server has no tool named ${name}`);
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
    let extra = m.method === "tools/call" ? ` ${m.params?.name} ${JSON.stringify(m.params?.arguments)}` : "";
    if (m.method === "tools/call" && m.params?.task) extra += ` task=${JSON.stringify(m.params.task)}`;
    if (m.params?.taskId) extra += ` taskId=${m.params.taskId.slice(0, 8)}…`;
    return `request #${m.id} ${m.method}${extra}`;
  }
  if (m.method === "notifications/tasks/status") return `notifications/tasks/status ${m.params?.status} (task ${String(m.params?.taskId).slice(0, 8)}…)`;
  if (m.method !== undefined) return `notification ${m.method}`;
  if (m.result?.task?.taskId) return `result #${m.id} CreateTaskResult taskId=${m.result.task.taskId.slice(0, 8)}… status=${m.result.task.status}`;
  if (m.result?.taskId && m.result?.status) return `result #${m.id} task ${m.result.taskId.slice(0, 8)}… status=${m.result.status}`;
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
      note = r.delivered.has(rec.message) || !guarded
        ? c.green("delivered to the SDK")
        : String(rec.message.id).startsWith("mcp-cancel:")
          ? c.yellow("consumed by mcp-cancel (the answer to its own tasks/cancel)")
          : c.yellow("dropped by mcp-cancel (late)");
    }
    rows.push({ at: rec.at, text: `${arrow}  ${describe(rec.message)}  ${note}` });
  }
  for (const { at, e } of r.events) {
    if (e.type === "cancel-sent" && e.via === "tasks-cancel") rows.push({ at, text: c.dim(`   mcp-cancel: #${e.requestId} is a task: tasks/cancel for task ${e.taskId.slice(0, 8)}…`) });
    else if (e.type === "cancel-sent") rows.push({ at, text: c.dim(`   mcp-cancel: cancel of #${e.requestId} allowed (in flight), reason on the wire: ${JSON.stringify(e.reason)}`) });
    else if (e.type === "cancel-deferred") rows.push({ at, text: c.yellow(`   mcp-cancel: #${e.requestId} is task-augmented and its taskId is unknown: SDK's notifications/cancelled dropped, tasks/cancel deferred`) });
    else if (e.type === "timed-out") rows.push({ at, text: c.yellow(`   mcp-cancel: #${e.requestId} timed out (${e.kind})`) });
    else if (e.type === "task-cancel-answered") rows.push({ at, text: c.dim(`   mcp-cancel: tasks/cancel answered: ${e.outcome} (consumed, not passed to the SDK)`) });
    else if (e.type === "revision-negotiated") continue;
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
  // Late: arrived after the caller gave up (its promise rejected on the abort or timeout).
  const lateOnWire = late.filter((rec) => rec.at >= r.rejectedAt);
  const lateReachedSdk = lateOnWire.filter((rec) => r.delivered.has(rec.message));
  return { lateOnWire: lateOnWire.length, lateReachedSdk: lateReachedSdk.length };
}

console.log(c.b("mcp-cancel demo"));
console.log(`server: ${serverLabel}`);
const plan = {
  cancel: `abort after ${cancelAfter} ms`,
  task: `task-augmented; abort ${cancelAfter === 0 ? "at once, before the CreateTaskResult" : `after ${cancelAfter} ms`}`,
  timeout: `timeout ${TIMEOUTS.timeout} ms reset on progress, maxTotalTimeout ${TIMEOUTS.maxTotalTimeout} ms; no abort`,
}[opts.scenario];
console.log(`call:   ${opts.tool} ${JSON.stringify(toolArgs)}; ${plan}`);

const bare = await run(false);
printTrace("Run 1 — the MCP TypeScript SDK alone", bare, false);
const guarded = await run(true);
printTrace("Run 2 — the same SDK Client through guardTransport() from mcp-cancel", guarded, true);

const b = counts(bare);
const g = counts(guarded);
const sent = (r, method) => r.log.filter((rec) => rec.dir === "out" && rec.message.method === method);
const cancels = (r) => sent(r, "notifications/cancelled").map((rec) => rec.message.params?.reason);
console.log(`\n${c.b("Summary")}`);
if (opts.scenario === "task") {
  console.log(`  notifications/cancelled for the task request: SDK alone ${sent(bare, "notifications/cancelled").length}, with mcp-cancel ${sent(guarded, "notifications/cancelled").length} (2025-11-25: MUST NOT)`);
  console.log(`  tasks/cancel sent:                            SDK alone ${sent(bare, "tasks/cancel").length}, with mcp-cancel ${sent(guarded, "tasks/cancel").length}`);
  console.log(`  the task's status afterwards:                 SDK alone ${bare.taskStatus}, with mcp-cancel ${guarded.taskStatus}`);
} else if (opts.scenario === "timeout") {
  const cancelAt = (r) => {
    const call = sent(r, "tools/call")[0]?.at;
    const cancel = sent(r, "notifications/cancelled")[0]?.at;
    return cancel === undefined ? "none" : `+${(cancel - call).toFixed(0)} ms`;
  };
  console.log(`  cancel on the wire (max total +${TIMEOUTS.maxTotalTimeout} ms):      SDK alone ${cancelAt(bare)}, with mcp-cancel ${cancelAt(guarded)}`);
  console.log(`  reason sent to the server:                    SDK alone ${JSON.stringify(cancels(bare))}, with mcp-cancel ${JSON.stringify(cancels(guarded))}`);
}
console.log(`  late messages on the wire after the cancel:   SDK alone ${b.lateOnWire}, with mcp-cancel ${g.lateOnWire}`);
console.log(`  late messages that reached the SDK client:    SDK alone ${b.lateOnWire}, with mcp-cancel ${g.lateReachedSdk}`);
console.log(`  errors the SDK surfaced (client.onerror):     SDK alone ${bare.sdkErrors.length}, with mcp-cancel ${guarded.sdkErrors.length}`);
if (opts.scenario === "cancel") {
  console.log(`  reason sent to the server:                    SDK alone ${JSON.stringify(cancels(bare))}, with mcp-cancel ${JSON.stringify(cancels(guarded))}`);
}
console.log(`  server still answers ping afterwards:         SDK alone ${bare.pingOk}, with mcp-cancel ${guarded.pingOk}`);
const broken =
  guarded.sdkErrors.length > 0 ||
  g.lateReachedSdk > 0 ||
  (opts.scenario === "task" && (sent(guarded, "tasks/cancel").length !== 1 || sent(guarded, "notifications/cancelled").length > 0));
if (broken) {
  console.error(c.red("\nmcp-cancel let a late message or an error through, or sent the wrong cancel: this is a bug."));
  process.exit(1);
}
console.log(c.green(`\nWith mcp-cancel: ${g.lateReachedSdk} late messages reached the SDK client, 0 errors.`));

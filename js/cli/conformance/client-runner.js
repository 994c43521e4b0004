// Runs the client scenarios (scenarios.js, `role: "client"`): the suite is the server. For
// each scenario it spawns the client command with MCP_CONFORMANCE_SCENARIO (the scenario's
// name) and MCP_CONFORMANCE_CONTEXT (the JSON of its `context`) in the environment, and
// speaks MCP server-side over the child's stdin/stdout with the MCP SDK's
// StdioServerTransport. Whether each cancel the client sends is valid — for a request in
// flight, not the handshake, not a duplicate, well formed — is the verdict of mcp-cancel's
// CancellationSession keeping the server's books (its `cancel-received` / `cancel-ignored`
// events); the suite only records what arrived. A client reports the errors its application
// saw (e.g. `client.onerror`) as one line on stderr, `{"conformance":{"errors":["…"]}}`;
// without it, "late answer not surfaced" is not observable.

import { spawn } from "node:child_process";

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

import { CancellationSession } from "../../index.js";
import { describe, describeEvent } from "./connection.js";
import { REVISIONS, revisionsOf } from "./scenarios.js";
import { SetupError } from "./server-runner.js";

/** The revisions the suite's server negotiates (those with `initialize`). */
const HANDSHAKE_REVISIONS = REVISIONS.filter((r) => r !== "2026-07-28");
const NEWEST_HANDSHAKE = HANDSHAKE_REVISIONS.at(-1);
const SERVER_INFO = Object.freeze({ name: "mcp-cancel-conformance", version: "1.0.0" });

/**
 * Runs every client scenario in order, one client process each.
 *
 * @param {{ command: string, args: string[] }} client the client command
 * @param {readonly any[]} scenarios the client scenarios to run
 * @param {{ timeoutMs: number }} options
 * @param {(result: any) => void} [onResult] called with each scenario's result as it ends
 * @returns {Promise<{ results: any[], revision: string | undefined }>}
 * @throws {SetupError} when the client command cannot be started
 */
export async function runClientSuite(client, scenarios, options, onResult = () => {}) {
  const results = [];
  let revision;
  for (const scenario of scenarios) {
    const outcome = await runClientScenario(scenario, client, options);
    revision ??= outcome.revision;
    results.push(outcome);
    onResult(outcome);
  }
  return { results, revision };
}

/**
 * Runs one client scenario: spawns the client, serves it, waits for it to exit (bounded), and
 * evaluates the checks.
 *
 * @param {any} scenario
 * @param {{ command: string, args: string[] }} client
 * @param {{ timeoutMs: number }} options
 * @returns {Promise<any>} the scenario's result (as the server runner's, plus `revision` and `exit`)
 * @throws {SetupError} when the client command cannot be started
 */
export async function runClientScenario(scenario, client, options) {
  const server = new SuiteServer(scenario);
  const child = spawn(client.command, client.args, {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, MCP_CONFORMANCE_SCENARIO: scenario.name, MCP_CONFORMANCE_CONTEXT: JSON.stringify(scenario.context ?? {}) },
  });
  const exited = new Promise((resolve) => {
    child.once("error", (error) => resolve({ error }));
    child.once("exit", (code, signal) => resolve({ code, signal, at: server.now() }));
  });
  child.stdin.on("error", () => {}); // the client may exit before our last write
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-16384)));
  const spawned = await Promise.race([new Promise((resolve) => child.once("spawn", () => resolve(true))), exited.then(() => false)]);
  if (!spawned) {
    const { error } = await exited;
    throw new SetupError(`cannot start the client ${[client.command, ...client.args].join(" ")}: ${describe(error)}`);
  }
  const transport = new StdioServerTransport(child.stdout, child.stdin);
  server.attach(transport);
  await transport.start();
  const limit = (scenario.context?.settleMs ?? 0) + (scenario.server?.initializeDelayMs ?? 0) + options.timeoutMs;
  let timer;
  let exit = await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(() => resolve(undefined), limit)))]);
  clearTimeout(timer);
  if (exit === undefined) {
    child.kill("SIGTERM");
    const killTimer = setTimeout(() => child.kill("SIGKILL"), 2000);
    exit = { ...(await exited), killed: `did not exit within ${limit} ms` };
    clearTimeout(killTimer);
  }
  server.stop();
  await transport.close().catch(() => {});
  return server.result(scenario, exit, stderr);
}

/** The suite's server for one client scenario. */
class SuiteServer {
  constructor(scenario) {
    this.scenario = scenario;
    this.behaviour = scenario.server ?? {};
    this.startedAt = performance.now();
    /** @type {{ at: number, dir: "out" | "in", message: any, dropped?: boolean, by?: string }[]} */
    this.wire = [];
    this.events = [];
    this.notes = [];
    this.timers = new Set();
    this.tasks = new Map();
    /** The tools/call ids that were task-augmented, and each one's task. */
    this.taskCalls = new Map();
    this.revision = undefined;
    this.initializeId = undefined;
    // The server's books: the client's requests in flight and its cancels, judged by the session.
    this.session = new CancellationSession({ onEvent: (event) => this.events.push({ at: this.now(), event }) });
  }

  now() {
    return Math.round(performance.now() - this.startedAt);
  }

  attach(transport) {
    this.transport = transport;
    transport.onmessage = (message) => this.arrived(message);
    transport.onerror = (error) => this.notes.push(`transport error: ${describe(error)}`);
  }

  stop() {
    for (const timer of this.timers) clearTimeout(timer), clearInterval(timer);
    this.timers.clear();
    this.session.close();
  }

  later(ms, fn) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  write(message, by = "suite") {
    this.wire.push({ at: this.now(), dir: "out", message, by });
    this.transport.send(message).catch((error) => this.notes.push(`write failed: ${describe(error)}`));
  }

  /** A response through the session: not sent when the client validly cancelled the request. */
  respond(id, body) {
    const message = { jsonrpc: "2.0", id, ...body };
    const out = this.session.beforeSend(message);
    if (out === undefined) {
      this.notes.push(`the response to ${JSON.stringify(id)} was suppressed by the session (the client cancelled it)`);
      return;
    }
    this.write(out);
  }

  arrived(message) {
    const record = { at: this.now(), dir: "in", message };
    this.wire.push(record);
    record.dropped = this.session.shouldDropIncoming(message);
    if (Array.isArray(message) || typeof message.method !== "string" || message.id === undefined) return;
    const { id, method, params } = message;
    switch (method) {
      case "initialize":
        return this.initialize(id, params);
      case "ping":
        return this.respond(id, { result: {} });
      case "tools/list":
        return this.respond(id, { result: { tools: this.tools() } });
      case "tools/call":
        return this.callTool(id, params);
      case "tasks/get":
        return this.taskRequest(id, params, (task) => task);
      case "tasks/cancel":
        return this.taskRequest(id, params, (task) => {
          if (["completed", "failed", "cancelled"].includes(task.status)) return undefined;
          task.status = "cancelled";
          task.statusMessage = "cancelled by the client";
          task.lastUpdatedAt = new Date().toISOString();
          return task;
        });
      default:
        return this.respond(id, { error: { code: -32601, message: `Method not found: ${method}` } });
    }
  }

  initialize(id, params) {
    this.initializeId = id;
    const offered = params?.protocolVersion;
    const version = HANDSHAKE_REVISIONS.includes(offered) ? offered : NEWEST_HANDSHAKE;
    this.revision = version;
    const capabilities = { tools: {} };
    if (this.behaviour.tasks && version === "2025-11-25") capabilities.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    this.later(this.behaviour.initializeDelayMs ?? 0, () => {
      this.session.setProtocolVersion(version);
      this.respond(id, { result: { protocolVersion: version, capabilities, serverInfo: SERVER_INFO } });
    });
  }

  tools() {
    const slow = { name: "slow", description: "Reports progress every 100 ms for 10 s; stops when cancelled.", inputSchema: { type: "object", properties: {} } };
    if (this.behaviour.tasks) slow.execution = { taskSupport: "optional" };
    const fast = { name: "fast", description: "Answers at once.", inputSchema: { type: "object", properties: {} } };
    return [slow, fast];
  }

  callTool(id, params) {
    const name = params?.name;
    if (name === "fast") return this.respond(id, { result: { content: [{ type: "text", text: "fast" }] } });
    if (name !== "slow") return this.respond(id, { error: { code: -32602, message: `Unknown tool: ${name}` } });
    if (params?.task !== undefined && this.behaviour.tasks) return this.createTask(id, params);
    const token = params?._meta?.progressToken;
    const signal = this.session.inboundSignal(id);
    let step = 0;
    const interval = setInterval(() => {
      step += 1;
      if (token !== undefined) this.write({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: step, total: 100 } });
      if (step === 100) {
        clearInterval(interval);
        this.respond(id, { result: { content: [{ type: "text", text: "slow: done" }] } });
      }
    }, 100);
    this.timers.add(interval);
    signal?.addEventListener("abort", () => {
      clearInterval(interval);
      const late = this.behaviour.lateAnswer;
      if (!late) return;
      // The race the spec allows: an answer already on its way when the cancel arrived.
      this.later(late.afterMs, () => {
        for (let i = 0; i < (late.progress ?? 0) && token !== undefined; i++) {
          this.write({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: step + i + 1, total: 100 } }, "probe");
        }
        if (late.result) this.write({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "slow: late" }] } }, "probe");
      });
    });
  }

  createTask(id, params) {
    const now = new Date().toISOString();
    const task = { taskId: `conformance-task-${this.tasks.size + 1}`, status: "working", createdAt: now, lastUpdatedAt: now, ttl: params.task?.ttl ?? 60000, pollInterval: 1000 };
    this.tasks.set(task.taskId, task);
    this.taskCalls.set(JSON.stringify(id), task);
    this.respond(id, { result: { task } });
  }

  taskRequest(id, params, act) {
    const task = this.tasks.get(params?.taskId);
    if (!task) return this.respond(id, { error: { code: -32602, message: `Unknown task: ${params?.taskId}` } });
    const answer = act(task);
    if (answer === undefined) return this.respond(id, { error: { code: -32602, message: `Task ${task.taskId} is already ${task.status}` } });
    this.respond(id, { result: { ...answer } });
  }

  /** The scenario's result: its checks evaluated against what was recorded. */
  result(scenario, exit, stderr) {
    const base = { name: scenario.name, role: scenario.role, description: scenario.description, specReferences: scenario.specReferences, revision: this.revision };
    const evidence = {
      wire: this.wire,
      events: this.events,
      notes: this.notes,
      stderr: stderr.trim() ? stderr.trim().split("\n").slice(-8) : undefined,
      exit: exit.killed ? `killed: ${exit.killed}` : exit.signal ? `exited on ${exit.signal}` : `exited with code ${exit.code} at +${exit.at} ms`,
    };
    const revisions = revisionsOf(scenario.source);
    if (this.revision !== undefined && !revisions.includes(this.revision)) {
      const why = `applies to ${revisions.join(", ")}; the client negotiated ${this.revision}`;
      return { ...base, status: "n/a", summary: why, checks: scenario.checks.map((c) => ({ ...c, status: "n/a", detail: why })), ...evidence };
    }
    const ctx = { server: this, stderr };
    const connected = this.initializeId !== undefined;
    const checks = connected
      ? scenario.checks.map((check) => ({ ...check, ...evaluate(check, ctx) }))
      : scenario.checks.map((check) => ({ ...check, status: "n/a", detail: "the client never connected" }));
    if (!connected) checks.push({ id: "client-connected", name: "ClientConnected", description: "The client sent initialize.", level: "MUST", status: "fail", detail: `the client never sent initialize (${evidence.exit})` });
    const status = checks.some((c) => c.status === "fail") ? "fail" : checks.some((c) => c.status === "pass") ? "pass" : "n/a";
    const shown = checks.filter((c) => c.status === status);
    return { ...base, status, summary: (shown.length ? shown : checks).map((c) => c.detail).join("; "), checks, ...evidence };
  }
}

const inboundEvents = (ctx, type) => ctx.server.events.filter((e) => e.event.type === type);

/** The checks' verbs (`expect.op`) of the client scenarios: each returns `{ status, detail }`. */
const CHECKS = {
  cancelReceived({ method, count }, ctx) {
    const received = inboundEvents(ctx, "cancel-received").filter((e) => e.event.method === method);
    if (received.length === 0) return fail(`no cancel for a ${method} in flight reached the server`);
    const first = received[0];
    const reason = first.event.reason !== undefined ? ` (reason ${JSON.stringify(first.event.reason)})` : " (no reason)";
    const text = `${received.length} cancel(s) for ${method} ${JSON.stringify(first.event.requestId)} at +${first.at} ms${reason}`;
    return received.length === count ? pass(text) : fail(`${text}; expected ${count}`);
  },

  noInvalidCancels(_, ctx) {
    const ignored = inboundEvents(ctx, "cancel-ignored");
    const received = inboundEvents(ctx, "cancel-received").length;
    if (ignored.length === 0) return pass(`no cancel the session ignores (${received} valid cancel(s) received)`);
    const text = ignored.map((e) => `${describeCancel(ctx, e.event.requestId)} at +${e.at} ms: ${describeEvent(e.event)}`).join("; ");
    return fail(text);
  },

  clientErrors(_, ctx) {
    const late = ctx.server.wire.filter((r) => r.by === "probe").length;
    if (late === 0) return na("no late answer was sent (no valid cancel arrived)");
    const report = clientReport(ctx.stderr);
    if (report === undefined) return na('not observable: the client reports no errors (print {"conformance":{"errors":[…]}} on stderr)');
    if (report.length === 0) return pass(`the client reported no error after ${late} late message(s)`);
    return fail(`the client's error handler got ${report.length}: ${report.map((e) => JSON.stringify(e)).join(", ").slice(0, 300)}`);
  },

  tasksCancelReceived({ count }, ctx) {
    const tasks = [...ctx.server.taskCalls.values()];
    if (tasks.length === 0) return fail("the client made no task-augmented tools/call");
    const ids = new Set(tasks.map((t) => t.taskId));
    const cancels = ctx.server.wire.filter((r) => r.dir === "in" && r.message.method === "tasks/cancel" && ids.has(r.message.params?.taskId));
    if (cancels.length === 0) return fail(`no tasks/cancel for ${[...ids].join(", ")}`);
    const text = `${cancels.length} tasks/cancel { taskId: ${JSON.stringify(cancels[0].message.params.taskId)} } at +${cancels[0].at} ms`;
    return cancels.length === count ? pass(text) : fail(`${text}; expected ${count}`);
  },

  noNotificationForTask(_, ctx) {
    const taskCallIds = new Set(ctx.server.taskCalls.keys());
    if (taskCallIds.size === 0) return fail("the client made no task-augmented tools/call");
    const notes = ctx.server.wire.filter(
      (r) => r.dir === "in" && r.message.method === "notifications/cancelled" && taskCallIds.has(JSON.stringify(r.message.params?.requestId)),
    );
    if (notes.length > 0) {
      const verdict = ctx.server.events.find((e) => e.at >= notes[0].at && ["cancel-ignored", "cancel-received"].includes(e.event.type));
      return fail(`notifications/cancelled for the task's tools/call ${JSON.stringify(notes[0].message.params.requestId)} at +${notes[0].at} ms${verdict ? ` (the session: ${describeEvent(verdict.event)})` : ""}`);
    }
    return CHECKS.noInvalidCancels({}, ctx);
  },
};

function evaluate(check, ctx) {
  try {
    return CHECKS[check.expect.op](check.expect, ctx);
  } catch (error) {
    return fail(`could not evaluate: ${describe(error)}`);
  }
}

/** Which request a cancelled id was, in words ("cancel for 0 (initialize)"). */
function describeCancel(ctx, requestId) {
  if (requestId === undefined) return "a malformed cancel";
  const request = ctx.server.wire.find((r) => r.dir === "in" && r.message.id === requestId && typeof r.message.method === "string");
  return `cancel for ${JSON.stringify(requestId)}${request ? ` (${request.message.method})` : ""}`;
}

/** The errors the client reported on stderr (`{"conformance":{"errors":[…]}}`), or `undefined` when it reported none. */
function clientReport(stderr) {
  let errors;
  for (const line of stderr.split("\n")) {
    const text = line.trim();
    if (!text.startsWith("{")) continue;
    try {
      const parsed = JSON.parse(text);
      if (Array.isArray(parsed?.conformance?.errors)) errors = [...(errors ?? []), ...parsed.conformance.errors];
    } catch {
      // not a report line
    }
  }
  return errors;
}

const pass = (detail) => ({ status: "pass", detail });
const fail = (detail) => ({ status: "fail", detail });
const na = (detail) => ({ status: "n/a", detail });

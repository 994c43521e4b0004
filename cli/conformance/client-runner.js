// Runs the client scenarios (scenarios.js, `role: "client"`): the suite is the server. For
// each scenario it spawns the client command with MCP_CONFORMANCE_SCENARIO (the scenario's
// name) and MCP_CONFORMANCE_CONTEXT (the JSON of its `context`) in the environment, and
// speaks MCP server-side over the child's stdin/stdout with the MCP SDK's
// StdioServerTransport: as an `initialize`-era server (2024-11-05 .. 2025-11-25; by default
// the revision the client offers) or, with `protocolVersion: "2026-07-28"`, as a 2026-07-28
// server (`server/discover`, every request carrying the `_meta` version envelope, results with
// `resultType`). Whether each cancel the client sends is valid — for a request in flight, not
// the handshake, not a task-augmented request, not a duplicate, well formed — is the verdict
// of mcp-cancel's CancellationSession keeping the server's books (`role: "server"`; its
// `cancel-received` / `cancel-ignored` events); the suite only records what arrived. A client
// reports the errors its application saw (e.g. `client.onerror`) as one line on stderr,
// `{"conformance":{"errors":["…"]}}`; without it, "late answer not surfaced" is not observable.
// Where a scenario has the server send the client a request (`elicit`), the session tracks
// it as ours and sends its cancel, so a late answer is recorded as dropped by the session.

import { spawn } from "node:child_process";

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

import { CancellationSession } from "mcp-cancel";
import { describe, describeEvent, SetupError } from "./connection.js";
import { REVISIONS, revisionsOf } from "./scenarios.js";

/** The revision without `initialize`: `server/discover`, the version in each request's `_meta`. */
const DISCOVER_ERA = "2026-07-28";
/** The revisions the suite's server negotiates with `initialize`. */
const HANDSHAKE_REVISIONS = REVISIONS.filter((r) => r !== DISCOVER_ERA);
const NEWEST_HANDSHAKE = HANDSHAKE_REVISIONS.at(-1);
const SERVER_INFO = Object.freeze({ name: "mcp-cancel-conformance", version: "1.0.0" });
/** The `_meta` keys of the 2026-07-28 envelope. */
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";
/** 2026-07-28: the error for a request whose version the server does not support. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** The id of the suite's own elicitation/create (a string, apart from every id the client numbers). */
const ELICITATION_ID = "conformance-elicitation-1";

/**
 * What the suite's server speaks, in words (for the report's header).
 *
 * @param {string | undefined} protocolVersion `--protocol-version`, if given
 * @returns {string}
 */
export function describeServerRevision(protocolVersion) {
  if (protocolVersion === DISCOVER_ERA) return `a ${DISCOVER_ERA} server (server/discover, the _meta version envelope; no initialize)`;
  if (protocolVersion !== undefined) return `a ${protocolVersion} server (initialize)`;
  return `an initialize-era server (${HANDSHAKE_REVISIONS[0]} to ${NEWEST_HANDSHAKE}, the revision the client offers)`;
}

/**
 * Why a scenario does not apply to `revision`, or `undefined` when it does.
 *
 * @param {any} scenario
 * @param {string} revision
 * @returns {string | undefined}
 */
function outside(scenario, revision) {
  const except = scenario.except?.find((e) => e.revision === revision);
  if (except !== undefined) return except.why;
  const revisions = revisionsOf(scenario.source);
  if (revisions.includes(revision)) return undefined;
  return `applies to ${revisions.length === 1 ? revisions[0] : `${revisions[0]} to ${revisions.at(-1)}`}; this run is ${revision}`;
}

/**
 * Runs every client scenario in order, one client process each.
 *
 * @param {{ command: string, args: string[] }} client the client command
 * @param {readonly any[]} scenarios the client scenarios to run
 * @param {{ timeoutMs: number, protocolVersion?: string }} options `protocolVersion`: the one
 *   revision the suite's server speaks (default: any of the initialize era, as the client offers)
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
 * @param {{ timeoutMs: number, protocolVersion?: string }} options
 * @returns {Promise<any>} the scenario's result (as the server runner's, plus `revision` and `exit`)
 * @throws {SetupError} when the client command cannot be started
 */
export async function runClientScenario(scenario, client, options) {
  const startedAt = performance.now();
  const outcome = await runClientScenarioOnce(scenario, client, options);
  return { ...outcome, durationMs: Math.round(performance.now() - startedAt) };
}

async function runClientScenarioOnce(scenario, client, options) {
  const server = new SuiteServer(scenario, options.protocolVersion);
  // A revision fixed by --protocol-version: a scenario outside it is n/a without a client.
  const why = server.revision !== undefined ? outside(scenario, server.revision) : undefined;
  if (why !== undefined) {
    server.stop();
    return server.notApplicable(scenario, why, { exit: "not started: the scenario does not apply" });
  }
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
  /**
   * @param {any} scenario
   * @param {string} [protocolVersion] the one revision to speak; default: the initialize era, as the client offers
   */
  constructor(scenario, protocolVersion) {
    this.scenario = scenario;
    this.pinned = protocolVersion;
    /** 2026-07-28: no initialize; the client connects with its first request in that revision. */
    this.discoverEra = protocolVersion === DISCOVER_ERA;
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
    /** The revision in use: fixed in 2026-07-28, else what `initialize` negotiated. */
    this.revision = this.discoverEra ? DISCOVER_ERA : undefined;
    /** Set when the client connected: its `initialize`, or (2026-07-28) its first request of that revision. */
    this.connected = false;
    // The server's books: the client's requests in flight and its cancels, judged by the session.
    this.session = new CancellationSession({
      role: "server",
      ...(this.discoverEra ? { protocolVersion: DISCOVER_ERA } : {}),
      // The cancel of the suite's own request (an elicitation) goes on the wire as the session makes it.
      send: (message) => this.write(message, "session"),
      onEvent: (event) => this.events.push({ at: this.now(), event }),
    });
    /** The client's capabilities from initialize. */
    this.clientCapabilities = undefined;
    /** The suite's elicitation: when it was sent and cancelled, or why it was not sent. */
    this.elicitation = undefined;
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

  /**
   * A result body in the revision's shape: in 2026-07-28 with `resultType` and the server's
   * info in `_meta`, and for a cacheable result (`server/discover`, `tools/list`) the cache hint.
   */
  resultOf(result, { cacheable = false } = {}) {
    if (!this.discoverEra) return result;
    return { ...result, resultType: "complete", ...(cacheable ? { ttlMs: 0, cacheScope: "private" } : {}), _meta: { [SERVER_INFO_KEY]: SERVER_INFO } };
  }

  /** A response through the session: not sent when the client validly cancelled the request. */
  respond(id, body) {
    if (body.result !== undefined) body = { result: this.resultOf(body.result, { cacheable: body.cacheable }) };
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
    if (this.discoverEra && !this.modernRequest(id, method, params)) return;
    switch (method) {
      case "initialize":
        if (this.discoverEra) break;
        return this.initialize(id, params);
      case "server/discover":
        if (!this.discoverEra) break;
        return this.respond(id, { result: { supportedVersions: [DISCOVER_ERA], capabilities: { tools: {} } }, cacheable: true });
      case "ping":
        if (this.discoverEra) break; // 2026-07-28 has no ping
        return this.respond(id, { result: {} });
      case "tools/list":
        return this.respond(id, { result: { tools: this.tools() }, cacheable: true });
      case "tools/call":
        return this.callTool(id, params);
    }
    if (!this.discoverEra) return this.legacyRequest(id, method, params);
    return this.respond(id, { error: { code: -32601, message: `Method not found: ${method}` } });
  }

  /**
   * 2026-07-28: a request must carry the version in `_meta`; one that does not (an
   * `initialize`, a request of another revision) is answered with the unsupported-version
   * error, as a 2026-07-28-only server does. The first one that does connects the client.
   *
   * @returns {boolean} whether the request is of 2026-07-28 and should be served
   */
  modernRequest(id, method, params) {
    const requested = params?._meta?.[VERSION_KEY] ?? (method === "initialize" ? params?.protocolVersion : undefined);
    if (requested === DISCOVER_ERA) {
      this.connected = true;
      return true;
    }
    const text = requested === undefined ? `${method} without the ${VERSION_KEY} _meta key` : `${method} for ${JSON.stringify(requested)}`;
    this.notes.push(`${text}: answered ${UNSUPPORTED_PROTOCOL_VERSION} (the suite's server speaks only ${DISCOVER_ERA})`);
    this.respond(id, { error: { code: UNSUPPORTED_PROTOCOL_VERSION, message: "Unsupported protocol version", data: { supported: [DISCOVER_ERA], requested: requested ?? null } } });
    return false;
  }

  /** The initialize era's task methods (2025-11-25), and Method not found for the rest. */
  legacyRequest(id, method, params) {
    switch (method) {
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
    this.connected = true;
    this.clientCapabilities = params?.capabilities ?? {};
    const offered = params?.protocolVersion;
    // The legacy negotiation: the offered revision when the server speaks it, else its own.
    const version = this.pinned ?? (HANDSHAKE_REVISIONS.includes(offered) ? offered : NEWEST_HANDSHAKE);
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
    const ask = { name: "ask", description: "Asks the user (elicitation/create), cancels the question 200 ms later, answers 1 s later.", inputSchema: { type: "object", properties: {} } };
    return this.behaviour.elicit ? [slow, fast, ask] : [slow, fast];
  }

  callTool(id, params) {
    const name = params?.name;
    if (name === "fast") return this.respond(id, { result: { content: [{ type: "text", text: "fast" }] } });
    if (name === "ask" && this.behaviour.elicit) return this.elicit(id);
    if (name !== "slow") return this.respond(id, { error: { code: -32602, message: `Unknown tool: ${name}` } });
    if (params?.task !== undefined && this.behaviour.tasks && !this.discoverEra) return this.createTask(id, params);
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
        if (late.result) this.write({ jsonrpc: "2.0", id, result: this.resultOf({ content: [{ type: "text", text: "slow: late" }] }) }, "probe");
      });
    });
  }

  /**
   * The tool `ask`: sends the client an elicitation/create (tracked by the session, as the
   * suite's own request), cancels it through the session after `cancelAfterMs`, and answers
   * the call after `resultAfterMs`, past the time the client's user would have answered.
   */
  elicit(id) {
    const { cancelAfterMs, resultAfterMs } = this.behaviour.elicit;
    const finish = (text) => this.later(resultAfterMs, () => this.respond(id, { result: { content: [{ type: "text", text }] } }));
    if (this.clientCapabilities?.elicitation === undefined) {
      this.elicitation = { skipped: "the client declares no elicitation capability" };
      return finish("ask: the client cannot elicit");
    }
    const params = { message: "conformance: a question the server withdraws before you answer", requestedSchema: { type: "object", properties: { answer: { type: "string" } } } };
    const request = { jsonrpc: "2.0", id: ELICITATION_ID, method: "elicitation/create", params };
    this.session.track(ELICITATION_ID, "elicitation/create", { params });
    this.elicitation = { sentAt: this.now() };
    this.write(request);
    this.later(cancelAfterMs, () => {
      this.elicitation.cancelAt = this.now();
      this.session.cancel(ELICITATION_ID, "conformance: the server no longer needs the answer");
    });
    finish("ask: withdrawn");
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
    const evidence = {
      stderr: stderr.trim() ? stderr.trim().split("\n").slice(-8) : undefined,
      exit: exit.killed ? `killed: ${exit.killed}` : exit.signal ? `exited on ${exit.signal}` : `exited with code ${exit.code} at +${exit.at} ms`,
    };
    this.exitAt = exit.at;
    const why = this.revision !== undefined ? outside(scenario, this.revision) : undefined;
    if (why !== undefined) return this.notApplicable(scenario, why, evidence);
    const ctx = { server: this, stderr };
    const timestamp = new Date().toISOString();
    const checks = this.connected
      ? scenario.checks.map((check) => ({ ...check, ...evaluate(check, ctx), timestamp }))
      : scenario.checks.map((check) => ({ ...check, status: "n/a", detail: "the client never connected", timestamp }));
    if (!this.connected) {
      checks.push({ id: "client-connected", name: "ClientConnected", description: "The client connected (initialize; in 2026-07-28 a request of that revision).", level: "MUST", status: "fail", detail: `${this.neverConnected()} (${evidence.exit})`, timestamp });
    }
    const status = checks.some((c) => c.status === "fail") ? "fail" : checks.some((c) => c.status === "pass") ? "pass" : "n/a";
    const shown = checks.filter((c) => c.status === status);
    return { ...this.about(scenario), status, summary: (shown.length ? shown : checks).map((c) => c.detail).join("; "), checks, ...this.record(), ...evidence };
  }

  /** The result of a scenario that does not apply to this run's revision. */
  notApplicable(scenario, why, evidence) {
    const timestamp = new Date().toISOString();
    return { ...this.about(scenario), status: "n/a", summary: why, checks: scenario.checks.map((c) => ({ ...c, status: "n/a", detail: why, timestamp })), ...this.record(), ...evidence };
  }

  about(scenario) {
    return { name: scenario.name, role: scenario.role, description: scenario.description, specReferences: scenario.specReferences, revision: this.revision };
  }

  record() {
    return { wire: this.wire, events: this.events, notes: this.notes };
  }

  /** Why the client never connected, in words: what it sent instead, if anything. */
  neverConnected() {
    const first = this.wire.find((r) => r.dir === "in" && typeof r.message?.method === "string" && r.message.id !== undefined);
    if (this.discoverEra) {
      if (first === undefined) return `the client sent no request`;
      return `the client sent no ${DISCOVER_ERA} request (its first: ${first.message.method}, without that version in _meta${first.message.method === "initialize" ? ": it speaks the initialize era, run without --protocol-version" : ""})`;
    }
    if (first?.message.method === "server/discover") return `the client never sent initialize (it sent server/discover, which an initialize-era server does not know: run with --protocol-version ${DISCOVER_ERA} for a ${DISCOVER_ERA} server)`;
    return "the client never sent initialize";
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
    const text = `${received.length} cancel(s) for ${method} ${JSON.stringify(first.event.requestId)} at +${first.at} ms${reason}${envelopeNote(ctx, first.event.requestId)}`;
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
    return fail(`the client's error handler got ${report.length}: ${report.map((e) => JSON.stringify(String(e))).join(", ")}`);
  },

  noAnswerAfterCancel({ method }, ctx) {
    const e = ctx.server.elicitation;
    if (e === undefined) return fail(`the client never called the tool ${ctx.server.scenario.context?.tool}, so no ${method} was sent`);
    if (e.skipped) return na(`not observable: ${e.skipped}`);
    const answers = ctx.server.wire.filter((r) => r.dir === "in" && r.message.method === undefined && r.message.id === ELICITATION_ID);
    const cancelled = ctx.server.wire.find((r) => r.dir === "out" && r.message.method === "notifications/cancelled" && r.message.params?.requestId === ELICITATION_ID);
    if (e.cancelAt === undefined) return na(`the ${method} was not cancelled: the client exited first`);
    const before = answers.filter((r) => r.at <= e.cancelAt);
    if (before.length > 0) return na(`the client answered the ${method} at +${before[0].at - e.sentAt} ms, before the cancel: nothing to judge`);
    if (cancelled === undefined) return fail(`the suite's session sent no cancel for the ${method}`);
    const after = answers.filter((r) => r.at > cancelled.at);
    const watched = (ctx.server.exitAt ?? ctx.server.now()) - cancelled.at;
    if (after.length === 0) return pass(`no answer to the ${method} in ${watched} ms after its cancel (the cancel went out ${cancelled.at - e.sentAt} ms after it)`);
    const m = after[0].message;
    return fail(`the client answered the cancelled ${method} ${after[0].at - cancelled.at} ms after the cancel: ${m.error ? `error ${m.error.code} ${JSON.stringify(m.error.message)}` : `result ${JSON.stringify(m.result)}`}${after[0].dropped ? " (dropped by the session)" : ""}`);
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
    // The session ignores every notifications/cancelled for a task's tools/call: `task-augmented`
    // while the call is unanswered, `not-in-flight` once its CreateTaskResult went out.
    const forTask = inboundEvents(ctx, "cancel-ignored").find((e) => taskCallIds.has(JSON.stringify(e.event.requestId)));
    if (forTask !== undefined) return fail(`notifications/cancelled for the task's tools/call ${JSON.stringify(forTask.event.requestId)} at +${forTask.at} ms (the session: ${describeEvent(forTask.event)})`);
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

/**
 * 2026-07-28: whether the client's notifications/cancelled for `requestId` carried the version
 * in `_meta` (the spec requires the envelope on requests only; the SDK 2.x client sends it on
 * notifications too). Empty in the initialize era.
 */
function envelopeNote(ctx, requestId) {
  if (!ctx.server.discoverEra) return "";
  const note = ctx.server.wire.find((r) => r.dir === "in" && r.message.method === "notifications/cancelled" && r.message.params?.requestId === requestId);
  if (note === undefined) return "";
  const version = note.message.params?._meta?.[VERSION_KEY];
  return version === undefined ? ", no _meta version envelope" : `, _meta version ${JSON.stringify(version)}`;
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

// Runs the server scenarios (scenarios.js, `role: "server"`): a preflight that connects once,
// lists the tools and times one uncancelled run of the slow tool (the baseline every window is
// sized from) and, with `--nested-tool`, one run of the nested tool answered at once (which
// request it sends the client, how soon), then each applicable scenario on a fresh connection (a fresh server process
// over stdio, a fresh session over HTTP): its steps in order, then its checks against what
// was recorded. Every scenario is bounded in time and its connection always closed.

import { CancellationSession } from "mcp-cancel";
import { clientAnswer, Connection, describe, describeEvent, NESTED_METHODS } from "./connection.js";
import { NESTED_CAPABILITIES, revisionsOf } from "./scenarios.js";

/** Slow tools the suite knows, with arguments that make them run ~2 s with progress. */
export const KNOWN_SLOW_TOOLS = Object.freeze([{ name: "trigger-long-running-operation", arguments: { duration: 2, steps: 8 }, server: "server-everything" }]);
/** Task tools the suite knows, with arguments. */
export const KNOWN_TASK_TOOLS = Object.freeze([{ name: "simulate-research-query", arguments: { topic: "cancellation" }, server: "server-everything" }]);

/** The shortest baseline run the suite can cancel in flight and still tell a late answer from an early one. */
const MIN_TOOL_MS = 300;
const PING_TIMEOUT_MS = 2000;
/** Quiet time after the handshake, so that requests a server sends at connect (roots/list) are answered before a nested tool is called. */
const SETTLE_MS = 200;

/** A problem with the command line or the target (exit code 2), not a conformance failure. */
export class SetupError extends Error {
  name = "SetupError";
}

/**
 * Connects once to learn what the scenarios need: the negotiated revision, the tools, the slow
 * tool and one uncancelled run of it (its duration and progress), the task tool.
 *
 * @param {any} target the `Connection` target
 * @param {{ protocolVersion: string, timeoutMs: number, tool?: string, arguments?: any, taskTool?: string, taskArguments?: any, nestedTool?: string, nestedArguments?: any }} options
 * @returns {Promise<any>} the preflight record (see the JSON report's `preflight`)
 * @throws {SetupError} when the server cannot be started or reached, does not handshake, or a named tool is missing or fails
 */
export async function preflight(target, options) {
  const conn = new Connection(target, { protocolVersion: options.protocolVersion });
  // A server lists (or serves) a tool that elicits or samples only to a client that declares it can.
  if (options.nestedTool !== undefined) conn.capabilities = NESTED_CAPABILITIES;
  try {
    try {
      await conn.start();
    } catch (error) {
      throw new SetupError(`cannot start ${describeTarget(target)}: ${describe(error)}`);
    }
    try {
      await conn.handshake(options.timeoutMs);
    } catch (error) {
      const stderr = conn.stderr.trim() ? `\n  its stderr ends with: ${conn.stderr.trim().split("\n").slice(-3).join("\n  ")}` : "";
      throw new SetupError(`cannot connect to ${describeTarget(target)}: ${describe(error)}${stderr}`);
    }
    const pre = {
      handshakeMs: conn.now(),
      protocolVersion: conn.protocolVersion,
      revision: conn.session.revision,
      capabilities: conn.serverCapabilities,
      tools: [],
      slow: undefined,
      slowWhy: undefined,
      baseline: undefined,
      task: undefined,
      taskWhy: undefined,
      nested: undefined,
      nestedWhy: undefined,
    };
    let tools = [];
    if (pre.capabilities?.tools) {
      const listed = await conn.request("tools/list", {}, { timeoutMs: options.timeoutMs }).response;
      tools = Array.isArray(listed?.result?.tools) ? listed.result.tools : [];
    }
    pre.tools = tools.map((t) => t.name);
    chooseSlowTool(pre, tools, options);
    if (pre.slow) await runBaseline(conn, pre, options);
    chooseTaskTool(pre, tools, options);
    await chooseNestedTool(conn, pre, tools, options);
    return pre;
  } finally {
    await conn.close();
  }
}

function chooseSlowTool(pre, tools, options) {
  const listed = (name) => tools.some((t) => t.name === name);
  if (options.tool !== undefined) {
    if (!listed(options.tool)) {
      throw new SetupError(`--tool ${options.tool}: the server lists no such tool (it lists: ${pre.tools.join(", ") || "no tools"})`);
    }
    pre.slow = { name: options.tool, arguments: options.arguments ?? {}, source: "--tool" };
    return;
  }
  const known = KNOWN_SLOW_TOOLS.find((k) => listed(k.name));
  if (known) {
    pre.slow = { name: known.name, arguments: known.arguments, source: `known (${known.server})` };
    return;
  }
  pre.slowWhy = `no slow tool to cancel: pass --tool <name> --arguments '<json>' (the server lists: ${pre.tools.join(", ") || "no tools"})`;
}

async function runBaseline(conn, pre, options) {
  const progress = [];
  const token = "conformance-baseline";
  const stop = conn.onMessage((r) => {
    if (r.message.method === "notifications/progress" && r.message.params?.progressToken === token) progress.push(r.at);
  });
  const sent = conn.request("tools/call", { name: pre.slow.name, arguments: pre.slow.arguments }, { progressToken: token, timeoutMs: options.timeoutMs });
  const response = await sent.response;
  stop();
  const explicit = pre.slow.source === "--tool";
  const failed = (why) => {
    if (explicit) throw new SetupError(`--tool ${pre.slow.name} --arguments '${JSON.stringify(pre.slow.arguments)}': ${why}`);
    pre.slowWhy = `the slow tool ${pre.slow.name} ${why}`;
    pre.slow = undefined;
  };
  if (response === undefined) return failed(`did not finish within ${options.timeoutMs} ms (its baseline run); pass arguments that make it run 0.5–5 s`);
  if (response.error) return failed(`failed: error ${response.error.code} ${response.error.message}`);
  if (response.result?.isError) return failed(`failed: ${JSON.stringify(response.result.content ?? response.result).slice(0, 200)}`);
  const durationMs = conn.responseTo(sent.id).at - sent.sentAt;
  pre.baseline = { durationMs, progress: progress.length, firstProgressMs: progress.length ? progress[0] - sent.sentAt : undefined };
  if (durationMs < MIN_TOOL_MS) return failed(`finishes in ${durationMs} ms, too fast to cancel in flight; pass arguments that make it run 0.5–5 s`);
}

/**
 * The nested tool (`--nested-tool`) and one run of it: the first request it sends the client
 * (elicitation, sampling, roots/list) is answered at once (`clientAnswer()`), and its method
 * and timing are what the scenario waits for.
 */
async function chooseNestedTool(conn, pre, tools, options) {
  if (options.nestedTool === undefined) {
    pre.nestedWhy = "no tool that sends the client a request: pass --nested-tool <name> --nested-arguments '<json>' (a tool whose handler elicits, samples or lists roots and waits for the answer)";
    return;
  }
  const flags = `--nested-tool ${options.nestedTool}${options.nestedArguments && Object.keys(options.nestedArguments).length ? ` --nested-arguments '${JSON.stringify(options.nestedArguments)}'` : ""}`;
  if (!tools.some((t) => t.name === options.nestedTool)) {
    throw new SetupError(`${flags}: the server lists no such tool to a client that declares elicitation, sampling and roots (it lists: ${pre.tools.join(", ") || "no tools"})`);
  }
  pre.nested = { name: options.nestedTool, arguments: options.nestedArguments ?? {}, source: "--nested-tool" };
  await sleep(SETTLE_MS);
  let nested;
  const sent = conn.request("tools/call", { name: pre.nested.name, arguments: pre.nested.arguments }, { timeoutMs: 2 * options.timeoutMs });
  conn.hold = (r) => {
    if (nested !== undefined || !NESTED_METHODS.includes(r.message.method)) return false;
    nested = r;
    return true;
  };
  await until(() => nested !== undefined || conn.responseTo(sent.id) !== undefined || conn.closedAt !== undefined, options.timeoutMs);
  conn.hold = () => false;
  if (nested === undefined) {
    const answered = conn.responseTo(sent.id)?.message;
    const why = answered
      ? `answered without sending the client a request (${answered.error ? `error ${answered.error.code} ${answered.error.message}` : JSON.stringify(answered.result).slice(0, 200)})`
      : conn.closedAt !== undefined
        ? "the server exited before sending the client a request"
        : `sent the client no request (${NESTED_METHODS.join(", ")}) within ${options.timeoutMs} ms`;
    throw new SetupError(`${flags}: ${why}`);
  }
  const askedMs = nested.at - sent.sentAt;
  await conn.answer(nested.message.id, clientAnswer(nested.message.method)).catch(() => {});
  const response = await sent.response;
  const record = conn.responseTo(sent.id);
  pre.nested.method = nested.message.method;
  pre.nested.baseline = {
    askedMs,
    answeredWith: JSON.stringify(clientAnswer(nested.message.method).result),
    then: response === undefined ? `no response within ${2 * options.timeoutMs} ms` : response.error ? `error ${response.error.code} ${response.error.message}` : `a result at +${record.at - sent.sentAt} ms`,
  };
}

function chooseTaskTool(pre, tools, options) {
  if (!pre.capabilities?.tasks?.requests?.tools?.call) {
    pre.taskWhy = "the server does not declare task-augmented tools/call (capabilities.tasks.requests.tools.call)";
    return;
  }
  if (options.taskTool !== undefined) {
    if (!tools.some((t) => t.name === options.taskTool)) throw new SetupError(`--task-tool ${options.taskTool}: the server lists no such tool`);
    pre.task = { name: options.taskTool, arguments: options.taskArguments ?? {}, source: "--task-tool" };
    return;
  }
  const taskTools = tools.filter((t) => ["optional", "required"].includes(t.execution?.taskSupport));
  const known = KNOWN_TASK_TOOLS.find((k) => taskTools.some((t) => t.name === k.name));
  if (known) {
    pre.task = { name: known.name, arguments: known.arguments, source: `known (${known.server})` };
    return;
  }
  const noArgs = taskTools.find((t) => !(t.inputSchema?.required?.length > 0));
  if (noArgs) {
    pre.task = { name: noArgs.name, arguments: {}, source: "listed with execution.taskSupport, no required arguments" };
    return;
  }
  pre.taskWhy = taskTools.length
    ? `the task tools (${taskTools.map((t) => t.name).join(", ")}) need arguments: pass --task-tool <name> --task-arguments '<json>'`
    : "the server lists no tool with execution.taskSupport";
}

/**
 * Why `scenario` does not apply to this run (`undefined` when it does).
 *
 * @param {any} scenario
 * @param {any} pre the preflight record
 * @param {"stdio" | "streamable-http"} transport
 * @returns {string | undefined}
 */
export function notApplicable(scenario, pre, transport) {
  const revision = pre.revision;
  const except = scenario.except?.find((e) => e.revision === revision && (e.transport === undefined || e.transport === transport));
  if (except) return except.why;
  const revisions = revisionsOf(scenario.source);
  if (!revisions.includes(revision)) return `applies to ${range(revisions)}; this run negotiated ${revision}`;
  if (!scenario.transports.includes(transport)) return `applies to ${scenario.transports.join(", ")}; this run is over ${transport}`;
  for (const need of scenario.needs ?? []) {
    if (need === "slowTool" && !pre.slow) return pre.slowWhy;
    if (need === "progress" && pre.slow && pre.baseline.progress === 0) return `the slow tool ${pre.slow.name} sent no progress in its baseline run: nothing to count`;
    if (need === "taskTool" && !pre.task) return pre.taskWhy;
    if (need === "nestedTool" && !pre.nested) return pre.nestedWhy;
  }
  return undefined;
}

function range(revisions) {
  return revisions.length === 1 ? revisions[0] : `${revisions[0]} to ${revisions.at(-1)}`;
}

/**
 * Runs the preflight, then every scenario in order, each on a fresh connection. The next
 * scenario's server is started while the current one runs (its start-up — a Python
 * interpreter's imports, ~1.5 s — is not waited for twice); it is only talked to when its
 * scenario begins.
 *
 * @param {any} target the `Connection` target
 * @param {readonly any[]} scenarios the server scenarios to run
 * @param {{ protocolVersion: string, timeoutMs: number }} options
 * @param {{ onPreflight?: (pre: any) => void, onResult?: (result: any) => void }} [on] called with the
 *   preflight record once it is known, and with each scenario's result as it ends
 * @returns {Promise<{ preflight: any, results: any[] }>}
 * @throws {SetupError} from the preflight
 */
export async function runServerSuite(target, scenarios, options, { onPreflight = () => {}, onResult = () => {} } = {}) {
  const pre = await preflight(target, options);
  onPreflight(pre);
  const transport = target.kind === "http" ? "streamable-http" : "stdio";
  const plan = scenarios.map((scenario) => ({ scenario, na: notApplicable(scenario, pre, transport) }));
  const starting = (conn) => conn.start().then(
    () => ({ conn }),
    (error) => ({ conn, error }),
  );
  const fresh = () => starting(new Connection(target, { protocolVersion: options.protocolVersion }));
  // Scenarios that start cold get their own server at their turn; the others take the one started ahead.
  const warm = plan.filter((p) => p.na === undefined && !p.scenario.coldStart);
  let next = warm.length > 0 ? fresh() : undefined;
  const results = [];
  for (const { scenario, na } of plan) {
    let outcome;
    if (na !== undefined) {
      outcome = result(scenario, { na });
    } else if (scenario.coldStart) {
      outcome = await runServerScenario(scenario, await fresh(), pre, options);
    } else {
      const started = await next;
      next = warm.at(-1).scenario !== scenario ? fresh() : undefined;
      outcome = await runServerScenario(scenario, started, pre, options);
    }
    results.push(outcome);
    onResult(outcome);
  }
  return { preflight: pre, results };
}

/**
 * Runs one applicable server scenario on a started connection, and closes it.
 *
 * @param {any} scenario
 * @param {{ conn: Connection, error?: unknown }} started the connection, and the error of its start if it failed
 * @param {any} pre the preflight record
 * @param {{ protocolVersion: string, timeoutMs: number }} options
 * @returns {Promise<any>} the scenario's result: `status`, `checks` (each with `status` and `detail`), `wire`, `events`, `notes`
 */
export async function runServerScenario(scenario, { conn, error: startError }, pre, options) {
  const ctx = { conn, pre, options, calls: new Map(), pings: new Map(), statuses: new Map(), nested: new Map(), probes: [], notes: [], error: undefined };
  const deadlineMs = scenarioDeadline(scenario, pre, options);
  const startedAt = performance.now();
  let timer;
  try {
    if (startError !== undefined) throw startError;
    conn.resetClock();
    if (scenario.clientCapabilities !== undefined) conn.capabilities = scenario.clientCapabilities;
    if (scenario.handshake !== false) await conn.handshake(options.timeoutMs);
    const run = (async () => {
      for (const step of scenario.steps) {
        if (ctx.timedOut) return;
        await STEPS[step.do](step, ctx);
      }
    })();
    const timeout = new Promise((resolve) => {
      timer = setTimeout(() => {
        ctx.timedOut = true;
        resolve();
      }, deadlineMs);
    });
    await Promise.race([run, timeout]);
    if (ctx.timedOut) ctx.error = `the scenario did not finish within ${deadlineMs} ms`;
  } catch (error) {
    ctx.error = describe(error);
  } finally {
    clearTimeout(timer);
    await conn.close();
  }
  const checks = scenario.checks.map((check) => ({ ...check, ...evaluate(check, ctx), timestamp: new Date().toISOString() }));
  if (ctx.error !== undefined) {
    checks.push({ id: "scenario-completed", name: "ScenarioCompleted", description: "The scenario's steps ran to the end.", level: "MUST", status: "fail", detail: ctx.error, timestamp: new Date().toISOString() });
  }
  return { ...result(scenario, { checks, conn, ctx }), durationMs: Math.round(performance.now() - startedAt) };
}

function scenarioDeadline(scenario, pre, options) {
  const tool = pre.baseline?.durationMs ?? 0;
  return Math.min(60000, 2 * options.timeoutMs + 3 * tool + 5000 + (scenario.needs?.includes("nestedTool") ? options.timeoutMs : 0));
}

function result(scenario, { na, checks, conn, ctx }) {
  const base = {
    name: scenario.name,
    role: scenario.role,
    description: scenario.description,
    specReferences: scenario.specReferences,
  };
  if (na !== undefined) {
    const timestamp = new Date().toISOString();
    return { ...base, status: "n/a", summary: na, checks: scenario.checks.map((c) => ({ ...c, status: "n/a", detail: na, timestamp })), wire: [], events: [], notes: [], durationMs: 0 };
  }
  const status = checks.some((c) => c.status === "fail") ? "fail" : checks.some((c) => c.status === "pass") ? "pass" : "n/a";
  const shown = checks.filter((c) => c.status === status);
  const summary = (shown.length ? shown : checks).map((c) => c.detail).join("; ");
  return {
    ...base,
    status,
    summary,
    checks,
    wire: conn.wire,
    events: conn.events,
    notes: ctx.notes,
    stderr: conn.closedAt !== undefined && conn.stderr.trim() ? conn.stderr.trim().split("\n").slice(-5) : undefined,
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Waits until `pred()` or `ms` passed (polling every 10 ms). */
async function until(pred, ms) {
  const end = performance.now() + ms;
  while (!pred() && performance.now() < end) await sleep(10);
  return pred();
}

/** How long to wait for a call to show it started before cancelling it. */
function startDelay(pre) {
  const { durationMs, firstProgressMs } = pre.baseline;
  if (firstProgressMs !== undefined) return Math.min(firstProgressMs * 2 + 200, durationMs / 2);
  return Math.min(500, Math.max(100, durationMs / 4));
}

/** When the tool of `call` would have ended on its own, plus a margin. */
function toolEnd(ctx, call) {
  const tool = ctx.pre.baseline?.durationMs ?? 0;
  const end = call.sentAt + tool * 1.3 + 500;
  return Math.max(end, (call.cancel?.at ?? ctx.conn.now()) + 800);
}

const isResponseTo = (id) => (r) => r.dir === "in" && r.message.method === undefined && r.message.id === id;

/** The steps scenarios use (`do`). Each records what it did in `ctx`. */
const STEPS = {
  async call(step, ctx) {
    const { conn, pre } = ctx;
    const method = step.method ?? "tools/call";
    let params = {};
    if (method === "tools/call") {
      const tool = step.tool === "task" ? pre.task : step.tool === "nested" ? pre.nested : pre.slow;
      params = { name: tool.name, arguments: tool.arguments };
      if (step.tool === "task") params.task = { ttl: 60000 };
    }
    const progressToken = step.progress ? `conformance-progress-${ctx.calls.size + 1}` : undefined;
    const sent = conn.request(method, params, { id: step.id, progressToken, timeoutMs: ctx.options.timeoutMs + (pre.baseline?.durationMs ?? 0) });
    const call = { ...sent, progress: [], cancel: undefined };
    if (progressToken !== undefined) {
      conn.onMessage((r) => {
        if (r.message.method === "notifications/progress" && r.message.params?.progressToken === progressToken) call.progress.push(r);
      });
    }
    ctx.calls.set(step.as, call);
  },

  async initialize(step, ctx) {
    // A server that answers initialize does so about as fast as in the preflight.
    const timeoutMs = Math.min(ctx.options.timeoutMs, Math.max(2000, 3 * ctx.pre.handshakeMs));
    const sent = ctx.conn.request("initialize", ctx.conn.initializeParams(), { timeoutMs });
    ctx.calls.set(step.as, { ...sent, progress: [], cancel: undefined });
  },

  async initialized(step, ctx) {
    const call = ctx.calls.get(step.of);
    const response = ctx.conn.responseTo(call.id)?.message;
    if (response?.result) ctx.conn.initialized(response);
  },

  async waitStarted(step, ctx) {
    const call = ctx.calls.get(step.of);
    const conn = ctx.conn;
    const limit = startDelay(ctx.pre);
    await until(() => call.progress.length > 0 || conn.responseTo(call.id) || conn.closedAt !== undefined, limit);
    call.startedBy = call.progress.length > 0 ? `its first progress at +${call.progress[0].at - call.sentAt} ms` : `${conn.now() - call.sentAt} ms without progress`;
  },

  async waitProgress(step, ctx) {
    const call = ctx.calls.get(step.of);
    const conn = ctx.conn;
    const first = ctx.pre.baseline.firstProgressMs ?? ctx.pre.baseline.durationMs / 2;
    await until(() => call.progress.length > 0 || conn.responseTo(call.id) || conn.closedAt !== undefined, first * 2 + 500);
    call.startedBy = call.progress.length > 0 ? `its first progress at +${call.progress[0].at - call.sentAt} ms` : "no progress";
  },

  async waitNested(step, ctx) {
    const { conn, pre } = ctx;
    const call = ctx.calls.get(step.of);
    let held;
    conn.hold = (r) => {
      if (held !== undefined || r.message.method !== pre.nested.method) return false;
      held = r;
      return true;
    };
    const limit = Math.min(ctx.options.timeoutMs, 3 * pre.nested.baseline.askedMs + 2000);
    await until(() => held !== undefined || conn.responseTo(call.id) !== undefined || conn.closedAt !== undefined, limit);
    if (held === undefined) {
      ctx.notes.push(`no ${pre.nested.method} arrived for the call within ${conn.now() - call.sentAt} ms (its uncancelled run sent one at +${pre.nested.baseline.askedMs} ms)`);
      return;
    }
    ctx.nested.set(step.as, { id: held.message.id, method: held.message.method, at: held.at, call, waited: held.at - call.sentAt });
  },

  async answerLate(step, ctx) {
    const nested = ctx.nested.get(step.of);
    if (nested === undefined) return;
    const at = ctx.conn.now();
    const decision = await ctx.conn.answer(nested.id, clientAnswer(nested.method), { past: true }).catch((error) => `could not be written: ${describe(error)}`);
    nested.late = { at, decision };
  },

  async waitResponse(step, ctx) {
    await ctx.calls.get(step.of).response;
  },

  async cancel(step, ctx) {
    const call = ctx.calls.get(step.of);
    call.cancel = ctx.conn.cancel(call.id, step.reason);
  },

  async rawCancel(step, ctx) {
    const requestId = step.of !== undefined ? ctx.calls.get(step.of).id : step.requestId;
    // The session is asked first: a deliberate violation is one it refuses to send.
    const asked = ctx.conn.cancel(requestId, step.reason);
    if (/cancelled via/.test(asked.decision)) {
      ctx.notes.push(`the session itself sent the cancel for ${JSON.stringify(requestId)} (${asked.decision}): no probe needed`);
      return;
    }
    const message = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: step.reason } };
    await probe(ctx, message, asked.decision, step);
  },

  async rawMessage(step, ctx) {
    await probe(ctx, step.message, judge(step.message, ctx.conn.session.revision ?? ctx.pre.revision), step);
  },

  async settle(step, ctx) {
    await sleep(SETTLE_MS);
  },

  async observe(step, ctx) {
    const conn = ctx.conn;
    const end = step.until === "toolEnd" ? toolEnd(ctx, ctx.calls.get(step.of)) : conn.now() + step.ms;
    await until(() => conn.closedAt !== undefined || ctx.timedOut, end - conn.now());
  },

  async ping(step, ctx) {
    ctx.pings.set(step.as, await ctx.conn.ping(PING_TIMEOUT_MS));
  },

  async waitEvent(step, ctx) {
    await until(() => ctx.conn.events.some((e) => e.event.type === step.type) || ctx.conn.closedAt !== undefined, ctx.options.timeoutMs);
  },

  async taskStatus(step, ctx) {
    const call = ctx.calls.get(step.of);
    const taskId = ctx.conn.responseTo(call.id)?.message?.result?.task?.taskId;
    if (typeof taskId !== "string") {
      ctx.statuses.set(step.as, { error: "no CreateTaskResult (result.task.taskId) for the call" });
      return;
    }
    const response = await ctx.conn.request("tasks/get", { taskId }, { timeoutMs: ctx.options.timeoutMs }).response;
    ctx.statuses.set(step.as, response ?? { error: "tasks/get unanswered" });
  },
};

/**
 * Writes an invalid cancel on purpose and records it with the session's verdict. Over
 * Streamable HTTP the server may reject the POST (its HTTP error is the transport's error):
 * that is recorded as the server's answer.
 */
async function probe(ctx, message, verdict, step) {
  const record = { at: ctx.conn.now(), message, session: verdict, notJsonRpc: step.notJsonRpc === true };
  ctx.probes.push(record);
  try {
    await ctx.conn.writeRaw(message);
  } catch (error) {
    record.rejected = describe(error);
    ctx.conn.wire.push({ at: ctx.conn.now(), dir: "in", message: { rejected: record.rejected } });
  }
}

/**
 * What a receiving server's session makes of `message` (`role: "server"`): the rules of the
 * revision, from mcp-cancel, as evidence that a probe is invalid.
 */
function judge(message, revision) {
  const events = [];
  const session = new CancellationSession({ role: "server", protocolVersion: revision, onEvent: (e) => events.push(e) });
  try {
    session.shouldDropIncoming(message);
  } finally {
    session.close();
  }
  return events.filter((e) => e.direction !== "session").map(describeEvent).join("; ") || "no verdict";
}

/** The checks' verbs (`expect.op`): each returns `{ status, detail }`. */
const CHECKS = {
  noResponse({ of }, ctx) {
    return afterCancel(ctx, of, (after, call) => {
      const own = call.params?.name === ctx.pre.slow?.name && ctx.pre.baseline ? ` (the tool's own run: ${ctx.pre.baseline.durationMs} ms)` : "";
      if (after.length === 0) return pass(`no response in ${ctx.conn.now() - call.cancel.at} ms after the cancel${own}${exitNote(ctx)}`);
      return fail(`${describeLate(after[0], call, ctx)}${exitNote(ctx)}`);
    });
  },

  honoured({ of }, ctx) {
    return afterCancel(ctx, of, (after, call) => {
      const results = after.filter((r) => r.message.result !== undefined);
      if (results.length > 0) return fail(`${describeLate(results[0], call, ctx)}: the cancel for ${JSON.stringify(call.id)} was ignored`);
      if (after.length > 0) return pass(`honoured, with an error reply (${describeLate(after[0], call, ctx)})`);
      return pass(`no result for ${JSON.stringify(call.id)} in ${ctx.conn.now() - call.cancel.at} ms after the cancel`);
    });
  },

  progressStopped({ of, graceMs }, ctx) {
    const call = ctx.calls.get(of);
    if (!call?.cancel) return na("the cancel was not sent");
    const { baseline, slow } = ctx.pre;
    if (!baseline || baseline.progress === 0) return na(`not observable: the tool ${slow?.name} sent no progress in its uncancelled run (${baseline?.durationMs} ms)`);
    const answered = ctx.conn.responseTo(call.id);
    if (answered !== undefined && answered.at <= call.cancel.at) return na(`answered at +${answered.at - call.sentAt} ms, before the cancel: the tool finished too fast to observe`);
    const at = call.cancel.at;
    const before = call.progress.filter((r) => r.at <= at).length;
    const within = call.progress.filter((r) => r.at > at && r.at <= at + graceMs).length;
    const late = call.progress.filter((r) => r.at > at + graceMs);
    const window = ctx.conn.now() - at;
    const counts = `${within} within the ${graceMs} ms grace, ${before} before; the tool's own run: ${baseline.durationMs} ms, ${baseline.progress} progress`;
    if (late.length === 0) return pass(`0 progress after the cancel over ${window} ms (${counts})${exitNote(ctx)}`);
    const dropped = late.filter((r) => r.dropped).length;
    return fail(`the work went on: ${late.length} progress notifications after the cancel over ${window} ms, the last +${late.at(-1).at - at} ms after it (${counts}); ${dropped} dropped by the session`);
  },

  nestedCancelled({ of, withinMs }, ctx) {
    const nested = ctx.nested.get(of);
    const method = ctx.pre.nested?.method;
    if (nested === undefined) return fail(`the server sent no ${method} while the call ran, so none could be cancelled${exitNote(ctx)}`);
    const { call } = nested;
    if (!call.cancel) return na("the call was not cancelled");
    const answered = ctx.conn.responseTo(call.id);
    if (answered !== undefined && answered.at <= call.cancel.at) return na(`the call was answered at +${answered.at - call.sentAt} ms, before its cancel`);
    const cancels = ctx.conn.wire.filter((r) => r.dir === "in" && r.message.method === "notifications/cancelled" && r.message.params?.requestId === nested.id);
    const what = `${method} ${JSON.stringify(nested.id)} (sent +${nested.waited} ms into the call)`;
    if (cancels.length === 0) {
      const late = nested.late ? `, nor after the late answer (${ctx.conn.now() - nested.late.at} ms more)` : "";
      return fail(`no notifications/cancelled for its ${what} in ${withinMs} ms after the call's cancel${late}: the nested request stays open${exitNote(ctx)}`);
    }
    const first = cancels[0];
    const after = first.at - call.cancel.at;
    const reason = first.message.params?.reason !== undefined ? `, reason ${JSON.stringify(first.message.params.reason)}` : "";
    const received = ctx.conn.events.some((e) => e.event.type === "cancel-received" && e.event.requestId === nested.id) ? "; the session took it as valid" : "";
    if (after > withinMs) return fail(`notifications/cancelled for its ${what} only ${after} ms after the call's cancel (expected within ${withinMs} ms)${reason}`);
    return pass(`notifications/cancelled for its ${what} ${after} ms after the call's cancel${reason}${received}`);
  },

  lateAnswerIgnored({ of }, ctx) {
    const nested = ctx.nested.get(of);
    if (nested?.late === undefined) return na("no late answer was sent (no nested request arrived)");
    const since = nested.late.at;
    const ours = new Set(ctx.conn.wire.filter((r) => r.dir === "out" && r.message.method !== undefined && r.message.id !== undefined).map((r) => JSON.stringify(r.message.id)));
    const replies = ctx.conn.wire.filter((r) => r.dir === "in" && r.at >= since && r.message.method === undefined && !ours.has(JSON.stringify(r.message.id ?? null)));
    const logs = ctx.conn.wire.filter(
      (r) => r.dir === "in" && r.at >= since && r.message.method === "notifications/message" && ["error", "critical", "alert", "emergency"].includes(r.message.params?.level),
    );
    const resumed = ctx.conn.wire.find(isResponseTo(nested.call.id));
    const answer = `the late answer to ${nested.method} ${JSON.stringify(nested.id)} (${nested.late.decision})`;
    if (replies.length) return fail(`${answer} was answered: ${json(replies[0].message)}`);
    if (resumed !== undefined && resumed.at >= since) return fail(`${answer} resumed the cancelled call: ${resumed.message.error ? `error ${resumed.message.error.code}` : "a result"} for ${JSON.stringify(nested.call.id)} ${resumed.at - since} ms after it`);
    if (ctx.conn.closedAt !== undefined && ctx.conn.closedAt >= since) return fail(`the server exited at +${ctx.conn.closedAt} ms, after ${answer}`);
    if (logs.length) return fail(`${answer} made the server log an error ${logs[0].at - since} ms later: ${json(logs[0].message.params)}`);
    return pass(`nothing replied to ${answer} in ${ctx.conn.now() - since} ms`);
  },

  responded({ of, kind }, ctx) {
    const call = ctx.calls.get(of);
    if (!call) return fail("the request was not sent");
    const record = ctx.conn.responseTo(call.id);
    const probed = ctx.probes.some((p) => p.message.params?.requestId === call.id);
    if (!record) return fail(`${call.method} ${JSON.stringify(call.id)} unanswered within ${ctx.conn.now() - call.sentAt} ms${probed ? ": the server acted on the cancel" : ""}${exitNote(ctx)}`);
    const m = record.message;
    if (kind === "result" && m.result !== undefined) return pass(`${call.method} ${JSON.stringify(call.id)} answered with a result at +${record.at - call.sentAt} ms`);
    return fail(`${call.method} ${JSON.stringify(call.id)} answered with ${m.error ? `error ${m.error.code} "${m.error.message}"` : "a result"} at +${record.at - call.sentAt} ms`);
  },

  ignored(_, ctx) {
    if (ctx.probes.length === 0) return na("no invalid cancel was sent");
    const since = ctx.probes[0].at;
    const ours = new Set([...ctx.conn.wire].filter((r) => r.dir === "out" && r.message.id !== undefined).map((r) => JSON.stringify(r.message.id)));
    const replies = ctx.conn.wire.filter(
      (r) => r.dir === "in" && r.at >= since && r.message.method === undefined && r.message.rejected === undefined && !ours.has(JSON.stringify(r.message.id ?? null)),
    );
    const logs = ctx.conn.wire.filter(
      (r) => r.dir === "in" && r.at >= since && r.message.method === "notifications/message" && ["error", "critical", "alert", "emergency"].includes(r.message.params?.level),
    );
    for (const p of ctx.probes) ctx.notes.push(`probe ${json(p.message.params ?? "(no params)")}: ${p.session}`);
    const judged = summarizeVerdicts(ctx.probes.map((p) => p.session));
    if (logs.length) ctx.notes.push(`the server logged ${logs.length} error notification(s) after the invalid cancel(s): ${json(logs[0].message.params)}`);
    for (const p of ctx.probes.filter((p) => p.rejected && p.notJsonRpc)) ctx.notes.push(`the transport rejected ${json(p.message)}, which is not JSON-RPC (params must be an object or array): ${p.rejected}`);
    const rejected = ctx.probes.find((p) => p.rejected && !p.notJsonRpc);
    if (rejected) return fail(`the server rejected the invalid cancel ${json(rejected.message.params ?? "(no params)")}: ${rejected.rejected}`);
    if (replies.length) return fail(`answered the invalid cancel: ${json(replies[0].message)}`);
    if (ctx.conn.closedAt !== undefined) return fail(`the server exited at +${ctx.conn.closedAt} ms, after the invalid cancel`);
    const logNote = logs.length ? `, but logged ${logs.length} error notification(s)` : "";
    return pass(`no reply to ${ctx.probes.length} invalid cancel(s)${logNote} (the session: ${judged})`);
  },

  alive({ ping }, ctx) {
    const result = ctx.pings.get(ping);
    if (!result) return fail(ctx.conn.closedAt !== undefined ? `the server exited at +${ctx.conn.closedAt} ms` : "no ping was sent");
    const why = ctx.conn.closedAt !== undefined ? lastError(ctx.conn.stderr) : undefined;
    return result.ok ? pass(result.detail) : fail(`${result.detail}${why ? `; its stderr: ${why}` : ""}`);
  },

  taskCancelAnswered({ of, outcome }, ctx) {
    const call = ctx.calls.get(of);
    if (!call?.cancel) return fail("the cancel was not asked for");
    if (!/via tasks-cancel/.test(call.cancel.decision)) return fail(`the session did not send tasks/cancel: ${call.cancel.decision}`);
    const answered = ctx.conn.events.find((e) => e.event.type === "task-cancel-answered");
    if (!answered) return fail(`no answer to tasks/cancel${exitNote(ctx)}`);
    const e = answered.event;
    return e.outcome === outcome ? pass(`tasks/cancel { taskId: ${JSON.stringify(e.taskId)} } answered: ${e.outcome}`) : fail(`tasks/cancel answered: ${e.outcome}${e.code !== undefined ? ` (error ${e.code})` : ""}`);
  },

  taskStatus({ of, equals }, ctx) {
    const seen = of.map((as) => {
      const r = ctx.statuses.get(as);
      if (!r) return { as, text: "not asked" };
      if (r.error) return { as, text: typeof r.error === "string" ? r.error : `error ${r.error.code} ${r.error.message}` };
      return { as, status: r.result?.status, text: String(r.result?.status) };
    });
    const text = seen.map((s) => `${s.as}: ${s.text}`).join(", ");
    return seen.every((s) => s.status === equals) ? pass(`tasks/get: ${text}`) : fail(`tasks/get: ${text} (expected ${equals})`);
  },

  cancelledVia({ of, via }, ctx) {
    const call = ctx.calls.get(of);
    if (!call?.cancel) return fail("the cancel was not asked for");
    const notifications = ctx.conn.wire.filter((r) => r.dir === "out" && r.message.method === "notifications/cancelled").length;
    if (call.cancel.decision.includes(`via ${via}`) && notifications === 0) return pass(`${call.cancel.decision}; no notifications/cancelled on the wire`);
    return fail(`${call.cancel.decision}; ${notifications} notifications/cancelled on the wire`);
  },

  notObservable({ why }) {
    return na(why);
  },
};

function evaluate(check, ctx) {
  try {
    return CHECKS[check.expect.op](check.expect, ctx);
  } catch (error) {
    return fail(`could not evaluate: ${describe(error)}`);
  }
}

function afterCancel(ctx, of, judgeAfter) {
  const call = ctx.calls.get(of);
  if (!call?.cancel) return na("the cancel was not sent");
  const responses = ctx.conn.wire.filter(isResponseTo(call.id));
  const before = responses.filter((r) => r.at <= call.cancel.at);
  if (before.length > 0) return na(`answered at +${before[0].at - call.sentAt} ms, before the cancel: the tool finished too fast to observe`);
  return judgeAfter(
    responses.filter((r) => r.at > call.cancel.at),
    call,
  );
}

function describeLate(record, call, ctx) {
  const m = record.message;
  const after = record.at - call.cancel.at;
  const what = m.error ? `error ${m.error.code} "${m.error.message}"` : "a result";
  const tool = ctx.pre.baseline?.durationMs;
  const whence =
    tool !== undefined && record.at - call.sentAt >= tool * 0.8 ? ` at the tool's own end (+${record.at - call.sentAt} ms; its run: ${tool} ms)` : "";
  return `${what} for ${JSON.stringify(call.id)} ${after} ms after the cancel${whence}${record.dropped ? " (dropped by the session)" : ""}`;
}

/** "malformed ×6" from the session's verdicts on the probes (their details are in the notes). */
function summarizeVerdicts(verdicts) {
  const counts = new Map();
  for (const v of verdicts) {
    const m = /^(.*?) \(([a-z-]+)/.exec(v);
    const key = v.startsWith("refused:") ? v.split(" ").slice(0, 2).join(" ") : m ? `${m[1]} (${m[2]})` : v;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => (n > 1 ? `${k} ×${n}` : k)).join(", ");
}

/** The last line of a stderr that names an error (else its last line with words), for a one-line reason. */
function lastError(stderr) {
  const lines = stderr.split("\n").map((l) => l.replace(/^[\s|+]+/, "").trim()).filter((l) => /\w/.test(l));
  const error = lines.findLast((l) => /\b\w*(Error|Exception)\b/.test(l));
  return (error ?? lines.at(-1))?.slice(0, 200);
}

function exitNote(ctx) {
  return ctx.conn.closedAt !== undefined ? `; the server exited at +${ctx.conn.closedAt} ms` : "";
}

/** A value as JSON, whole: the evidence is never cut here (the terminal table shortens its rows itself). */
function json(value) {
  return JSON.stringify(value);
}

const pass = (detail) => ({ status: "pass", detail });
const fail = (detail) => ({ status: "fail", detail });
const na = (detail) => ({ status: "n/a", detail });

/** The target in words. */
export function describeTarget(target) {
  return target.kind === "http" ? target.url.href : [target.command, ...target.args].join(" ");
}


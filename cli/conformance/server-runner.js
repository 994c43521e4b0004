// Runs the server scenarios (server-scenarios.js): the preflight (server-preflight.js), then
// each applicable scenario on a fresh connection (a fresh server process over stdio, a fresh
// session over HTTP): its steps in order, then its checks (server-checks.js) against what was
// recorded. Every scenario is bounded in time and its connection always closed.

import { CancellationSession } from "mcp-cancel";
import { clientAnswer, Connection, describe, describeEvent, sleep, until } from "./connection.js";
import { evaluate } from "./server-checks.js";
import { notApplicable, preflight, SETTLE_MS } from "./server-preflight.js";

/** How long a `ping` step waits for its answer. */
const PING_TIMEOUT_MS = 2000;

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


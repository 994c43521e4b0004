// The server scenarios' checks (`expect.op` in server-scenarios.js): each reads what a
// scenario's run recorded (`ctx`: the calls, the wire, the session's events, the probes) and
// gives `{ status, detail }`, the detail being the evidence in words.

import { describe } from "./connection.js";

const isResponseTo = (id) => (r) => r.dir === "in" && r.message.method === undefined && r.message.id === id;

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

/**
 * The status of `check` (a scenario's check, its verb in `expect.op`) on what the scenario's
 * run recorded in `ctx`: `{ status: "pass" | "fail" | "n/a", detail }`. A check that throws
 * fails, with what it threw.
 */
export function evaluate(check, ctx) {
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


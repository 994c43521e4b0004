// The server suite's preflight (server-runner.js runs it first): it connects once, lists the
// tools and times one uncancelled run of the slow tool (the baseline every window is sized
// from) and, with `--nested-tool`, one run of the nested tool answered at once (which request
// it sends the client, how soon); and it says which scenarios apply to what it found.

import { clientAnswer, Connection, describe, describeTarget, NESTED_METHODS, SetupError, sleep, until } from "./connection.js";
import { revisionsOf } from "./scenarios.js";
import { NESTED_CAPABILITIES } from "./server-scenarios.js";

/** Slow tools the suite knows, with arguments that make them run ~2 s with progress. */
export const KNOWN_SLOW_TOOLS = Object.freeze([{ name: "trigger-long-running-operation", arguments: { duration: 2, steps: 8 }, server: "server-everything" }]);
/** Task tools the suite knows, with arguments. */
export const KNOWN_TASK_TOOLS = Object.freeze([{ name: "simulate-research-query", arguments: { topic: "cancellation" }, server: "server-everything" }]);

/** The shortest baseline run the suite can cancel in flight and still tell a late answer from an early one. */
const MIN_TOOL_MS = 300;
/** Quiet time after the handshake, so that requests a server sends at connect (roots/list) are answered before a nested tool is called. */
export const SETTLE_MS = 200;

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

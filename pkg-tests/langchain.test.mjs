// Recipe (docs/integrations.md "LangChain"): @langchain/mcp-adapters 1.1.4's loadMcpTools() over an SDK 1.x
// Client whose transport is guarded, against the real server-everything over stdio.
//
// loadMcpTools(serverName, client) takes a Client you built (dist/tools.js:427), and each
// tool's func hands LangChain's `config.signal` (and `config.metadata.timeoutMs`, from
// LangChain's `timeout`) to `client.callTool(params, undefined, { signal, timeout, onprogress })`
// (dist/tools.js:345-388). So aborting `tool.invoke(args, { signal })` is an SDK abort, and
// guardTransport() under the Client fixes what the SDK gets wrong on the wire. The same calls
// are made with the SDK alone (no guard) to show the difference. (MultiServerMCPClient makes
// its own transports, dist/connection.js:32, with no hook to wrap them: not usable here.)
//
// A wire tap (demo/wiretap.mjs) sits between the guard and the stdio transport: the
// assertions are on what really crossed the wire. It is not part of the recipe.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { loadMcpTools } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { guardTransport } from "mcp-cancel";

import { spawnEverything } from "../demo/everything.mjs";
import { tap } from "../demo/wiretap.mjs";
import { cancels, messages, sleep, until } from "./helpers.mjs";

const SLOW = "trigger-long-running-operation"; // 8 steps of 0.2 s, one progress each; ignores a cancel
const SLOW_ARGS = { duration: 1.6, steps: 8 };
// Follow-up calls use echo, which sends no progress: with an onprogress handler, the SDK 1.x
// Client itself often reports a completed call's last progress to client.onerror ("unknown
// token") when it arrives in the same read as the result (it handles notifications a
// microtask late), guard or not. That race is not the subject here.
const ECHO = "echo";

/** The recipe, line for line as in docs/integrations.md "LangChain" (`transport`: any SDK 1.x transport). */
async function withGuard(transport, onProgress) {
  const client = new Client({ name: "my-app", version: "1.0.0" });
  await client.connect(guardTransport(transport)); // transport: your StdioClientTransport, StreamableHTTPClientTransport, …
  const tools = await loadMcpTools("everything", client, { onProgress });
  return { client, tools };
}

/** The same with the SDK alone. */
async function withoutGuard(transport, onProgress) {
  const client = new Client({ name: "my-app", version: "1.0.0" });
  await client.connect(transport);
  const tools = await loadMcpTools("everything", client, { onProgress });
  return { client, tools };
}

/**
 * server-everything over stdio, an SDK Client (through guardTransport when `guard`), and the
 * LangChain tools loadMcpTools() makes of it. `wireLog`: the wire below the guard; `errors`:
 * everything `client.onerror` got (from the end of the set-up); `progress`: every progress
 * loadMcpTools' onProgress got.
 */
async function start({ guard }) {
  const wireLog = [];
  const errors = [];
  const progress = [];
  const onProgress = (p) => progress.push(p.progress);
  // In your code: new StdioClientTransport({ command: "mcp-server-everything", args: ["stdio"] }).
  // Here the same, spawned with this Node, behind the wire tap.
  const transport = tap(spawnEverything(), wireLog);
  const { client, tools } = await (guard ? withGuard : withoutGuard)(transport, onProgress);
  client.onerror = (error) => errors.push(error);
  const slow = tools.find((tool) => tool.name === SLOW);
  const echo = tools.find((tool) => tool.name === ECHO);
  assert.ok(slow && echo, `loadMcpTools made tools of ${SLOW} and ${ECHO}`);
  return { client, tools, slow, echo, wireLog, errors, progress };
}

/** The id of the last tools/call on the wire. */
const lastCallId = (wireLog) => messages(wireLog, "out").findLast((m) => m.method === "tools/call").id;

/** Waits for the slow tool's last progress on the wire (it ignores the cancel and runs on). */
const lastProgress = (wireLog) =>
  until(() => messages(wireLog, "in").some((m) => m.method === "notifications/progress" && m.params.progress === SLOW_ARGS.steps), 10_000, "the last progress");

/** Aborts an invoke() of the slow tool after two progress notifications; returns what the wire showed. */
async function abortPartWay(lc) {
  lc.wireLog.length = 0;
  lc.progress.length = 0;
  lc.errors.length = 0;
  const stop = new AbortController(); // e.g. the Stop button
  const answer = lc.slow.invoke(SLOW_ARGS, { signal: stop.signal });
  await until(() => lc.progress.length >= 2, 10_000, "two progress notifications");
  stop.abort();
  // The SDK rejects the call; LangChain wraps it in a ToolException (the SDK's -32001 for a user abort).
  await assert.rejects(answer, (error) => error.name === "ToolException" && /This operation was aborted/.test(error.message));
  const progressAtAbort = lc.progress.length;
  const callId = lastCallId(lc.wireLog);
  await lastProgress(lc.wireLog);
  await sleep(200);
  const cancelAt = lc.wireLog.findIndex((r) => r.dir === "out" && r.message.method === "notifications/cancelled");
  const lateProgress = lc.wireLog.slice(cancelAt).filter((r) => r.dir === "in" && r.message.method === "notifications/progress");
  return { callId, progressAtAbort, lateProgress };
}

describe("LangChain loadMcpTools() over a guarded SDK Client, server-everything over stdio", { timeout: 60_000 }, () => {
  let guarded;
  let alone;

  before(async () => {
    [guarded, alone] = await Promise.all([start({ guard: true }), start({ guard: false })]);
  });

  after(async () => {
    await Promise.all([guarded?.client.close(), alone?.client.close()]);
  });

  test("the Client's transport is the guard; LangChain lists every tool through it", () => {
    assert.ok(guarded.client.transport.session, "client.transport is guardTransport()'s (it has a session)");
    assert.equal(alone.client.transport.session, undefined);
    assert.deepEqual(
      guarded.tools.map((t) => t.name),
      alone.tools.map((t) => t.name),
    );
  });

  test("invoke(args, { signal }) aborted part-way: one notifications/cancelled for the call's id, late progress dropped, client.onerror silent", async () => {
    const { callId, progressAtAbort, lateProgress } = await abortPartWay(guarded);
    assert.deepEqual(cancels(guarded.wireLog, "out"), [
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: "Request cancelled" } },
    ]);
    assert.ok(lateProgress.length >= 3, `late progress crossed the wire after the cancel (${lateProgress.length})`);
    assert.equal(guarded.progress.length, progressAtAbort, "no progress reached LangChain's onProgress after the abort");
    // server-everything (SDK server) suppresses a cancelled call's result: no late response to drop here.
    assert.equal(messages(guarded.wireLog, "in").filter((m) => m.id === callId && m.method === undefined).length, 0);
    assert.deepEqual(guarded.errors, [], "client.onerror stayed silent");
    assert.equal(guarded.client.transport.session.isInFlight(callId), false);

    // A follow-up call on the same client works.
    guarded.wireLog.length = 0;
    const result = await guarded.echo.invoke({ message: "still there" });
    assert.match(result, /still there/);
    assert.deepEqual(cancels(guarded.wireLog, "out"), []);
    assert.deepEqual(guarded.errors, []);
  });

  test("aborting after the call completed sends nothing", async () => {
    guarded.wireLog.length = 0;
    const stop = new AbortController();
    const result = await guarded.echo.invoke({ message: "done" }, { signal: stop.signal });
    assert.match(result, /done/);
    stop.abort(); // e.g. the user stops the agent while the model writes its answer
    await sleep(150);
    assert.deepEqual(cancels(guarded.wireLog, "out"), []);
    assert.deepEqual(guarded.errors, []);
  });

  test("LangChain's `timeout` option: a call that completed in time leaves no cancel behind", async () => {
    // invoke()'s `timeout` becomes an AbortSignal.timeout() that keeps running after the call.
    guarded.wireLog.length = 0;
    const result = await guarded.echo.invoke({ message: "in time" }, { timeout: 1500 });
    assert.match(result, /in time/);
    await sleep(1800);
    assert.deepEqual(cancels(guarded.wireLog, "out"), []);
    assert.deepEqual(guarded.errors, []);
  });

  test("LangChain's `timeout` expiring part-way: one cancel, with the reason \"Request timed out\"", async () => {
    guarded.wireLog.length = 0;
    guarded.progress.length = 0;
    const answer = guarded.slow.invoke(SLOW_ARGS, { timeout: 700 });
    await assert.rejects(answer, (error) => error.name === "ToolException" && /timeout/i.test(error.message));
    const callId = lastCallId(guarded.wireLog);
    const progressAtTimeout = guarded.progress.length;
    await lastProgress(guarded.wireLog);
    await sleep(200);
    assert.deepEqual(cancels(guarded.wireLog, "out"), [
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: "Request timed out" } },
    ]);
    assert.equal(guarded.progress.length, progressAtTimeout);
    assert.deepEqual(guarded.errors, []);
  });

  describe("the SDK alone (no guard), for comparison", () => {
    test("the same abort: one cancel too, but its reason is String(signal.reason) and every late progress reaches client.onerror", async () => {
      const { callId, progressAtAbort, lateProgress } = await abortPartWay(alone);
      assert.deepEqual(cancels(alone.wireLog, "out"), [
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: "AbortError: This operation was aborted" } },
      ]);
      assert.ok(lateProgress.length >= 3);
      assert.equal(alone.progress.length, progressAtAbort, "the SDK does not call onprogress after the abort either");
      assert.equal(alone.errors.length, lateProgress.length, "each late progress is a client.onerror");
      for (const error of alone.errors) assert.match(error.message, /Received a progress notification for an unknown token/);
      const result = await alone.echo.invoke({ message: "still there" });
      assert.match(result, /still there/);
    });

    test("aborting after the call completed sends notifications/cancelled for the finished id", async () => {
      alone.wireLog.length = 0;
      alone.errors.length = 0;
      const stop = new AbortController();
      await alone.echo.invoke({ message: "done" }, { signal: stop.signal });
      const callId = lastCallId(alone.wireLog);
      assert.equal(messages(alone.wireLog, "in").filter((m) => m.id === callId && "result" in m).length, 1, "the call had completed");
      stop.abort();
      await sleep(150);
      assert.deepEqual(cancels(alone.wireLog, "out"), [
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: "AbortError: This operation was aborted" } },
      ]);
    });

    test("LangChain's `timeout` option: every call that completed in time is followed by a cancel at the deadline", async () => {
      alone.wireLog.length = 0;
      await alone.echo.invoke({ message: "in time" }, { timeout: 1500 });
      const callId = lastCallId(alone.wireLog);
      assert.deepEqual(cancels(alone.wireLog, "out"), [], "nothing yet");
      await sleep(1800);
      assert.deepEqual(cancels(alone.wireLog, "out"), [
        {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: callId, reason: "TimeoutError: The operation was aborted due to timeout" },
        },
      ]);
    });
  });
});

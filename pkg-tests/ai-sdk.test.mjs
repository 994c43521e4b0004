// The Vercel AI SDK through guardTransport: `createMCPClient({ transport:
// guardTransport(inner) })`. The AI SDK never sends notifications/cancelled itself; it passes
// each request's AbortSignal (the app's, or combined with its own timeout) to the
// transport's send(), and the guard cancels the request when that signal aborts.
//
//   ai 6.0.326 + @ai-sdk/mcp 1.0.101 (what Node 20 installs) → SDK 1.x stdio → server-everything
//   @ai-sdk/mcp 2.0.99 (installed as ai-sdk-mcp-2)  → its own StdioMCPTransport →
//       server-everything (2025-11-25, after server/discover fails) and an SDK 2.x server
//       (2026-07-28, server/discover)
//
// Every assertion is on the wire: a tap below the guard records what the server received.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { createMCPClient } from "@ai-sdk/mcp";
import { generateText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { createMCPClient as createMCPClient2 } from "ai-sdk-mcp-2";
import { StdioMCPTransport } from "ai-sdk-mcp-2/mcp-stdio";
import { guardTransport } from "mcp-cancel";

import { EVERYTHING, spawnEverything } from "../demo/everything.mjs";
import { isCancel, tap, wire } from "../demo/wiretap.mjs";
import { sleep, until } from "./helpers.mjs";

const NODE2_SERVER = fileURLToPath(new URL("./peers/node2-server.mjs", import.meta.url));
const LONG = "trigger-long-running-operation";
const execOptions = (abortSignal) => ({ abortSignal, toolCallId: "call-1", messages: [] });
/** The AI SDK's complaint about a response it no longer expects (the bug the guard fixes). */
const UNKNOWN_ID = /Received a response for an unknown message ID/;

/** An AI SDK client (`create`) over `inner`, guarded or not; `log` is the wire below the guard. */
async function aiClient(create, inner, { guard = true, guardOptions } = {}) {
  const log = [];
  const errors = [];
  const events = [];
  const tapped = tap(inner, log);
  const transport = guard ? guardTransport(tapped, { onEvent: (e) => events.push(e), ...guardOptions }) : tapped;
  const client = await create({ transport, onUncaughtError: (e) => errors.push(e) });
  return { client, transport, log, errors, events };
}

/** The id of the last `tools/call` on the wire. */
const lastCallId = (log) => wire(log, "out", (m) => m.method === "tools/call").at(-1).id;

/** A mock model whose one step calls `toolName` with `input` (the app's generateText path). */
const toolCallingModel = (toolName, input) =>
  new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: "tool-call", toolCallId: "call-1", toolName, input: JSON.stringify(input) }],
      finishReason: { unified: "tool-calls", raw: "tool_calls" },
      usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
      warnings: [],
    }),
  });

describe("AI SDK 6 (@ai-sdk/mcp 1.0.101) → SDK stdio transport → server-everything", { timeout: 60_000 }, () => {
  test("the AI SDK alone: an abort sends nothing, the server runs on, its late result is an uncaught error", async () => {
    const { client, log, errors } = await aiClient(createMCPClient, spawnEverything(), { guard: false });
    try {
      const tools = await client.tools();
      const ac = new AbortController();
      const call = tools[LONG].execute({ duration: 1.2, steps: 4 }, execOptions(ac.signal));
      await sleep(400);
      ac.abort();
      await assert.rejects(call, /Request was aborted/);
      const id = lastCallId(log);
      await until(() => wire(log, "in", (m) => m.id === id).length === 1, 5000, "the late result");
      await until(() => errors.some((e) => UNKNOWN_ID.test(e.message)), 2000, "the uncaught error");
      assert.deepEqual(wire(log, "out", isCancel), [], "no notifications/cancelled");
    } finally {
      await client.close();
    }
  });

  test("generateText's abortSignal stops a tool part-way: one cancel for its id, no late result, a follow-up call works", async () => {
    const { client, log, errors, events } = await aiClient(createMCPClient, spawnEverything());
    try {
      const tools = await client.tools();
      const ac = new AbortController();
      const run = generateText({ model: toolCallingModel(LONG, { duration: 1.2, steps: 4 }), tools: { [LONG]: tools[LONG] }, prompt: "go", abortSignal: ac.signal });
      await until(() => wire(log, "out", (m) => m.method === "tools/call").length === 1, 5000, "the tools/call");
      await sleep(300);
      ac.abort();
      // generateText reports the aborted tool as the step's tool error (or rejects).
      const outcome = await run.then(
        (result) => result.content.find((part) => part.type === "tool-error")?.error,
        (error) => error,
      );
      assert.match(String(outcome?.message ?? outcome), /abort/i);
      const id = lastCallId(log);
      assert.deepEqual(wire(log, "out", isCancel), [
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "Request cancelled" } },
      ]);
      assert.ok(events.some((e) => e.type === "cancel-sent" && e.requestId === id));
      // server-everything suppresses a cancelled tool's result; the guard would drop it anyway.
      await sleep(1300);
      assert.deepEqual(wire(log, "in", (m) => m.id === id), [], "no result for the cancelled call");
      assert.deepEqual(errors.filter((e) => UNKNOWN_ID.test(e.message)), []);
      const echo = await tools.echo.execute({ message: "still here" }, execOptions(new AbortController().signal));
      assert.match(JSON.stringify(echo), /still here/);
      assert.equal(wire(log, "out", isCancel).length, 1, "nothing more was cancelled");
    } finally {
      await client.close();
    }
  });

  test("abort after the call completed: nothing on the wire, and no listener is left on the signal", async () => {
    const { client, log } = await aiClient(createMCPClient, spawnEverything());
    try {
      const tools = await client.tools();
      const ac = new AbortController();
      const call = tools[LONG].execute({ duration: 0.6, steps: 2 }, execOptions(ac.signal));
      await until(() => wire(log, "out", (m) => m.method === "tools/call").length === 1, 5000, "the tools/call");
      // In flight: the AI SDK's own listener and the guard's.
      assert.equal(getEventListeners(ac.signal, "abort").length, 2);
      await call;
      assert.equal(getEventListeners(ac.signal, "abort").length, 0, "the guard's listener went with the response");
      ac.abort();
      await sleep(100);
      assert.deepEqual(wire(log, "out", isCancel), []);
    } finally {
      await client.close();
    }
  });

  test("an AbortSignal.timeout() as the app's signal: the cancel says the request timed out", async () => {
    const { client, log } = await aiClient(createMCPClient, spawnEverything());
    try {
      const tools = await client.tools();
      await assert.rejects(tools[LONG].execute({ duration: 1.2, steps: 4 }, execOptions(AbortSignal.timeout(400))));
      await until(() => wire(log, "out", isCancel).length === 1, 2000, "the cancel");
      assert.deepEqual(wire(log, "out", isCancel)[0].params, { requestId: lastCallId(log), reason: "Request timed out" });
    } finally {
      await client.close();
    }
  });
});

describe("AI SDK 7's client (@ai-sdk/mcp 2.0.99) → its StdioMCPTransport", { timeout: 60_000 }, () => {
  test("server-everything (2025-11-25 after server/discover fails): one cancel, no uncaught late result", async () => {
    const inner = new StdioMCPTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "pipe" });
    const { client, transport, log, errors } = await aiClient(createMCPClient2, inner);
    try {
      assert.equal(transport.session.revision, "2025-11-25");
      const ac = new AbortController();
      const call = client.callTool({ name: LONG, arguments: { duration: 1.2, steps: 4 }, options: { signal: ac.signal } });
      await sleep(400);
      ac.abort();
      await assert.rejects(call, /Request was aborted/);
      const id = lastCallId(log);
      assert.deepEqual(wire(log, "out", isCancel).map((m) => m.params.requestId), [id]);
      await sleep(1200);
      assert.deepEqual(errors.filter((e) => UNKNOWN_ID.test(e.message)), []);
    } finally {
      await client.close();
    }
  });

  test("an SDK 2.x server on 2026-07-28: abort and the client's own timeout each cancel once, with the timeout's reason; a follow-up works", async () => {
    const inner = new StdioMCPTransport({ command: process.execPath, args: [NODE2_SERVER], stderr: "pipe" });
    const { client, transport, log, errors } = await aiClient(createMCPClient2, inner);
    const seen = [];
    inner.process.stderr.on("data", (chunk) => {
      for (const line of String(chunk).split("\n").filter(Boolean)) seen.push(JSON.parse(line));
    });
    try {
      // The AI SDK discovered 2026-07-28 because the guard shows its transport's flag.
      assert.equal(transport.supportsProtocolVersionDiscovery, true);
      assert.ok(wire(log, "out", (m) => m.method === "server/discover").length === 1);
      assert.equal(transport.session.revision, "2026-07-28");
      assert.equal(transport.protocolVersion, "2026-07-28");

      const ac = new AbortController();
      const call = client.callTool({ name: "slow", arguments: { steps: 40 }, options: { signal: ac.signal } });
      await sleep(400);
      ac.abort();
      await assert.rejects(call, /Request was aborted/);
      const aborted = lastCallId(log);
      await until(() => seen.some((r) => r.aborted === aborted), 3000, "the handler to stop");
      assert.equal(seen.find((r) => r.aborted === aborted).reason, "Request cancelled");

      await assert.rejects(client.callTool({ name: "slow", arguments: { steps: 40 }, options: { timeout: 300 } }), /Request timed out after 300ms/);
      const timedOut = lastCallId(log);
      await until(() => seen.some((r) => r.aborted === timedOut), 3000, "the handler to stop");
      assert.equal(seen.find((r) => r.aborted === timedOut).reason, "Request timed out");
      assert.deepEqual(
        wire(log, "out", isCancel).map((m) => m.params),
        [
          { requestId: aborted, reason: "Request cancelled" },
          { requestId: timedOut, reason: "Request timed out" },
        ],
      );

      const done = await client.callTool({ name: "slow", arguments: { steps: 2 } });
      assert.equal(done.content[0].text, "done 2");
      assert.equal(wire(log, "out", isCancel).length, 2, "nothing more was cancelled");
      assert.deepEqual(errors, []);
    } finally {
      await client.close();
    }
  });

  test("stacked with another wrapper in either order: the flags, send()'s options and the one cancel survive", async () => {
    for (const order of ["guard outside", "guard inside"]) {
      const raw = new StdioMCPTransport({ command: process.execPath, args: [NODE2_SERVER], stderr: "pipe" });
      // The wire: what reaches the bottom transport, and the options it was sent with.
      const sent = [];
      const rawSend = raw.send.bind(raw);
      raw.send = (message, sendOptions) => {
        sent.push({ dir: "out", message, options: sendOptions });
        return rawSend(message, sendOptions);
      };
      const log = sent;
      const transport = order === "guard outside" ? guardTransport(tap(raw, [])) : tap(guardTransport(raw), []);
      const errors = [];
      const client = await createMCPClient2({ transport, onUncaughtError: (e) => errors.push(e) });
      try {
        assert.equal(transport.supportsProtocolVersionDiscovery, true, order);
        assert.equal(transport.protocolVersion, "2026-07-28", order);
        const ac = new AbortController();
        const call = client.callTool({ name: "slow", arguments: { steps: 40 }, options: { signal: ac.signal } });
        await sleep(300);
        ac.abort();
        await assert.rejects(call);
        await until(() => wire(log, "out", isCancel).length === 1, 2000, "the cancel");
        await sleep(100);
        assert.equal(wire(log, "out", isCancel).length, 1, order);
        const callSent = sent.find((r) => r.message.method === "tools/call");
        assert.ok(callSent.options?.signal instanceof AbortSignal, `${order}: send()'s signal reached the transport`);
        assert.deepEqual(errors, [], order);
      } finally {
        await client.close();
      }
    }
  });
});

describe("guardTransport stacks with other wrappers", () => {
  test("reads, writes and methods reach the inner transport through any number of wrappers", async () => {
    const inner = {
      sessionId: "session-1",
      hasPerRequestStream: true,
      supportsProtocolVersionDiscovery: true,
      waitsForProtocolVersionDiscovery: true,
      supportsMcpToolParameterHeaders: true,
      sent: [],
      start: async () => {},
      close: async () => {},
      async send(message, options) {
        this.sent.push({ message, options });
      },
      terminateSession() {
        // A method that reads its own members: it must run on the inner transport.
        return this.sessionId;
      },
    };
    for (const stack of [(t) => tap(guardTransport(t), []), (t) => guardTransport(tap(t, [])), (t) => guardTransport(guardTransport(t))]) {
      inner.sent.length = 0;
      const top = stack(inner);
      for (const flag of ["sessionId", "hasPerRequestStream", "supportsProtocolVersionDiscovery", "waitsForProtocolVersionDiscovery", "supportsMcpToolParameterHeaders"]) {
        assert.equal(top[flag], inner[flag], flag);
        assert.ok(flag in top, flag);
      }
      assert.equal(top.terminateSession(), "session-1");
      assert.equal(top.terminateSession, top.terminateSession, "one function per method");
      top.sessionId = "session-2";
      assert.equal(inner.sessionId, "session-2");
      inner.sessionId = "session-1";
      const sendOptions = { relatedRequestId: 7, resumptionToken: "t", headers: { "x-a": "1" } };
      await top.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } }, sendOptions);
      // Passed through (with the request's own `requestSignal` added: per-request streams).
      const passed = inner.sent[0].options;
      for (const [key, value] of Object.entries(sendOptions)) assert.deepEqual(passed[key], value, key);
      assert.ok(passed.requestSignal instanceof AbortSignal);
    }
  });

  test("a client that assigns protocolVersion instead of calling setProtocolVersion() informs the session", () => {
    const inner = { start: async () => {}, send: async () => {}, close: async () => {} };
    const guarded = guardTransport(inner);
    guarded.protocolVersion = "2026-07-28";
    assert.equal(guarded.session.revision, "2026-07-28");
    assert.equal(inner.protocolVersion, "2026-07-28");
    assert.equal(guarded.protocolVersion, "2026-07-28");
  });
});

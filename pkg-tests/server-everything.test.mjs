// SDK Client + guardTransport against the real @modelcontextprotocol/server-everything over
// stdio. Its trigger-long-running-operation ignores cancellation and keeps sending progress.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { cancels, connectEverything, messages, sleep, until } from "./helpers.mjs";

describe("server-everything over stdio, through guardTransport", { timeout: 60000 }, () => {
  let client;
  let wireLog;
  let errors;
  let events;

  before(async () => {
    ({ client, wireLog, errors, events } = await connectEverything());
  });

  after(async () => {
    await client?.close();
  });

  test("abort part-way: one cancel on the wire, late progress dropped, nothing reaches the SDK", async () => {
    wireLog.length = 0;
    events.length = 0;
    const ac = new AbortController();
    let progressSeen = 0;
    const call = client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 1.6, steps: 8 } }, undefined, {
      signal: ac.signal,
      onprogress: () => progressSeen++,
    });
    await until(() => progressSeen >= 2, 10000, "two progress notifications");
    ac.abort();
    await assert.rejects(call);
    const progressAtAbort = progressSeen;
    const callId = messages(wireLog, "out").find((m) => m.method === "tools/call").id;
    // The tool ignores the cancel: wait for its remaining progress (8 steps of 0.2 s).
    await until(
      () => messages(wireLog, "in").some((m) => m.method === "notifications/progress" && m.params.progress === 8),
      10000,
      "the last progress",
    );
    await sleep(300);

    assert.deepEqual(cancels(wireLog, "out"), [
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: "Request cancelled" } },
    ]);
    const cancelIndex = wireLog.findIndex((r) => r.dir === "out" && r.message.method === "notifications/cancelled");
    const lateProgress = wireLog.slice(cancelIndex).filter((r) => r.dir === "in" && r.message.method === "notifications/progress");
    assert.ok(lateProgress.length >= 3, `late progress arrived on the wire (${lateProgress.length})`);
    assert.equal(events.filter((e) => e.type === "late-progress-dropped").length, lateProgress.length);
    assert.equal(progressSeen, progressAtAbort, "no progress reached the caller after the abort");
    // The SDK server suppresses the tool's result after a cancel: no response for the call.
    assert.equal(messages(wireLog, "in").filter((m) => m.id === callId && m.method === undefined).length, 0);
    assert.deepEqual(errors, [], "client.onerror stayed silent");
    await client.ping();
  });

  test("abort after the call completed sends nothing", async () => {
    wireLog.length = 0;
    const ac = new AbortController();
    await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 0.1, steps: 1 } }, undefined, {
      signal: ac.signal,
    });
    ac.abort();
    await sleep(100);
    assert.deepEqual(cancels(wireLog, "out"), []);
    assert.deepEqual(errors, []);
  });
});

// Task-augmented requests (2025-11-25 §Tasks) against server-everything's real task tool
// `simulate-research-query`, with an SDK 1.32.2 Client through guardTransport. The SDK alone
// sends notifications/cancelled for a task (forbidden) and never tasks/cancel; the guard
// turns the user's abort into exactly one tasks/cancel — deferred when the abort comes before
// the CreateTaskResult.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { CreateTaskResultSchema, GetTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";

import { cancels, connectEverything, messages, sleep, until } from "./helpers.mjs";

const TOOL = { name: "simulate-research-query", arguments: { topic: "cancellation" } };

describe("tasks/cancel against server-everything (SDK 1.32.2 + guardTransport)", { timeout: 60000 }, () => {
  let client;
  let wireLog;
  let errors;
  let events;

  before(async () => {
    ({ client, wireLog, errors, events } = await connectEverything({ capabilities: {} }));
    // The task tool is registered after initialization.
    for (let i = 0; i < 50; i++) {
      const { tools } = await client.listTools();
      if (tools.some((t) => t.name === TOOL.name)) break;
      await sleep(100);
    }
  });

  after(async () => {
    await client?.close();
  });

  async function status(taskId) {
    const task = await client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema);
    return task.status;
  }

  const tasksCancels = () => messages(wireLog, "out").filter((m) => m.method === "tasks/cancel");

  test("abort before the CreateTaskResult: one deferred tasks/cancel, the task ends cancelled", async () => {
    wireLog.length = 0;
    events.length = 0;
    const ac = new AbortController();
    const call = client.request({ method: "tools/call", params: TOOL }, CreateTaskResultSchema, { task: { ttl: 60000 }, signal: ac.signal });
    ac.abort(); // before any answer can have arrived
    await assert.rejects(call);
    await until(() => tasksCancels().length === 1, 5000, "the deferred tasks/cancel");
    const callId = messages(wireLog, "out").find((m) => m.method === "tools/call").id;
    const created = messages(wireLog, "in").find((m) => m.id === callId && m.result);
    assert.ok(created?.result?.task?.taskId, "the CreateTaskResult arrived after the abort");
    const taskId = created.result.task.taskId;
    const sent = tasksCancels()[0];
    assert.deepEqual(sent.params, { taskId });
    assert.match(String(sent.id), /^mcp-cancel:/);
    const callIndex = wireLog.findIndex((r) => r.message === created);
    const cancelIndex = wireLog.findIndex((r) => r.message === sent);
    assert.ok(cancelIndex > callIndex, "tasks/cancel went out only once the taskId was known");
    assert.deepEqual(cancels(wireLog, "out"), [], "no notifications/cancelled for a task-augmented request");
    await until(() => messages(wireLog, "in").some((m) => m.id === sent.id), 5000, "the tasks/cancel answer");
    assert.equal(await status(taskId), "cancelled");
    await sleep(1200); // the task would have moved on by now
    assert.equal(await status(taskId), "cancelled");
    assert.equal(tasksCancels().length, 1, "exactly one tasks/cancel");
    assert.deepEqual(errors, [], "the dropped CreateTaskResult and the consumed answer never reached the SDK");
    assert.deepEqual(
      events.filter((e) => e.direction === "outbound").map((e) => e.type),
      ["cancel-deferred", "cancel-sent", "late-response-dropped", "task-cancel-answered"],
    );
    assert.equal(events.find((e) => e.type === "task-cancel-answered").outcome, "cancelled");
  });

  test("abort after the CreateTaskResult: the SDK's stale cancel becomes one tasks/cancel", async () => {
    wireLog.length = 0;
    events.length = 0;
    const ac = new AbortController();
    const created = await client.request({ method: "tools/call", params: TOOL }, CreateTaskResultSchema, { task: { ttl: 60000 }, signal: ac.signal });
    const taskId = created.task.taskId;
    assert.equal(await status(taskId), "working");
    ac.abort(); // the SDK 1.32.2 sends notifications/cancelled for the finished request
    await until(() => tasksCancels().length === 1, 5000, "tasks/cancel");
    assert.deepEqual(tasksCancels()[0].params, { taskId });
    assert.deepEqual(cancels(wireLog, "out"), []);
    await until(() => messages(wireLog, "in").some((m) => m.id === tasksCancels()[0].id), 5000, "the answer");
    assert.equal(await status(taskId), "cancelled");
    ac.abort();
    await sleep(100);
    assert.equal(tasksCancels().length, 1);
    assert.deepEqual(errors, []);
  });

  test("a task the app already cancelled itself gets no second tasks/cancel", async () => {
    wireLog.length = 0;
    events.length = 0;
    const ac = new AbortController();
    const created = await client.request({ method: "tools/call", params: TOOL }, CreateTaskResultSchema, { task: { ttl: 60000 }, signal: ac.signal });
    const taskId = created.task.taskId;
    // The app cancels the task itself; the guard counts it as the one.
    await client.request({ method: "tasks/cancel", params: { taskId } }, GetTaskResultSchema);
    ac.abort();
    await sleep(200);
    assert.equal(tasksCancels().length, 1, "only the app's own tasks/cancel");
    assert.ok(events.some((e) => e.type === "cancel-not-sent" && e.requestId === messages(wireLog, "out").find((m) => m.method === "tools/call").id));
    assert.deepEqual(errors, []);
  });
});

// Timeouts (2025-03-26 §Lifecycle "Timeouts") against server-everything's
// trigger-long-running-operation, which sends progress every duration/steps seconds and
// ignores cancellation. The deadlines are measured on the wire tap's clock.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CancellationSession, guardTransport } from "mcp-cancel";

import { spawnEverything } from "../demo/everything.mjs";
import { tap } from "../demo/wiretap.mjs";
import { sleep } from "./helpers.mjs";

const LONG = "trigger-long-running-operation";
const TOLERANCE_MS = 50;


const at = (log, pred) => log.find((r) => pred(r.message))?.at;
const isCall = (m) => m.method === "tools/call";
const isCancel = (m) => m.method === "notifications/cancelled";

describe("timeouts through guardTransport (SDK 1.32.2 Client)", { timeout: 60000 }, () => {
  test("progress resets the timeout, and the maximum total cancels on the wire at its deadline", async (t) => {
    const log = [];
    const events = [];
    const errors = [];
    const stdio = spawnEverything();
    t.after(() => stdio.close());
    const transport = guardTransport(tap(stdio, log), {
      timeout: 500,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: 1500,
      onEvent: (e) => events.push(e),
    });
    const client = new Client({ name: "pkg-tests", version: "0.0.0" });
    client.onerror = (e) => errors.push(e);
    await client.connect(transport, { timeout: 20000 });
    let progress = 0;
    // Progress every 250 ms keeps resetting the 500 ms timeout; only the maximum total fires.
    const call = client.callTool({ name: LONG, arguments: { duration: 5, steps: 20 } }, undefined, { onprogress: () => progress++ });
    await assert.rejects(call, (e) => e.code === -32001 && /Request timed out/.test(e.message));
    const sentAt = at(log, isCall);
    const cancelAt = at(log, isCancel);
    const elapsed = cancelAt - sentAt;
    assert.ok(Math.abs(elapsed - 1500) <= TOLERANCE_MS, `cancel at +${elapsed.toFixed(1)} ms, deadline +1500 ms`);
    assert.ok(progress >= 3, `progress was delivered before the deadline (${progress})`);
    const cancel = log.find((r) => isCancel(r.message)).message;
    assert.equal(cancel.params.reason, "Request timed out");
    assert.deepEqual(
      events.filter((e) => e.type === "timed-out").map((e) => e.kind),
      ["max-total"],
    );
    const progressAtTimeout = progress;
    await sleep(700);
    assert.equal(progress, progressAtTimeout, "no progress after the timeout");
    assert.ok(events.some((e) => e.type === "late-progress-dropped"));
    assert.equal(log.filter((r) => isCancel(r.message)).length, 1, "the maximum total fires exactly once");
    assert.deepEqual(errors, []);
    await client.ping();
    await client.close();
  });

  test("the SDK's own per-call maxTotalTimeout is not seen by the guard: its late progress still reaches onerror (what the README says the guard does not fix)", async (t) => {
    const log = [];
    const errors = [];
    const stdio = spawnEverything();
    t.after(() => stdio.close());
    const client = new Client({ name: "pkg-tests", version: "0.0.0" });
    client.onerror = (e) => errors.push(e);
    await client.connect(guardTransport(tap(stdio, log)), { timeout: 20000 });
    const call = client.callTool({ name: LONG, arguments: { duration: 3, steps: 12 } }, undefined, {
      onprogress: () => {},
      timeout: 5000,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: 800,
    });
    await assert.rejects(call, (e) => e.code === -32001);
    await sleep(800);
    // The SDK rejected the caller without a cancel on the wire yet: the progress it keeps
    // getting is for a token it forgot, and the guard, which never saw the deadline, passes it.
    assert.ok(errors.some((e) => /unknown token/i.test(e.message)), `late progress reached onerror: ${errors.map((e) => e.message)}`);
    await client.close();
  });

  test("without progress resets, the timeout cancels at its own deadline", async (t) => {
    const log = [];
    const stdio = spawnEverything();
    t.after(() => stdio.close());
    const transport = guardTransport(tap(stdio, log), { timeout: 400 });
    const client = new Client({ name: "pkg-tests", version: "0.0.0" });
    const errors = [];
    client.onerror = (e) => errors.push(e);
    await client.connect(transport, { timeout: 20000 });
    const call = client.callTool({ name: LONG, arguments: { duration: 3, steps: 3 } });
    await assert.rejects(call, (e) => e.code === -32001);
    const elapsed = at(log, isCancel) - at(log, isCall);
    assert.ok(Math.abs(elapsed - 400) <= TOLERANCE_MS, `cancel at +${elapsed.toFixed(1)} ms, deadline +400 ms`);
    assert.deepEqual(errors, []);
    await client.close();
  });
});

describe("timeouts with the low-level CancellationSession over raw stdio", { timeout: 60000 }, () => {
  test("a timeout aborts the request's signal with TimeoutError; a user abort with its own reason", async (t) => {
    const log = [];
    const wire = tap(spawnEverything(), log);
    t.after(() => wire.close());
    const session = new CancellationSession({ send: (m) => wire.send(m) });
    const waiting = new Map();
    wire.onmessage = (m) => {
      if (session.shouldDropIncoming(m)) return;
      if (m.method === undefined) waiting.get(m.id)?.(m);
    };
    await wire.start();
    const request = (id, method, params, options) => {
      session.track(id, method, { params, ...options });
      const signal = session.signal(id); // the request's own signal (made on first ask)
      const response = new Promise((resolve) => waiting.set(id, resolve));
      wire.send({ jsonrpc: "2.0", id, method, params });
      return { signal, response };
    };
    const aborted = (signal) =>
      signal.aborted
        ? Promise.resolve(signal.reason)
        : new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));

    const init = request(0, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } });
    const initialized = await init.response;
    assert.equal(session.revision, initialized.result.protocolVersion);
    await wire.send({ jsonrpc: "2.0", method: "notifications/initialized" });

    const timed = request(
      1,
      "tools/call",
      { name: LONG, arguments: { duration: 4, steps: 20 }, _meta: { progressToken: "p1" } },
      { timeout: 400, resetTimeoutOnProgress: true, maxTotalTimeout: 1200 },
    );
    const timeoutReason = await aborted(timed.signal);
    assert.ok(timeoutReason instanceof DOMException);
    assert.equal(timeoutReason.name, "TimeoutError");
    const elapsed = at(log, isCancel) - at(log, isCall);
    assert.ok(Math.abs(elapsed - 1200) <= TOLERANCE_MS, `cancel at +${elapsed.toFixed(1)} ms, deadline +1200 ms`);

    const ac = new AbortController();
    const user = request(2, "tools/call", { name: LONG, arguments: { duration: 2, steps: 2 } }, { signal: ac.signal, timeout: 5000 });
    ac.abort();
    const userReason = await aborted(user.signal);
    assert.equal(userReason, ac.signal.reason, "a user abort gives signal.reason itself");
    assert.equal(userReason.name, "AbortError");
    await sleep(50);
    const sentCancels = log.filter((r) => isCancel(r.message)).map((r) => r.message.params);
    assert.deepEqual(sentCancels, [
      { requestId: 1, reason: "Request timed out" },
      { requestId: 2, reason: "Request cancelled" },
    ]);
    session.close();
  });
});

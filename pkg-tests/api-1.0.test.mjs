// What API 1.0 changed (CHANGELOG.md, "[1.0.0]"), one test per change: each fails against
// the 0.1 package and passes against 1.0. Memory is read from the package's own wasm linear
// memory, in a fresh instance of its Node build loaded for the test.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";

import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CancellationSession, guardTransport, InvalidArgumentError, McpCancelError, UsageError } from "mcp-cancel";

import { sleep } from "./helpers.mjs";

const require = createRequire(import.meta.url);

/**
 * A fresh instance of the package's Node build (dist/node/index.cjs and its wasm glue), with
 * its WebAssembly.Memory. The glue does not export its instance: it is caught as the glue
 * creates it (as bench/memory.mjs does).
 */
function freshPackage() {
  const RealInstance = WebAssembly.Instance;
  let instance;
  WebAssembly.Instance = function (module, imports) {
    instance = new RealInstance(module, imports);
    return instance;
  };
  try {
    for (const key of Object.keys(require.cache)) {
      if (key.includes("/dist/node/")) delete require.cache[key];
    }
    // The API the entries share in a process (js/node/entry.js's API_KEY): without it, a second
    // load of the entry hands out the first one's.
    delete globalThis[Symbol.for(`mcp-cancel ${fileURLToPath(new URL("../dist/node", import.meta.url))}`)];
    const pkg = require("../dist/node/index.cjs");
    assert.ok(instance?.exports.memory instanceof WebAssembly.Memory, "the glue made a wasm instance");
    return { pkg, memory: instance.exports.memory };
  } finally {
    WebAssembly.Instance = RealInstance;
  }
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** A transport whose wire is `wire` (every message sent, with its send options). */
function recordingTransport({ hasPerRequestStream } = {}) {
  const wire = [];
  const transport = {
    wire,
    sessionId: "session-1",
    pid: 4242,
    onmessage: undefined,
    onclose: undefined,
    onerror: undefined,
    start: async () => {},
    close: async () => {},
    async send(message, options) {
      wire.push({ message, options });
    },
    terminateSession() {
      return "terminated";
    },
  };
  if (hasPerRequestStream !== undefined) {
    Object.defineProperty(transport, "hasPerRequestStream", { get: () => hasPerRequestStream, enumerable: true });
  }
  return transport;
}

const isCancel = (m) => m.method === "notifications/cancelled";

describe("API 1.0", () => {
  test("1. guardTransport: no `session` option, null/undefined options, the inner transport's members as they are, two guards stacked", async () => {
    const inner = recordingTransport();
    assert.throws(
      () => guardTransport(inner, { session: new CancellationSession() }),
      (e) => e instanceof InvalidArgumentError && e.code === "ERR_INVALID_OPTION" && /guarded\.session/.test(e.message),
    );
    for (const options of [null, undefined]) {
      const guarded = guardTransport(recordingTransport(), options);
      assert.ok(guarded.session instanceof CancellationSession, `guardTransport(t, ${options})`);
    }

    const guarded = guardTransport(inner);
    // Reads: the same value; a method runs on the inner transport (bound to it, the same
    // bound function at every read), so `this.onmessage` in it is not the guard's.
    assert.equal(guarded.sessionId, "session-1");
    assert.equal(guarded.pid, 4242);
    assert.equal(guarded.terminateSession, guarded.terminateSession);
    assert.equal(guarded.terminateSession.name, "bound terminateSession");
    const probeInner = { start: async () => {}, send: async () => {}, close: async () => {}, self() { return this; } };
    assert.equal(guardTransport(probeInner).self(), probeInner, "a method's `this` is the inner transport");
    assert.equal(guarded.hasPerRequestStream, undefined);
    // Writes go to the inner transport; `in` sees its members; the guard's state is private.
    guarded.sessionId = "session-2";
    guarded.resumptionToken = "r-1";
    assert.equal(inner.sessionId, "session-2");
    assert.equal(inner.resumptionToken, "r-1");
    assert.ok("pid" in guarded && "terminateSession" in guarded && "resumptionToken" in guarded);
    assert.ok(!("nothing" in guarded));
    assert.ok(!Object.keys(guarded).some((k) => k.startsWith("_")), `no state of the guard's on it: ${Object.keys(guarded)}`);
    // Writes define nothing on the guard itself, and it is an ordinary `Object`.
    assert.ok(!Object.hasOwn(guarded, "sessionId") && !Object.hasOwn(guarded, "resumptionToken"));
    assert.ok(guarded instanceof Object && Object.prototype.isPrototypeOf(guarded));
    // The guard's own members stay the guard's.
    assert.notEqual(guarded.send, inner.send);
    assert.equal(guarded.inner, inner);

    // Two guards stacked over a transport with per-request streams (SDK 2.x Streamable HTTP).
    const http = recordingTransport({ hasPerRequestStream: true });
    const stacked = guardTransport(guardTransport(http), { onEvent: () => {} });
    assert.equal(stacked.hasPerRequestStream, true);
    await stacked.start();
    const sdkSignal = new AbortController();
    await stacked.send(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow" } },
      { relatedRequestId: 9, resumptionToken: "tok", requestSignal: sdkSignal.signal },
    );
    const [{ message, options }] = http.wire;
    assert.deepEqual(message, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow" } });
    assert.equal(options.relatedRequestId, 9, "the SDK's send options reach the wire transport");
    assert.equal(options.resumptionToken, "tok");
    assert.ok(options.requestSignal instanceof AbortSignal);
    assert.equal(options.requestSignal.aborted, false);
    sdkSignal.abort("user pressed stop");
    await sleep(10);
    assert.equal(options.requestSignal.aborted, true, "the SDK's abort closes the request's stream through both guards");
    assert.deepEqual(
      http.wire.map((r) => r.message).filter(isCancel),
      [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "user pressed stop" } }],
      "one cancel on the wire (before 2026-07-28 it is a notification)",
    );
  });

  test("2. cancel() with `send` puts the cancel on the wire exactly once and returns undefined; without `send` it returns the message", async () => {
    const [ours, peer] = InMemoryTransport.createLinkedPair();
    const wire = [];
    peer.onmessage = (m) => wire.push(m);
    await peer.start();
    await ours.start();
    let sends = 0;
    const session = new CancellationSession({
      send: (m) => {
        sends++;
        ours.send(m);
      },
    });
    session.track(1, "tools/call");
    // An application that puts whatever cancel() returns on the wire, as 0.1 told it to.
    const returned = session.cancel(1, "user pressed stop");
    if (returned !== undefined) await ours.send(returned);
    await sleep(10);
    assert.equal(returned, undefined);
    assert.equal(sends, 1);
    assert.deepEqual(wire, [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "user pressed stop" } }]);

    const sansIo = new CancellationSession();
    sansIo.track(2, "tools/call");
    const message = sansIo.cancel(2, "user pressed stop");
    assert.deepEqual(message, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "user pressed stop" } });
    await ours.send(message);
    await sleep(10);
    assert.equal(wire.filter(isCancel).length, 2, "the returned message is the one cancel of request 2");
    await ours.close();
  });

  test("3. 0.1's option names (timeoutMs, maxTotalTimeoutMs, logger) are InvalidArgumentErrors that name them and their 1.0 names", () => {
    const renamed = [
      ["timeoutMs", "timeout", 500],
      ["maxTotalTimeoutMs", "maxTotalTimeout", 500],
      ["logger", "onEvent", () => {}],
    ];
    const names = (old, now) => (e) =>
      e instanceof InvalidArgumentError &&
      e.code === "ERR_INVALID_OPTION" &&
      e.requestId === old &&
      e.message.includes(`\`${old}\``) &&
      e.message.includes(`\`${now}\``);
    for (const [old, now, value] of renamed) {
      assert.throws(() => new CancellationSession({ send: () => {}, [old]: value }), names(old, now), `new CancellationSession({ ${old} })`);
      assert.throws(() => guardTransport(recordingTransport(), { [old]: value }), names(old, now), `guardTransport(t, { ${old} })`);
    }
    const session = new CancellationSession({ send: () => {} });
    for (const [old, now, value] of renamed.slice(0, 2)) {
      assert.throws(() => session.track(1, "tools/call", { [old]: value }), names(old, now), `track(…, { ${old} })`);
    }
    assert.equal(session.inFlightCount, 0, "nothing was tracked");
  });

  test("4. a timeout above 2^31-1 ms: armed in steps, no TimeoutOverflowWarning, no busy loop, nothing sent", async (t) => {
    const warnings = [];
    const onWarning = (w) => warnings.push(w);
    process.on("warning", onWarning);
    const realSetTimeout = globalThis.setTimeout;
    const delays = [];
    globalThis.setTimeout = function (fn, ms, ...args) {
      delays.push(ms);
      return realSetTimeout(fn, ms, ...args);
    };
    const sent = [];
    let session;
    try {
      session = new CancellationSession({ send: (m) => sent.push(m) });
      session.track(1, "tools/call", { timeout: 3_000_000_000 });
      session.track(2, "tools/call", { maxTotalTimeout: 3_000_000_000 });
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
    await sleep(200);
    process.off("warning", onWarning);
    t.diagnostic(`setTimeout delays armed: ${JSON.stringify(delays)}`);
    session.close();
    assert.deepEqual(warnings.filter((w) => w.name === "TimeoutOverflowWarning"), []);
    assert.ok(delays.length >= 1, "a timer is armed for the deadline");
    assert.ok(delays.length <= 2, `no busy loop: ${delays.length} timers armed`);
    assert.ok(delays.every((ms) => ms <= 2 ** 31 - 1 && ms > 2 ** 31 - 1 - 1000), `one step of 2^31-1 ms: ${delays}`);
    assert.deepEqual(sent, [], "no cancel");
  });

  test("5. three messages with 64 MB strings (a reason, a method, an id) barely touch wasm memory", (t) => {
    const { pkg, memory } = freshPackage();
    const events = [];
    const session = new pkg.CancellationSession({ onEvent: (e) => events.push(e) });
    const feed = (text, id) => {
      session.shouldDropIncoming({ jsonrpc: "2.0", id, method: "sampling/createMessage", params: {} });
      const signal = session.inboundSignal(id);
      // 1. the peer cancels its request with a huge reason
      assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: text } }), false);
      assert.equal(signal.aborted, true);
      // 2. a notification with a huge method
      assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: text, params: {} }), false);
      // 3. a request and a response with a huge id
      assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: text, method: "tools/call", params: {} }), false);
      assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: text, result: {} }), false);
      return signal;
    };
    // Warm-up with strings the reader cuts the same way (anything over 8 KiB).
    feed("y".repeat(16 * KiB), 1);
    const before = memory.buffer.byteLength;
    const huge = "x".repeat(64 * MiB);
    const signal = feed(huge, 2);
    const grown = memory.buffer.byteLength - before;
    t.diagnostic(`wasm linear memory: ${before} bytes before, grew by ${grown} bytes over three 64 MB strings`);
    assert.ok(grown <= 4 * KiB, `wasm memory grew by ${grown} bytes`);
    const received = events.filter((e) => e.type === "cancel-received").at(-1);
    assert.ok(received.reason.length <= 1024, `the reason in the event is capped (${received.reason.length})`);
    assert.ok(signal.reason.length <= 4096, "and in the inbound signal's reason (the peer's reason string)");
    session.close();
  });

  test("6. 300 000 peer requests never answered: wasm memory flat after the first 10 000, inbound-forgotten reported", (t) => {
    const { pkg, memory } = freshPackage();
    let forgotten = 0;
    let firstForgotten;
    const session = new pkg.CancellationSession({
      onEvent: (e) => {
        if (e.type !== "inbound-forgotten") return;
        forgotten++;
        firstForgotten ??= e;
      },
    });
    const N = 300_000;
    let at10k;
    for (let i = 0; i < N; i++) {
      // Our answers never go through beforeSend: the peer's requests stay "in flight".
      session.shouldDropIncoming({ jsonrpc: "2.0", id: i, method: "sampling/createMessage", params: { messages: [] } });
      if (i + 1 === 10_000) at10k = memory.buffer.byteLength;
    }
    const end = memory.buffer.byteLength;
    t.diagnostic(`wasm linear memory: ${at10k} bytes after 10 000 peer requests, ${end} after ${N} (+${end - at10k}); ${forgotten} inbound-forgotten events`);
    assert.ok(end - at10k < MiB, `grew by ${end - at10k} bytes after the first 10 000`);
    assert.ok(forgotten > 0, "an inbound-forgotten event");
    assert.deepEqual(
      { type: firstForgotten.type, direction: firstForgotten.direction, requestId: firstForgotten.requestId, method: firstForgotten.method },
      { type: "inbound-forgotten", direction: "inbound", requestId: 0, method: "sampling/createMessage" },
    );
    assert.equal(session.inboundSignal(0), undefined, "the oldest is forgotten");
    assert.ok(session.inboundSignal(N - 1) instanceof AbortSignal, "the newest is still known");
    session.close();
  });

  test("7. a wrong type from the caller is an InvalidArgumentError, never a wasm trap; after free() every call is a no-op or ERR_CLOSED", () => {
    const notATrap = (code) => (e) =>
      !(e instanceof WebAssembly.RuntimeError) && e instanceof InvalidArgumentError && e instanceof McpCancelError && e.code === code;
    const sent = [];
    const session = new CancellationSession({ send: (m) => sent.push(m) });
    assert.throws(() => session.track(1, 42), notATrap("ERR_INVALID_ARGUMENT"));
    assert.throws(() => session.track(1, undefined), notATrap("ERR_INVALID_ARGUMENT"));
    assert.throws(() => session.track(1, "tools/call", 5), notATrap("ERR_INVALID_OPTION"));
    assert.throws(() => session.track(1, "tools/call", { signal: "no" }), notATrap("ERR_INVALID_OPTION"));
    assert.throws(() => session.setProtocolVersion(5), notATrap("ERR_INVALID_ARGUMENT"));
    assert.throws(() => session.cancel({ id: 1 }), notATrap("ERR_INVALID_REQUEST_ID"));
    assert.throws(() => new CancellationSession(5), notATrap("ERR_INVALID_OPTION"));
    assert.equal(session.inFlightCount, 0);

    const ac = new AbortController();
    session.track(2, "tools/call", { signal: ac.signal });
    session.shouldDropIncoming({ jsonrpc: "2.0", id: 3, method: "roots/list" });
    session.free();
    session.free(); // twice is harmless
    session.close();
    assert.equal(session.closed, true);
    assert.throws(() => session.track(4, "tools/call"), (e) => e instanceof UsageError && e.code === "ERR_CLOSED");
    ac.abort("after free"); // its listener went with the session
    const response = { jsonrpc: "2.0", id: 3, result: {} };
    assert.equal(session.cancel(2, "x"), undefined);
    assert.equal(session.signal(2), undefined);
    assert.equal(session.inboundSignal(3), undefined);
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 2, result: {} }), false);
    assert.equal(session.shouldDropResponse(2), false);
    assert.equal(session.shouldDropProgress(2), false);
    assert.equal(session.beforeSend(response), response);
    assert.equal(session.setProtocolVersion("2025-06-18"), undefined);
    assert.equal(session.isInFlight(2), false);
    assert.equal(session.inFlightCount, 0);
    assert.equal(session.tombstoneCount, 0);
    assert.equal(session.revision, undefined);
    session[Symbol.dispose]();
    assert.deepEqual(sent, [], "nothing was sent after free()");
  });

  test("8. the session's own tasks/cancel id never equals an id the application has in flight", () => {
    const sent = [];
    const session = new CancellationSession({ send: (m) => sent.push(m) });
    const appIds = ["mcp-cancel:1", "mcp-cancel:2", "mcp-cancel:3"];
    for (const id of appIds) session.track(id, "tools/call");
    session.track(7, "tools/call", { params: { name: "research", task: { ttl: 60_000 } } });
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 7, result: { task: { taskId: "task-7", status: "working" } } }), false);
    assert.equal(session.cancel(7, "user pressed stop"), undefined);
    assert.equal(sent.length, 1);
    const [tasksCancel] = sent;
    assert.equal(tasksCancel.method, "tasks/cancel");
    assert.deepEqual(tasksCancel.params, { taskId: "task-7" });
    assert.ok(!appIds.includes(tasksCancel.id), `tasks/cancel id ${tasksCancel.id} is not an application's`);
    // Each answer goes to its own asker: the application's responses reach it, the session's is consumed.
    for (const id of appIds) assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id, result: {} }), false, id);
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: tasksCancel.id, result: { taskId: "task-7", status: "cancelled" } }), true);
  });

  test("9. every shouldDrop* answers true = drop; isInFlight and inFlightCount agree for a task request", () => {
    const sent = [];
    const session = new CancellationSession({ send: (m) => sent.push(m) });
    session.track(1, "tools/call");
    session.track(2, "tools/call");
    session.track(3, "tools/call", { params: { _meta: { progressToken: "p3" } } });
    session.track(4, "tools/call", { params: { _meta: { progressToken: "p4" } } });
    for (const id of [1, 2, 3]) session.cancel(id, "stop");
    // Late (cancelled): true = drop.
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 1, result: {} }), true);
    assert.equal(session.shouldDropResponse({ jsonrpc: "2.0", id: 2, result: {} }), true);
    assert.equal(session.shouldDropProgress("p3"), true);
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p3", progress: 2 } }), true);
    // In flight: false = keep.
    assert.equal(session.shouldDropProgress("p4"), false);
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p4", progress: 1 } }), false);
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 4, result: {} }), false);
    assert.equal(session.shouldDropResponse(4), false, "a second response is not ours to drop");

    // isInFlight and inFlightCount, for task requests: cancelled once the taskId is known, and
    // cancelled before it is (the tasks/cancel deferred), with the session's own tasks/cancel ids.
    const tasks = new CancellationSession({ send: (m) => sent.push(m) });
    const ids = () => [10, 11, 12, ...sent.filter((m) => m.method === "tasks/cancel").map((m) => m.id)];
    const agree = (when) => {
      const inFlight = ids().filter((id) => tasks.isInFlight(id));
      assert.equal(tasks.inFlightCount, inFlight.length, `${when}: inFlightCount ${tasks.inFlightCount}, isInFlight true for ${JSON.stringify(inFlight)}`);
    };
    const task = { task: { ttl: 60_000 } };
    tasks.track(10, "tools/call", { params: task });
    tasks.track(11, "tools/call", { params: task });
    tasks.track(12, "tools/call");
    agree("tracked");
    tasks.shouldDropIncoming({ jsonrpc: "2.0", id: 10, result: { task: { taskId: "t-10", status: "working" } } });
    agree("task 10 running");
    tasks.cancel(10, "stop");
    agree("task 10 cancelled (tasks/cancel sent)");
    tasks.cancel(11, "stop");
    agree("task 11 cancelled before its taskId (deferred)");
    tasks.shouldDropIncoming({ jsonrpc: "2.0", id: 11, result: { task: { taskId: "t-11", status: "working" } } });
    agree("task 11's tasks/cancel sent");
    for (const m of sent.filter((m) => m.method === "tasks/cancel")) {
      tasks.shouldDropIncoming({ jsonrpc: "2.0", id: m.id, result: { taskId: m.params.taskId, status: "cancelled" } });
    }
    agree("tasks/cancel answered");
    assert.equal(tasks.isInFlight(12), true);
  });
});

// CancellationSession from the built package (the real .wasm), through the package name.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { CancellationSession, InvalidArgumentError, McpCancelError, UsageError } from "mcp-cancel";

function recorder(options = {}) {
  const sent = [];
  const events = [];
  const session = new CancellationSession({ send: (m) => sent.push(m), onEvent: (e) => events.push(e), ...options });
  return { session, sent, events };
}

/** A session without `send` (sans-IO): `cancel()` returns the message to put on the wire. */
function sansIo(options = {}) {
  const events = [];
  const session = new CancellationSession({ onEvent: (e) => events.push(e), ...options });
  return { session, events };
}

describe("track / cancel / shouldDropResponse", () => {
  test("an abort in flight hands exactly one notifications/cancelled to send, and the late result is dropped", () => {
    const { session, sent, events } = recorder();
    const ac = new AbortController();
    session.track(1, "tools/call", { signal: ac.signal, params: { _meta: { progressToken: "p1" } } });
    ac.abort("user pressed stop");
    assert.deepEqual(sent, [
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "user pressed stop" } },
    ]);
    assert.equal(session.shouldDropProgress("p1"), true);
    assert.equal(session.shouldDropResponse(1), true);
    assert.deepEqual(
      events.map((e) => e.type),
      ["cancel-sent", "late-progress-dropped", "late-response-dropped"],
    );
  });

  test("cancel() with send: the notification goes to send once, cancel() returns undefined; the first reason wins", () => {
    const { session, sent } = recorder();
    session.track("a", "tools/call");
    assert.equal(session.cancel("a", "first"), undefined);
    assert.deepEqual(sent, [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a", reason: "first" } }]);
    assert.equal(session.cancel("a", "second"), undefined);
    assert.equal(sent.length, 1);
  });

  test("cancel() without send returns the notification once; the first reason wins", () => {
    const { session } = sansIo();
    session.track("a", "tools/call");
    const first = session.cancel("a", "first");
    assert.deepEqual(first, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a", reason: "first" } });
    assert.equal(session.cancel("a", "second"), undefined);
  });

  test("a response in flight is delivered and completes the request; unknown ids are not dropped", () => {
    const { session, sent } = recorder();
    const ac = new AbortController();
    session.track(2, "tools/call", { signal: ac.signal });
    assert.equal(session.shouldDropResponse(2), false);
    assert.equal(session.isInFlight(2), false);
    ac.abort();
    assert.equal(sent.length, 0, "no cancel after completion");
    assert.equal(session.shouldDropResponse(99), false);
    assert.equal(session.shouldDropResponse(null), false);
  });

  test("an already-aborted signal throws signal.reason and nothing is tracked or sent", () => {
    const { session, sent } = recorder();
    const reason = new Error("too late");
    assert.throws(() => session.track(3, "tools/call", { signal: AbortSignal.abort(reason) }), (e) => e === reason);
    assert.equal(session.isInFlight(3), false);
    assert.equal(sent.length, 0);
  });

  test("\"1\" and 1 are different ids; 0 and \"\" are valid", () => {
    const { session, sent } = recorder();
    session.track(1, "tools/call");
    session.track("1", "tools/call");
    session.track(0, "tools/call");
    session.track("", "tools/call");
    session.cancel(1);
    assert.equal(session.shouldDropResponse("1"), false);
    assert.equal(session.shouldDropResponse(1), true);
    session.cancel(0, "x");
    session.cancel("", "x");
    assert.deepEqual(sent.map((m) => m.params.requestId), [1, 0, ""]);
    assert.equal(session.tombstoneCount, 2);
  });

  test("Error reasons are not sent to the peer unless exposeErrorReasons", () => {
    const closed = recorder();
    closed.session.track(1, "tools/call");
    closed.session.cancel(1, new TypeError("secret internal detail"));
    assert.deepEqual(closed.sent.map((m) => m.params.reason), ["Request cancelled"]);
    const open = recorder({ exposeErrorReasons: true, genericReason: "stopped" });
    open.session.track(1, "tools/call");
    open.session.cancel(1, new TypeError("detail"));
    open.session.track(2, "tools/call");
    open.session.cancel(2, new DOMException("t", "TimeoutError"));
    assert.deepEqual(open.sent.map((m) => m.params.reason), ["TypeError: detail", "Request timed out"]);
    // The same policy on the message cancel() returns without send.
    const bare = sansIo();
    bare.session.track(1, "tools/call");
    assert.equal(bare.session.cancel(1, new TypeError("secret internal detail")).params.reason, "Request cancelled");
  });

  test("tombstones are bounded by tombstoneCapacity", () => {
    const { session } = recorder({ tombstoneCapacity: 4 });
    for (let i = 0; i < 50; i++) {
      session.track(i, "tools/call");
      session.cancel(i);
    }
    assert.equal(session.tombstoneCount, 4);
    assert.equal(session.shouldDropResponse(45), false, "evicted: unknown");
    assert.equal(session.shouldDropResponse(49), true);
  });

  test("a cancel made from inside send (cascading to another request) does not change the reason the first request's signal aborts with", () => {
    const sent = [];
    let session;
    session = new CancellationSession({
      send: (m) => {
        sent.push(m);
        // Cancelling the parent cancels its child too, from inside send.
        if (m.params.requestId === "parent") session.cancel("child", "parent went away");
      },
    });
    session.track("parent", "tools/call");
    session.track("child", "tools/call");
    const parent = session.signal("parent");
    const child = session.signal("child");
    session.cancel("parent", "user pressed stop");
    assert.equal(parent.reason, "user pressed stop");
    assert.equal(child.reason, "parent went away");
    assert.deepEqual(
      sent.map((m) => [m.params.requestId, m.params.reason]),
      [
        ["parent", "user pressed stop"],
        ["child", "parent went away"],
      ],
    );
  });

  test("a cancel names the request by the caller's own id: a string with an unpaired surrogate is sent as it is", () => {
    // The id crosses into wasm as UTF-8 (the surrogate becomes U+FFFD there); the message
    // carries the caller's value, the one the request itself went out with.
    const id = "job-\uD800";
    const { session, sent } = recorder();
    session.track(id, "tools/call");
    session.cancel(id, "stop");
    const ac = new AbortController();
    session.track("other-\uDC00", "tools/call", { signal: ac.signal });
    ac.abort("stop too");
    assert.deepEqual(
      sent.map((m) => m.params.requestId),
      [id, "other-\uDC00"],
    );
    const bare = sansIo();
    bare.session.track(id, "tools/call");
    assert.equal(bare.session.cancel(id).params.requestId, id);
  });

  test("no options, null and {} are the same defaults: a client, 1024 tombstones, the generic reason for an Error", () => {
    for (const options of [undefined, null, {}]) {
      const session = new CancellationSession(options);
      // A client: the server's request to us is the peer's, our response to it passes.
      assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: "s1", method: "sampling/createMessage", params: {} }), false);
      // An Error's text is not sent (exposeErrorReasons false), the generic reason is.
      session.track(0, "tools/call");
      assert.deepEqual(session.cancel(0, new Error("secret path /home/x")), {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 0, reason: "Request cancelled" },
      });
      // 1024 tombstones, the oldest forgotten first.
      for (let id = 1; id <= 1030; id++) {
        session.track(id, "tools/call");
        session.cancel(id);
      }
      assert.equal(session.tombstoneCount, 1024, `options ${JSON.stringify(options)}`);
      assert.equal(session.shouldDropResponse(6), false);
      assert.equal(session.shouldDropResponse(7), true);
      // No timeout: a request without `send` is tracked (a default timeout would refuse it).
      session.track(2000, "tools/call");
      assert.equal(session.isInFlight(2000), true);
      session.close();
    }
  });
});

describe("typed errors", () => {
  test("invalid ids throw InvalidArgumentError with code and the value", () => {
    const { session } = recorder();
    for (const bad of [1.5, NaN, Infinity, 2 ** 53, -(2 ** 53), null, undefined, true, {}, [], 10n]) {
      assert.throws(
        () => session.track(bad, "tools/call"),
        (e) => e instanceof InvalidArgumentError && e instanceof McpCancelError && e.code === "ERR_INVALID_REQUEST_ID" && Object.is(e.requestId, bad),
        String(bad),
      );
    }
  });

  test("beforeSend(): a request whose id or progress token is not one names the caller's own value", () => {
    const { session } = recorder();
    for (const bad of [{}, [], true, null, 1.5]) {
      const message = { jsonrpc: "2.0", id: bad, method: "tools/call", params: {} };
      assert.throws(
        () => session.beforeSend(message),
        (e) => e instanceof InvalidArgumentError && e.code === "ERR_INVALID_REQUEST_ID" && Object.is(e.requestId, bad) && e.message.startsWith("request id: "),
        String(bad),
      );
      const token = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { _meta: { progressToken: bad } } };
      assert.throws(
        () => session.beforeSend(token),
        (e) => e instanceof InvalidArgumentError && e.code === "ERR_INVALID_REQUEST_ID" && Object.is(e.requestId, bad) && e.message.startsWith("params._meta.progressToken: "),
        `token ${String(bad)}`,
      );
    }
    assert.equal(session.inFlightCount, 0);
  });

  test("track(): a signal whose `aborted` getter throws is refused after what is wrong with the id, with what it threw", () => {
    const { session } = recorder();
    const boom = new Error("boom");
    const signal = { addEventListener() {}, get aborted() { throw boom; } };
    assert.throws(() => session.track({}, "tools/call", { signal, timeout: 5 }), (e) => e.code === "ERR_INVALID_REQUEST_ID");
    assert.throws(() => session.track(1, "tools/call", { signal, timeout: 5 }), (e) => e === boom);
    assert.equal(session.isInFlight(1), false);
  });

  test("tracking an id in flight twice and cancelling initialize throw UsageError", () => {
    const { session, sent } = recorder();
    session.track(0, "initialize");
    assert.throws(() => session.track(0, "initialize"), (e) => e instanceof UsageError && e.code === "ERR_ALREADY_IN_FLIGHT" && e.requestId === 0);
    assert.throws(() => session.cancel(0), (e) => e instanceof UsageError && e.code === "ERR_HANDSHAKE_NOT_CANCELLABLE");
    assert.equal(sent.length, 0);
    assert.equal(session.isInFlight(0), true);
  });

  test("sans-IO cancel() called again from an event handler: each call returns its own message", () => {
    const inner = [];
    let session;
    session = new CancellationSession({
      onEvent: (e) => {
        // The first event of the outer cancel: cancel another request from inside it.
        if (inner.length === 0 && session.isInFlight(2)) inner.push(session.cancel(2, "inner"));
      },
    });
    session.track(1, "tools/call");
    session.track(2, "tools/call");
    const outer = session.cancel(1, "outer");
    assert.deepEqual(outer?.params, { requestId: 1, reason: "outer" });
    assert.equal(inner.length, 1, "the handler ran during the outer cancel");
    assert.deepEqual(inner[0]?.params, { requestId: 2, reason: "inner" });
  });

  test("bad options throw InvalidArgumentError ERR_INVALID_OPTION", () => {
    for (const options of [{ send: 5 }, { onEvent: "x" }, { tombstoneCapacity: -1 }, { tombstoneCapacity: 1.5 }, { maxReasonBytes: "9" }, { maxReasonBytes: 4097 }, { exposeErrorReasons: 1 }, { genericReason: 3 }, { cascadeReason: 3 }, { onCascade: "x" }, { timeout: Infinity }, { maxTotalTimeout: -1 }, { resetTimeoutOnProgress: "yes" }, { transport: "sse" }, { protocolVersion: 2025 }]) {
      assert.throws(() => new CancellationSession(options), (e) => e instanceof InvalidArgumentError && e.code === "ERR_INVALID_OPTION", JSON.stringify(options));
    }
    // The first unknown option, in the object's order, is the one named, with the known ones.
    assert.throws(
      () => new CancellationSession({ send() {}, bogus: 1, other: 2 }),
      (e) =>
        e instanceof InvalidArgumentError &&
        e.requestId === "bogus" &&
        e.message.startsWith("CancellationSession: unknown option `bogus`; known options: send, closeStream, onTimeout, onCascade, cascadeReason, role, onEvent,"),
    );
    // The wrong member's value is the error's value.
    assert.throws(() => new CancellationSession({ maxReasonBytes: 4097 }), (e) => e.requestId === 4097 && e.message === "CancellationSession: option `maxReasonBytes` must be an integer from 0 to 4096");
    // track(): what is wrong with the id or the method is said first, then the options.
    const session = new CancellationSession({ send() {} });
    assert.throws(() => session.track({}, "tools/call", { bogus: 1 }), (e) => e.code === "ERR_INVALID_REQUEST_ID");
    assert.throws(() => session.track(1, 5, { timeout: -1 }), (e) => e.code === "ERR_INVALID_ARGUMENT");
    assert.throws(() => session.track(1, "tools/call", { timeout: -1 }), (e) => e.code === "ERR_INVALID_OPTION" && e.message === "track(): option `timeout` must be a finite non-negative number of milliseconds");
    assert.equal(session.inFlightCount, 0);
  });

  test("maxReasonBytes goes up to 4096, and a peer's reason is kept up to it", () => {
    const events = [];
    const session = new CancellationSession({ maxReasonBytes: 4096, onEvent: (e) => events.push(e) });
    session.shouldDropIncoming({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} });
    const signal = session.inboundSignal(1);
    const reason = "é".repeat(3000); // 6000 bytes of UTF-8
    session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason } });
    const received = events.find((e) => e.type === "cancel-received");
    assert.equal(received?.reason, "é".repeat(2048), "capped to 4096 bytes, on a character boundary");
    assert.equal(signal.aborted, true);
  });

  test("a message that is not a request is sent even with a signal that aborted (no signal belongs to it)", () => {
    const { session, sent } = recorder();
    const aborted = AbortSignal.abort(new Error("gone"));
    const progress = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } };
    assert.equal(session.beforeSend(progress, { signal: aborted }), progress);
    assert.throws(() => session.beforeSend({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} }, { signal: aborted }), /gone/);
    assert.equal(session.isInFlight(7), false);
    assert.deepEqual(sent, []);
  });
});

  // track(id, method, { signal }) is read in JS (only scalars cross); every other shape goes
  // through the core's own reading. The two must refuse and accept the same things.
  test("track() options: { signal } alone and every other shape give the same answers", () => {
    const invalidOption = (name) => (e) => e instanceof InvalidArgumentError && e.code === "ERR_INVALID_OPTION" && e.message.includes(name);
    const { session, sent } = recorder();
    const ac = new AbortController();
    assert.throws(() => session.track(1, "tools/call", { signal: ac.signal, bogus: 1 }), invalidOption("`bogus`"));
    assert.throws(() => session.track(1, "tools/call", { signal: "no" }), invalidOption("`signal`"));
    assert.throws(() => session.track(1, "tools/call", { signal: {} }), invalidOption("`signal`"));
    assert.throws(() => session.track({}, "tools/call", { signal: ac.signal }), (e) => e.code === "ERR_INVALID_REQUEST_ID");
    assert.throws(() => session.track(1, 5, { signal: ac.signal }), (e) => e.code === "ERR_INVALID_ARGUMENT");
    assert.equal(session.inFlightCount, 0, "nothing refused was tracked");
    // Options are read as JS reads them (an inherited `signal` counts, as in `fetch()`).
    session.track(1, "tools/call", Object.create({ signal: ac.signal }));
    // `{ signal: undefined }` and `{ signal: null }`: no signal.
    session.track(2, "tools/call", { signal: undefined });
    session.track(3, "tools/call", { signal: null });
    session.track(4, "tools/call", { signal: ac.signal });
    assert.throws(() => session.track(4, "tools/call", { signal: ac.signal }), (e) => e instanceof UsageError && e.code === "ERR_ALREADY_IN_FLIGHT");
    ac.abort("stop");
    assert.deepEqual(sent.map((m) => m.params.requestId), [1, 4], "only the requests tracked with the signal are cancelled");
    // What is wrong with the id is said before the signal's having aborted (as the core does).
    assert.throws(() => session.track({}, "tools/call", { signal: AbortSignal.abort("late") }), (e) => e.code === "ERR_INVALID_REQUEST_ID");
    // Without `send` (sans-IO) a signal has nowhere to send its cancel: refused, as in 0.x.
    // Every kind of id: a number, a short ASCII string (the core's words path), a longer one,
    // one that is not ASCII, and a method the core does not know.
    const { session: bare } = sansIo();
    for (const [id, method] of [[5, "tools/call"], ["req-5", "tools/call"], ["a-request-id-of-more-than-11-bytes", "tools/call"], ["réq", "tools/call"], [6, "x/custom"]]) {
      assert.throws(() => bare.track(id, method, { signal: new AbortController().signal }), (e) => e instanceof UsageError && e.code === "ERR_SEND_REQUIRED", String(id));
      assert.equal(bare.isInFlight(id), false, String(id));
      // The same request sent through `beforeSend` with its signal: refused as `track()` refuses
      // it (it was tracked and watched, and its abort made a cancel that could not be sent).
      const request = { jsonrpc: "2.0", id, method, params: {} };
      assert.throws(
        () => bare.beforeSend(request, { signal: new AbortController().signal }),
        (e) => e instanceof UsageError && e.code === "ERR_SEND_REQUIRED" && e.requestId === id && e.message.startsWith("beforeSend(): "),
        String(id),
      );
      assert.equal(bare.isInFlight(id), false, String(id));
      // Without a signal it is tracked (nothing of it can cancel itself); what is wrong with
      // an id is still said first.
      assert.equal(bare.beforeSend(request), request);
      assert.equal(bare.isInFlight(id), true, String(id));
      assert.equal(bare.shouldDropResponse(id), false);
    }
    assert.throws(() => bare.beforeSend({ jsonrpc: "2.0", id: 1.5, method: "tools/call" }, { signal: new AbortController().signal }), (e) => e.code === "ERR_INVALID_REQUEST_ID");
  });

  test("a session's default timeout is a timeout too: without send, a request that would run with it is refused", async () => {
    const events = [];
    const timedOut = [];
    for (const defaults of [{ timeout: 20 }, { maxTotalTimeout: 20 }]) {
      const bare = new CancellationSession({ ...defaults, onEvent: (e) => events.push(e.type), onTimeout: (id) => timedOut.push(id) });
      // Every path a request takes into the core: a number id and a short string id (the fast
      // paths), a long one and a method the core does not know (the general path), and a
      // request sent through beforeSend.
      for (const [id, method] of [[1, "tools/call"], ["req-1", "tools/call"], ["a-request-id-of-more-than-11-bytes", "tools/call"], [2, "x/custom"]]) {
        assert.throws(() => bare.track(id, method), (e) => e instanceof UsageError && e.code === "ERR_SEND_REQUIRED" && e.message.startsWith("track(): "), String(id));
        assert.equal(bare.isInFlight(id), false, String(id));
        assert.throws(
          () => bare.beforeSend({ jsonrpc: "2.0", id, method, params: {} }),
          (e) => e instanceof UsageError && e.code === "ERR_SEND_REQUIRED" && e.requestId === id && e.message.startsWith("beforeSend(): "),
          String(id),
        );
        assert.equal(bare.isInFlight(id), false, String(id));
      }
      // What runs with no timeout is accepted: the handshake (never timed) and
      // subscriptions/listen (the defaults skip it).
      bare.track(0, "initialize");
      assert.equal(bare.isInFlight(0), true);
      assert.equal(bare.beforeSend({ jsonrpc: "2.0", id: 3, method: "subscriptions/listen", params: {} }).id, 3);
      assert.equal(bare.isInFlight(3), true);
      bare.close();
    }
    // Nothing was tracked that could time out with nowhere to send its cancel.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(timedOut, []);
    assert.ok(!events.includes("send-failed") && !events.includes("timed-out"), String(events));
  });

describe("shouldDropIncoming / beforeSend on wire messages", () => {
  test("an SDK-style cancel for a request in flight goes out once with the reason policy applied", () => {
    const { session } = recorder();
    const request = { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "slow", _meta: { progressToken: 4 } } };
    assert.equal(session.beforeSend(request), request);
    const sdkCancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4, reason: "AbortError: This operation was aborted" } };
    const out = session.beforeSend(sdkCancel);
    assert.deepEqual(out, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4, reason: "Request cancelled" } });
    assert.equal(sdkCancel.params.reason, "AbortError: This operation was aborted", "the caller's object is not mutated");
    assert.equal(session.beforeSend(sdkCancel), undefined, "a second cancel is not sent");
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 4, progress: 2 } }), true);
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 4, result: { content: [] } }), true);
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 4, error: { code: -32603, message: "late" } }), false, "a second response is unknown, not ours to drop");
  });

  test("a string reason from the caller passes unchanged (same object)", () => {
    const { session } = recorder();
    session.beforeSend({ jsonrpc: "2.0", id: 5, method: "tools/call" });
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5, reason: "user pressed stop" } };
    assert.equal(session.beforeSend(cancel), cancel);
  });

  test("cancels for finished requests, unknown ids and initialize are not sent", () => {
    const { session, events } = recorder();
    session.beforeSend({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
    const cancel = (id) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "x" } });
    assert.equal(session.beforeSend(cancel(0)), undefined);
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 0, result: {} }), false);
    assert.equal(session.beforeSend(cancel(0)), undefined);
    assert.equal(session.beforeSend(cancel(42)), undefined);
    assert.deepEqual(
      events.map((e) => `${e.type}:${e.why}`),
      ["cancel-not-sent:handshake", "cancel-not-sent:not-in-flight", "cancel-not-sent:not-in-flight"],
    );
  });

  test("a valid peer cancel passes and aborts the inbound signal; our response is then suppressed", () => {
    const { session, events } = recorder();
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 0, method: "sampling/createMessage", params: {} }), false);
    const signal = session.inboundSignal(0);
    assert.equal(signal.aborted, false);
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0, reason: "closed" } }), false);
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, "closed", "the peer's reason, as the SDK's own request handlers see it");
    assert.equal(session.beforeSend({ jsonrpc: "2.0", id: 0, result: {} }), undefined);
    assert.deepEqual(events.map((e) => e.type), ["cancel-received", "response-suppressed"]);
  });

  test("a timeout aborts the own signal of a request whose string id has an unpaired surrogate", async () => {
    const id = "slow-\uD800";
    const { session, sent } = recorder();
    session.track(id, "tools/call", { timeout: 20 });
    const signal = session.signal(id);
    // The session's timer does not keep the process alive by itself.
    const alive = setTimeout(() => {}, 2000);
    const reason = await new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));
    clearTimeout(alive);
    assert.equal(reason.name, "TimeoutError");
    assert.equal(sent.length, 1, "the cancel went out");
    assert.equal(session.isInFlight(id), false);
  });

  test("texts that start with U+FEFF keep it: a timeout's cancel, onTimeout and the events name the id as given", async () => {
    // The core's output crosses as UTF-8 (js/records.js): a decoder that drops a leading
    // byte-order mark would name another id here (fails with `new TextDecoder()`'s default).
    const id = "\uFEFFslow";
    const timedOut = [];
    const { session, sent, events } = recorder({ onTimeout: (requestId) => timedOut.push(requestId) });
    session.track(id, "\uFEFFcustom/method", { timeout: 20 });
    const signal = session.signal(id);
    const alive = setTimeout(() => {}, 2000);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    clearTimeout(alive);
    assert.deepEqual(sent, [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "Request timed out" } }]);
    assert.deepEqual(timedOut, [id]);
    assert.equal(signal.reason.message, `Request "${id}" timed out`);
    const timedOutEvent = events.find((e) => e.type === "timed-out");
    assert.equal(timedOutEvent.requestId, id);
    assert.equal(timedOutEvent.method, "\uFEFFcustom/method");
    // The peer's reason in an event.
    session.shouldDropIncoming({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "x" } });
    session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "\uFEFFstop" } });
    assert.equal(events.find((e) => e.type === "cancel-received").reason, "\uFEFFstop");
  });

  test("ids that are one id to the core (they differ only in unpaired surrogates) never get each other's value", async () => {
    const { session, sent } = recorder();
    // Our cancel of one, then a timeout of the other: the timeout's signal aborts.
    session.track("job-\uD800", "tools/call");
    session.cancel("job-\uD800", "stop");
    session.track("job-\uDC00", "tools/call", { timeout: 20 });
    const own = session.signal("job-\uDC00");
    const alive = setTimeout(() => {}, 2000);
    await new Promise((resolve) => own.addEventListener("abort", resolve, { once: true }));
    clearTimeout(alive);
    assert.equal(own.reason.name, "TimeoutError");
    assert.equal(sent[0].params.requestId, "job-\uD800", "the cancel named the caller's own id");
    // The peer's request, and its cancel spelling the id another way: its signal aborts.
    session.shouldDropIncoming({ jsonrpc: "2.0", id: "c\uD800", method: "tools/call", params: { name: "x" } });
    const inbound = session.inboundSignal("c\uD800");
    session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "c\uDC00", reason: "r" } });
    assert.equal(inbound.aborted, true);
    assert.equal(inbound.reason, "r");
  });

  test("a peer cancel aborts the inbound signal of a string id with an unpaired surrogate, with the reason as the peer sent it", () => {
    // JSON.parse gives such strings ("\ud800" escapes); in wasm memory they are U+FFFD.
    const id = "call-\uD800";
    const reason = "stop \uDC00";
    const { session } = recorder();
    session.shouldDropIncoming({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "x" } });
    const signal = session.inboundSignal(id);
    session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } });
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, reason);
    assert.equal(session.beforeSend({ jsonrpc: "2.0", id, result: {} }), undefined);
  });

  test("malformed, unknown and wrong-direction peer cancels are dropped and reported, never thrown", () => {
    const { session, events } = recorder();
    session.shouldDropIncoming({ jsonrpc: "2.0", id: 7, method: "roots/list" });
    session.beforeSend({ jsonrpc: "2.0", id: 100, method: "tools/call" });
    const cases = [
      [undefined, "malformed", "params missing"],
      [[7], "malformed", "params is array, not an object"],
      ["7", "malformed", "params is string, not an object"],
      [{}, "malformed", "params.requestId missing"],
      [{ requestId: null }, "malformed", "params.requestId invalid: a request id must be a string or an integer number, not null"],
      [{ requestId: true }, "malformed", "params.requestId invalid: a request id must be a string or an integer number, not boolean"],
      [{ requestId: { id: 7 } }, "malformed", "params.requestId invalid: a request id must be a string or an integer number, not object"],
      [{ requestId: 7, reason: 1 }, "malformed", "params.reason is number, not a string"],
      [{ requestId: "7" }, "not-in-flight", undefined],
      [{ requestId: 8 }, "not-in-flight", undefined],
      [{ requestId: 100 }, "wrong-direction", undefined],
    ];
    for (const [params, why, detail] of cases) {
      events.length = 0;
      const msg = { jsonrpc: "2.0", method: "notifications/cancelled" };
      if (params !== undefined) msg.params = params;
      assert.equal(session.shouldDropIncoming(msg), true, JSON.stringify(params));
      assert.equal(events.length, 1);
      assert.equal(events[0].type, "cancel-ignored");
      assert.equal(events[0].why, why, JSON.stringify(params));
      assert.equal(events[0].detail, detail, JSON.stringify(params));
    }
    assert.equal(session.inboundSignal(7).aborted, false);
    assert.equal(session.isInFlight(100), true);
  });

  test("shouldDropIncoming never throws, whatever arrives", () => {
    const { session } = recorder();
    for (const junk of [null, undefined, 42, "x", [], {}, { id: {} }, { method: 5 }, { method: "notifications/progress" }, { method: "notifications/progress", params: 7 }, { id: null, error: {} }]) {
      assert.doesNotThrow(() => session.shouldDropIncoming(junk), JSON.stringify(junk));
    }
  });

  test("an onEvent that throws does not break the session", () => {
    const session = new CancellationSession({ onEvent: () => { throw new Error("onEvent broke"); } });
    session.track(1, "tools/call");
    assert.ok(session.cancel(1, "x"));
    assert.equal(session.shouldDropResponse(1), true);
  });
});

describe("the peer's requests, its cancels and our responses, with and without events", () => {
  // Without `onEvent`, messages whose ids cross as numbers (an integer, an ASCII string of
  // up to 11 bytes) take the core's numbers-only entry points; with it, or with
  // any other id, the general one. What reaches the application and the wire is the same.
  const ids = [7, 0, -3, 2 ** 53 - 1, "req-1", "", "abcdefghijk", "abcdefghijkl", "é", 1.5];
  const reasons = [undefined, "stop", "é".repeat(10), "x".repeat(40)];
  for (const events of [false, true]) {
    test(`${events ? "with" : "without"} events: a peer's cancel aborts the request's signal with its reason, our response is suppressed`, () => {
      for (const id of ids) {
        for (const reason of reasons) {
          const session = new CancellationSession({ maxReasonBytes: 32, ...(events ? { onEvent: () => {} } : {}) });
          const request = { jsonrpc: "2.0", id, method: "tools/call", params: { name: "slow" } };
          assert.equal(session.filterIncoming(request), request);
          const what = `id ${JSON.stringify(id)}, reason ${JSON.stringify(reason)}`;
          if (!Number.isInteger(id) && typeof id !== "string") {
            // Not a request id: never in flight; its cancel is dropped.
            assert.throws(() => session.inboundSignal(id), { code: "ERR_INVALID_REQUEST_ID" }, what);
            assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } }), true, what);
            continue;
          }
          const signal = session.inboundSignal(id);
          assert.equal(signal.aborted, false, what);
          const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: reason === undefined ? { requestId: id } : { requestId: id, reason } };
          assert.equal(session.filterIncoming(cancel), cancel, what);
          assert.equal(signal.aborted, true, what);
          if (reason === undefined) assert.equal(signal.reason.name, "AbortError", what);
          else if (Buffer.byteLength(reason) <= 32) assert.equal(signal.reason, reason, what);
          else assert.ok(reason.startsWith(signal.reason) && Buffer.byteLength(signal.reason) <= 32, what);
          // A second cancel of the same request, and our response to it.
          assert.equal(session.shouldDropIncoming(cancel), true, what);
          assert.equal(session.beforeSend({ jsonrpc: "2.0", id, result: {} }), undefined, what);
          // Now a response to it is ours to send again (it is forgotten).
          const again = { jsonrpc: "2.0", id, result: {} };
          assert.equal(session.beforeSend(again), again, what);
          session.close();
        }
      }
    });

    test(`${events ? "with" : "without"} events: cancels the peer may not send are dropped, responses to live requests go out`, () => {
      const session = new CancellationSession(events ? { onEvent: () => {} } : {});
      for (const id of [1, "r-1", "a-much-longer-id"]) {
        const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } };
        // Not in flight.
        assert.equal(session.shouldDropIncoming(cancel), true);
        // A request of ours: the peer may not cancel it.
        session.track(id, "tools/call");
        assert.equal(session.shouldDropIncoming(cancel), true);
        assert.equal(session.shouldDropResponse(id), false);
        // A reason that is not a string; params that are not an object.
        session.filterIncoming({ jsonrpc: "2.0", id, method: "ping" });
        const signal = session.inboundSignal(id);
        assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: 5 } }), true);
        assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: [id] }), true);
        assert.equal(signal.aborted, false);
        // The peer's handshake may not be cancelled.
        const response = { jsonrpc: "2.0", id, result: {} };
        assert.equal(session.beforeSend(response), response);
        assert.equal(signal.aborted, false);
        // The request is over: a new one with the same id gets a signal of its own.
        session.filterIncoming({ jsonrpc: "2.0", id, method: "ping" });
        const next = session.inboundSignal(id);
        assert.notEqual(next, signal);
        assert.equal(session.beforeSend(response), response);
        assert.equal(session.inboundSignal(id), undefined);
      }
      const init = { jsonrpc: "2.0", id: 99, method: "initialize", params: {} };
      session.filterIncoming(init);
      const signal = session.inboundSignal(99);
      assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } }), true);
      assert.equal(signal.aborted, false);
      session.close();
    });
  }
});

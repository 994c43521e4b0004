// The AbortSignals of the JS layer (the caller's signal's listener, a request's own signal,
// a peer request's signal): made in JS, aborted and released when the core's output says.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { getEventListeners } from "node:events";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";

import { CancellationSession } from "mcp-cancel";

function recorder(options = {}) {
  const sent = [];
  const session = new CancellationSession({ send: (m) => sent.push(m), ...options });
  return { session, sent };
}

/** An EventTarget standing in for a signal, counting its abort listeners. */
function countingSignal() {
  const target = new EventTarget();
  target.aborted = false;
  target.reason = undefined;
  target.live = 0;
  const add = target.addEventListener.bind(target);
  const remove = target.removeEventListener.bind(target);
  target.addEventListener = (kind, f) => {
    target.live++;
    add(kind, f);
  };
  target.removeEventListener = (kind, f) => {
    target.live--;
    remove(kind, f);
  };
  target.fire = (reason) => {
    target.aborted = true;
    target.reason = reason;
    target.dispatchEvent(new Event("abort"));
  };
  return target;
}

describe("signals", () => {
  test("the caller's listener is removed at the response, and a later abort sends nothing", () => {
    const { session, sent } = recorder();
    const signal = countingSignal();
    session.track(1, "tools/call", { signal });
    assert.equal(signal.live, 1);
    assert.equal(session.shouldDropResponse(1), false);
    assert.equal(signal.live, 0);
    signal.fire("late");
    assert.equal(sent.length, 0);
  });

  test("a native AbortSignal (read through its prototypes): listened to and released, its abort cancels with its reason, an aborted one throws it", () => {
    const { session, sent } = recorder();
    const done = new AbortController();
    session.track(1, "tools/call", { signal: done.signal });
    assert.equal(getEventListeners(done.signal, "abort").length, 1);
    assert.equal(session.shouldDropResponse(1), false);
    assert.equal(getEventListeners(done.signal, "abort").length, 0);
    done.abort("late");
    assert.equal(sent.length, 0);

    const stopped = new AbortController();
    session.track(2, "tools/call", { signal: stopped.signal });
    stopped.abort("user pressed stop");
    assert.deepEqual(sent, [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "user pressed stop" } }]);
    // Removed after the abort too: Node 20 keeps a signal of AbortSignal.any()
    // that has a listener in a strong set until the listener goes, aborted or not.
    assert.equal(getEventListeners(stopped.signal, "abort").length, 0);
    assert.equal(session.shouldDropResponse(2), true);

    const reason = new Error("gave up before sending");
    const before = AbortSignal.abort(reason);
    assert.throws(() => session.track(3, "tools/call", { signal: before }), (e) => e === reason);
    assert.throws(() => session.beforeSend({ jsonrpc: "2.0", id: 4, method: "tools/call", params: {} }, { signal: before }), (e) => e === reason);
    assert.equal(session.isInFlight(3) || session.isInFlight(4), false);
    assert.equal(sent.length, 1);
  });

  test("the caller's reason goes on the wire as the reason policy makes it: as is, or capped to maxReasonBytes", () => {
    const sent = [];
    const capped = new CancellationSession({ send: (m) => sent.push(m), maxReasonBytes: 8 });
    const a = new AbortController();
    capped.track(1, "tools/call", { signal: a.signal });
    a.abort("user pressed stop");
    capped.track(2, "tools/call");
    capped.cancel(2, "stöpped by the user");
    const asIs = new CancellationSession({ send: (m) => sent.push(m) });
    const b = new AbortController();
    asIs.track(3, "tools/call", { signal: b.signal });
    b.abort("user pressed stop");
    // A reason that is not a string: the generic reason, whatever the caller's text.
    const c = new AbortController();
    asIs.track(4, "tools/call", { signal: c.signal });
    c.abort(new Error("internal detail"));
    const sansIo = new CancellationSession({ maxReasonBytes: 4 });
    sansIo.track(5, "tools/call");
    assert.deepEqual(
      [...sent.map((m) => m.params), sansIo.cancel(5, "user pressed stop").params],
      [
        { requestId: 1, reason: "user pre" },
        { requestId: 2, reason: "stöpped" },
        { requestId: 3, reason: "user pressed stop" },
        { requestId: 4, reason: "Request cancelled" },
        { requestId: 5, reason: "user" },
      ],
    );
  });

  test("a native AbortSignal: EventTarget.prototype's methods are looked up at each call (a patch made after import sees the listener)", () => {
    const { session } = recorder();
    const original = { add: EventTarget.prototype.addEventListener, remove: EventTarget.prototype.removeEventListener };
    const seen = [];
    EventTarget.prototype.addEventListener = function (type, listener, options) {
      seen.push(`add ${type}`);
      return original.add.call(this, type, listener, options);
    };
    EventTarget.prototype.removeEventListener = function (type, listener, options) {
      seen.push(`remove ${type}`);
      return original.remove.call(this, type, listener, options);
    };
    try {
      const controller = new AbortController();
      session.track(1, "tools/call", { signal: controller.signal });
      session.shouldDropResponse(1);
    } finally {
      EventTarget.prototype.addEventListener = original.add;
      EventTarget.prototype.removeEventListener = original.remove;
    }
    assert.deepEqual(seen, ["add abort", "remove abort"]);
  });

  test("not real signals: a mock built on AbortSignal.prototype and a Proxy of a signal are used through their own members", () => {
    const { session, sent } = recorder();
    // A test double of the kind made with Object.create(AbortSignal.prototype, …): it
    // passes `instanceof AbortSignal`, and the prototype's members refuse it.
    const target = new EventTarget();
    const mock = Object.create(AbortSignal.prototype, {
      aborted: { value: false, writable: true },
      reason: { value: undefined, writable: true },
      addEventListener: { value: (type, f, o) => target.addEventListener(type, f, o) },
      removeEventListener: { value: (type, f, o) => target.removeEventListener(type, f, o) },
    });
    session.track(1, "tools/call", { signal: mock });
    mock.aborted = true;
    mock.reason = "from the mock";
    target.dispatchEvent(new Event("abort"));
    assert.deepEqual(sent.map((m) => m.params), [{ requestId: 1, reason: "from the mock" }]);
    const aborted = Object.create(AbortSignal.prototype, { aborted: { value: true }, reason: { value: "already" }, addEventListener: { value() {} } });
    assert.throws(() => session.track(2, "tools/call", { signal: aborted }), (e) => e === "already");
    assert.throws(() => session.beforeSend({ jsonrpc: "2.0", id: 3, method: "tools/call", params: {} }, { signal: aborted }), (e) => e === "already");

    // A Proxy whose methods are bound to the real signal (browsers refuse a Proxy in the
    // prototypes' members; Node does not): either way it works.
    const controller = new AbortController();
    const real = controller.signal;
    const proxy = new Proxy(real, { get: (t, k) => (typeof t[k] === "function" ? t[k].bind(t) : t[k]) });
    session.track(4, "tools/call", { signal: proxy });
    controller.abort("through the proxy");
    assert.deepEqual(sent.at(-1).params, { requestId: 4, reason: "through the proxy" });
    assert.equal(session.isInFlight(2) || session.isInFlight(3), false);
  });

  test("a signal whose addEventListener throws: track() throws that error and the id is not left in flight", () => {
    const { session } = recorder();
    const broken = { aborted: false, reason: undefined, addEventListener() { throw new Error("no listeners here"); } };
    assert.throws(() => session.track(1, "tools/call", { signal: broken }), /no listeners here/);
    assert.equal(session.isInFlight(1), false);
    session.track(1, "tools/call"); // the id is free again
    assert.equal(session.isInFlight(1), true);
  });

  test("an AbortSignal polyfill installed before import (not an EventTarget): used through its own members", async () => {
    // A fresh process: the polyfill must replace the global before mcp-cancel is loaded.
    const script = `
      class PolySignal {
        #aborted = false; #reason; #listeners = [];
        get aborted() { return this.#aborted; }
        get reason() { return this.#reason; }
        addEventListener(type, f) { this.#listeners.push(f); }
        removeEventListener(type, f) { this.#listeners = this.#listeners.filter((g) => g !== f); }
        fire(reason) { this.#aborted = true; this.#reason = reason; for (const f of this.#listeners) f(); }
        get count() { return this.#listeners.length; }
      }
      globalThis.AbortSignal = PolySignal;
      const { CancellationSession } = await import("mcp-cancel");
      const sent = [];
      const s = new CancellationSession({ send: (m) => sent.push(m) });
      const a = new PolySignal(), b = new PolySignal();
      s.track(1, "tools/call", { signal: a });
      s.track(2, "tools/call", { signal: b });
      a.fire("stop from a polyfill");
      s.shouldDropResponse(2);
      console.log(JSON.stringify({ sent: sent.map((m) => m.params), left: [a.count, b.count] }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { cwd: import.meta.dirname, timeout: 20_000 });
    assert.deepEqual(JSON.parse(stdout), { sent: [{ requestId: 1, reason: "stop from a polyfill" }], left: [0, 0] });
  });

  test("a reason with an unpaired surrogate goes on the wire as its UTF-8 conversion makes it (U+FFFD), as before", () => {
    const { session, sent } = recorder();
    session.track(1, "tools/call");
    session.cancel(1, "a\uD800b");
    const controller = new AbortController();
    session.track(2, "tools/call", { signal: controller.signal });
    controller.abort("c\uDC00d");
    assert.deepEqual(sent.map((m) => m.params.reason), ["a\uFFFDb", "c\uFFFDd"]);
  });

  test("a send that closes the session: the cancelled request's own signal still aborts and its listener goes", () => {
    const sent = [];
    for (const id of [7, "req-7"]) {
      const session = new CancellationSession({
        send: (m) => {
          sent.push(m);
          session.close();
        },
      });
      const caller = countingSignal();
      session.track(id, "tools/call", { signal: caller });
      const own = session.signal(id);
      caller.fire("stop");
      assert.equal(own.aborted, true, `${id}`);
      assert.equal(own.reason, "stop");
      assert.equal(caller.live, 0, `${id}: the listener is removed`);
    }
    assert.deepEqual(sent.map((m) => [m.params.requestId, m.params.reason]), [[7, "stop"], ["req-7", "stop"]]);
  });

  test("a callback that tracks the id again (a retry): the cancelled request's signal aborts, the new request keeps its own and its listener", async () => {
    // Each callback that runs while the cancelled request's output is done: `send` (fast and
    // general paths: the general path when `onEvent` is given), `onEvent`, a listener of the
    // cancelled request's own signal, `onTimeout`.
    const cases = [
      ["send, fast path", {}, "send"],
      ["send, general path", { onEvent: () => {} }, "send"],
      ["onEvent", {}, "onEvent"],
      ["own signal's listener", {}, "own"],
      ["onTimeout", {}, "onTimeout"],
    ];
    for (const id of [7, "req-7"]) {
      for (const [label, options, where] of cases) {
        const sent = [];
        let retried;
        const retry = () => {
          if (retried !== undefined) return;
          const caller = countingSignal();
          session.track(id, "tools/call", { signal: caller });
          retried = { caller, own: session.signal(id) };
        };
        const session = new CancellationSession({
          ...options,
          send: (m) => {
            sent.push(m);
            if (where === "send") retry();
          },
          ...(where === "onEvent" ? { onEvent: (e) => e.type === "cancel-sent" && retry() } : {}),
          ...(where === "onTimeout" ? { onTimeout: retry } : {}),
        });
        const first = countingSignal();
        session.track(id, "tools/call", { signal: first, ...(where === "onTimeout" ? { timeout: 10 } : {}) });
        const own = session.signal(id);
        if (where === "own") own.addEventListener("abort", retry);
        if (where === "onTimeout") await sleep(80);
        else first.fire("stop");
        const what = `${label}, id ${JSON.stringify(id)}`;
        assert.equal(own.aborted, true, `${what}: the cancelled request's own signal aborts`);
        assert.equal(first.live, 0, `${what}: its listener goes`);
        assert.ok(retried !== undefined, `${what}: the callback ran`);
        assert.equal(retried.own.aborted, false, `${what}: the new request's own signal does not abort`);
        assert.equal(retried.caller.live, 1, `${what}: the new request's listener stays`);
        assert.equal(session.isInFlight(id), true, what);
        // The new request's caller still cancels it, once.
        retried.caller.fire("stop again");
        assert.equal(retried.own.aborted, true, what);
        assert.equal(retried.own.reason, "stop again", what);
        assert.equal(retried.caller.live, 0, what);
        assert.deepEqual(sent.map((m) => m.params.requestId), [id, id], what);
        session.close();
      }
    }
  });

  test("a callback that takes the peer's id again: the cancelled request's signal aborts, the new request's does not", () => {
    // The peer cancels its request, and a callback that runs before the session has aborted
    // that request's signal (`onEvent` at `cancel-received`) takes a new request of the peer
    // with the same id and asks for its signal: it gets a signal of its own, which the
    // peer's cancel of the earlier request does not abort.
    for (const id of [7, "req-7"]) {
      const what = `id ${JSON.stringify(id)}`;
      const request = { jsonrpc: "2.0", id, method: "tools/call", params: { name: "slow" } };
      let again;
      const session = new CancellationSession({
        role: "server",
        send: () => {},
        onEvent: (e) => {
          if (e.type !== "cancel-received" || again !== undefined) return;
          assert.equal(session.shouldDropIncoming({ ...request }), false, `${what}: the new request is taken`);
          again = session.inboundSignal(id);
        },
      });
      assert.equal(session.shouldDropIncoming(request), false);
      const first = session.inboundSignal(id);
      session.filterIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "stop" } });
      assert.equal(first.aborted, true, `${what}: the cancelled request's signal aborts`);
      assert.equal(first.reason, "stop", what);
      assert.ok(again !== undefined, `${what}: the callback got a signal for the new request`);
      assert.notEqual(again, first, `${what}: not the cancelled request's signal`);
      assert.equal(again.aborted, false, `${what}: the new request's signal does not abort`);
      // The peer's cancel of the new request aborts its own signal, once.
      session.filterIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "stop again" } });
      assert.equal(again.aborted, true, what);
      assert.equal(again.reason, "stop again", what);
      session.close();
    }
  });

  test("a number id -0 is cancelled as 0, the core's id, on every path", () => {
    for (const onEvent of [undefined, () => {}]) {
      const { session, sent } = recorder(onEvent ? { onEvent } : {});
      session.track(-0, "tools/call");
      session.cancel(-0, "stop");
      assert.equal(sent.length, 1);
      assert.ok(Object.is(sent[0].params.requestId, 0), `requestId ${Object.is(sent[0].params.requestId, -0) ? "-0" : sent[0].params.requestId}`);
    }
  });

  test("the listener goes at the response by number id, string id or whole message, and not at another's", () => {
    const { session } = recorder();
    const [a, b, c] = [countingSignal(), countingSignal(), countingSignal()];
    session.track(1, "tools/call", { signal: a });
    session.track("req-1", "tools/call", { signal: b });
    session.track(2, "tools/call", { signal: c });
    assert.equal(session.shouldDropResponse("req-1"), false);
    assert.deepEqual([a.live, b.live, c.live], [1, 0, 1]);
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 1, result: {} }), false);
    assert.deepEqual([a.live, b.live, c.live], [0, 0, 1]);
    assert.equal(session.shouldDropResponse({ jsonrpc: "2.0", id: 2, error: { code: -32603, message: "x" } }), false);
    assert.deepEqual([a.live, b.live, c.live], [0, 0, 0]);
    // A request tracked with the same id again gets its own listener, released in turn.
    session.track(1, "tools/call", { signal: a });
    assert.equal(a.live, 1);
    session.shouldDropResponse(1);
    assert.equal(a.live, 0);
  });

  test("a signal-like object without removeEventListener: settling works, and its late abort cancels nothing", () => {
    const { session, sent } = recorder();
    const listeners = [];
    const signal = { aborted: false, reason: undefined, addEventListener: (kind, f) => listeners.push(f) };
    session.track(1, "tools/call", { signal });
    assert.equal(session.shouldDropResponse(1), false, "the response settles it without an error");
    // The same id again, without a signal: the old listener must not cancel it.
    session.track(1, "tools/call");
    signal.aborted = true;
    signal.reason = "late";
    for (const f of listeners) f();
    assert.equal(sent.length, 0);
    assert.equal(session.isInFlight(1), true);
    // After close(), an abort calls nothing (the session's wasm object is freed by then).
    signal.aborted = false;
    session.track(2, "tools/call", { signal });
    session.close();
    signal.aborted = true;
    for (const f of listeners) f();
    assert.equal(sent.length, 0);
  });

  test("one signal reused for many requests does not collect listeners", () => {
    const { session, sent } = recorder();
    const signal = countingSignal();
    for (let i = 0; i < 100; i++) {
      session.track(i, "tools/call", { signal });
      session.shouldDropResponse(i);
    }
    assert.equal(signal.live, 0);
    assert.equal(sent.length, 0);
  });

  test("a signal shared by requests in flight cancels each of them once", () => {
    const { session, sent } = recorder();
    const signal = countingSignal();
    for (const id of [1, "1", 0]) session.track(id, "tools/call", { signal });
    signal.fire("stop all");
    assert.deepEqual(sent.map((m) => m.params.requestId), [1, "1", 0]);
    assert.equal(signal.live, 0, "each listener went when its request was cancelled");
  });

  test("AbortSignal.timeout() cancels with the timeout reason", async () => {
    const { session, sent } = recorder();
    session.track(3, "tools/call", { signal: AbortSignal.timeout(5) });
    await sleep(60);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].params.reason, "Request timed out");
  });

  test("AbortSignal.any() cancels with the reason of the signal that fired", () => {
    const { session, sent } = recorder();
    const a = new AbortController();
    const b = new AbortController();
    session.track(4, "tools/call", { signal: AbortSignal.any([a.signal, b.signal]) });
    b.abort("second source");
    assert.equal(sent.length, 1);
    assert.equal(sent[0].params.reason, "second source");
  });

  test("a request's own signal is made on demand, aborts with the cancel's reason, never after completion", () => {
    const { session } = recorder();
    session.track(5, "tools/call");
    const signal = session.signal(5);
    assert.equal(session.signal(5), signal, "one signal per request");
    session.cancel(5, "stop");
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, "stop");
    assert.equal(session.signal(5), undefined, "not in flight any more");
    session.track(6, "tools/call");
    const done = session.signal(6);
    session.shouldDropResponse(6);
    session.cancel(6, "late");
    assert.equal(done.aborted, false);
    session.track(7, "tools/call");
    const defaulted = session.signal(7);
    session.cancel(7);
    assert.equal(defaulted.reason.name, "AbortError", "no reason: the DOM's default AbortError");
  });

  test("a timeout aborts the request's own signal with a TimeoutError", async () => {
    const { session, sent } = recorder();
    session.track(8, "tools/call", { timeout: 20 });
    const signal = session.signal(8);
    await sleep(120);
    assert.equal(sent.length, 1);
    assert.equal(signal.reason.name, "TimeoutError");
  });

  test("an id reused while its earlier request's task still runs gets none of that request's signal or listener", () => {
    const { session, sent } = recorder({ protocolVersion: "2025-11-25" });
    const old = countingSignal();
    session.track(10, "tools/call", { signal: old, params: { task: { ttl: 60000 } } });
    const oldOwn = session.signal(10);
    // The CreateTaskResult: the task runs (the request never settles while it does).
    session.shouldDropIncoming({ jsonrpc: "2.0", id: 10, result: { task: { taskId: "t-10", status: "working" } } });
    session.track(10, "tools/call");
    assert.equal(old.live, 0, "the earlier request's listener is gone");
    assert.notEqual(session.signal(10), oldOwn, "the new request has a signal of its own");
    old.fire("stale");
    assert.deepEqual(sent, [], "the earlier signal cancels nothing");
    assert.equal(session.isInFlight(10), true);
  });

  test("close() removes every listener it attached", () => {
    const { session } = recorder();
    const signal = countingSignal();
    session.track(1, "tools/call", { signal });
    session.track(2, "tools/call", { signal });
    assert.equal(signal.live, 2);
    session.close();
    assert.equal(signal.live, 0);
  });

  test("beforeSend(request, { signal }): the send options' signal cancels the request once, with the reason policy, and is released at the response", () => {
    const { session, sent } = recorder();
    const signal = countingSignal();
    const request = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "slow" } };
    // The AI SDK's send options, passed as they are: only `signal` is read.
    assert.equal(session.beforeSend(request, { signal, headers: { "x-a": "1" } }), request);
    assert.equal(signal.live, 1);
    const timeout = new Error("Request timed out after 300ms");
    timeout.name = "MCPClientError";
    signal.fire(timeout);
    assert.deepEqual(sent, [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3, reason: "Request timed out" } }]);
    assert.equal(signal.live, 0, "released when the request settled (cancelled)");

    const done = countingSignal();
    session.beforeSend({ jsonrpc: "2.0", id: 4, method: "tools/call", params: {} }, { signal: done });
    assert.equal(session.shouldDropIncoming({ jsonrpc: "2.0", id: 4, result: {} }), false);
    assert.equal(done.live, 0, "released at the response");
    done.fire(new DOMException("stop", "AbortError"));
    assert.equal(sent.length, 1, "no cancel after the response");

    // A notification or a response sent with a signal: the signal is not the request's.
    const other = countingSignal();
    session.beforeSend({ jsonrpc: "2.0", method: "notifications/initialized" }, { signal: other });
    session.beforeSend({ jsonrpc: "2.0", id: 5, result: {} }, { signal: other });
    assert.equal(other.live, 0);
  });

  test("beforeSend(request, { signal }) with an aborted signal throws its reason and tracks nothing; a bad signal is an InvalidArgumentError", () => {
    const { session, sent } = recorder();
    const ac = new AbortController();
    ac.abort("gone");
    assert.throws(() => session.beforeSend({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} }, { signal: ac.signal }), (e) => e === "gone");
    assert.equal(session.isInFlight(1), false);
    assert.equal(sent.length, 0);
    for (const options of [{ signal: {} }, { signal: "x" }, 7]) {
      assert.throws(
        () => session.beforeSend({ jsonrpc: "2.0", id: 2, method: "tools/call", params: {} }, options),
        (e) => e.name === "InvalidArgumentError" && e.code === "ERR_INVALID_OPTION",
      );
    }
    assert.equal(session.isInFlight(2), false, "nothing tracked on a bad option");
    assert.equal(session.beforeSend({ jsonrpc: "2.0", id: 2, method: "tools/call", params: {} }, null).id, 2);
    assert.equal(session.isInFlight(2), true);
  });

  test("role: a session keeping a server's books honours the client's cancel in 2026-07-28; a client's session does not", () => {
    const request = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow" } };
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "stop" } };
    const events = [];
    const server = new CancellationSession({ role: "server", protocolVersion: "2026-07-28", onEvent: (e) => events.push(e.type) });
    assert.equal(server.shouldDropIncoming(request), false);
    const signal = server.inboundSignal(1);
    assert.equal(server.shouldDropIncoming(cancel), false);
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, "stop");
    assert.ok(events.includes("cancel-received"));

    const client = new CancellationSession({ protocolVersion: "2026-07-28", onEvent: (e) => events.push(e.type) });
    client.shouldDropIncoming(request);
    const clientSignal = client.inboundSignal(1);
    assert.equal(client.shouldDropIncoming(cancel), true, "in 2026-07-28 a server may not cancel a client's work");
    assert.equal(clientSignal.aborted, false);
    assert.throws(() => new CancellationSession({ role: "proxy" }), (e) => e.code === "ERR_INVALID_OPTION" && /role/.test(e.message));
  });
});

// guardTransport(): wraps an MCP SDK Transport so an unmodified SDK Client (1.x or 2.x)
// gets mcp-cancel's bookkeeping. Target-neutral: the entry module hands in the
// CancellationSession class of its wasm build. Every decision is the session's (the Rust
// core's); this file wires callbacks and passes messages through it.

import { InvalidArgumentError } from "./errors.js";
import { SENT_REQUEST, cascadeError, timeoutError } from "./session.js";
import { onAbort, reasonOf } from "./signals.js";

/**
 * A cache: the host's `AsyncLocalStorage` class (Node's `node:async_hooks`, which Deno, Bun
 * and workerd with `nodejs_compat` also have), `null` in a host without it.
 * @type {any}
 */
let AsyncContext;

/**
 * A new async context of the host's, or `undefined` where it has none: what a handler runs
 * in, so that a request it sends is known to be sent for the peer's request it handles even
 * when the SDK gives no `relatedRequestId` (`server.server.elicitInput()`, `createMessage()`).
 */
function asyncContext() {
  if (AsyncContext === undefined) {
    try {
      AsyncContext = globalThis.process?.getBuiltinModule?.("node:async_hooks")?.AsyncLocalStorage ?? null;
    } catch {
      AsyncContext = null;
    }
  }
  return AsyncContext === null ? undefined : new AsyncContext();
}

/**
 * @param {typeof import("./index.js").CancellationSession} Session
 * @returns {typeof import("./index.js").guardTransport}
 */
export function createGuardTransport(Session) {
  return function guardTransport(transport, options) {
    if (transport === null || typeof transport !== "object" || typeof transport.send !== "function" || typeof transport.start !== "function") {
      throw new InvalidArgumentError(
        "guardTransport(): expected an MCP SDK Transport (an object with start() and send())",
        "ERR_INVALID_TRANSPORT",
        undefined,
      );
    }
    if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options))) {
      throw new InvalidArgumentError("guardTransport(): options must be an object, undefined or null", "ERR_INVALID_OPTION", options);
    }
    if (options?.session !== undefined) {
      throw new InvalidArgumentError(
        "guardTransport(): the `session` option was removed in 1.0: the guard makes its own session (read it as `guarded.session`) and takes the session options",
        "ERR_INVALID_OPTION",
        "session",
      );
    }
    const own = guard(transport, Session, options ?? {});
    // The guard's members are its own properties, read without a trap (`send` is read for
    // every message the client sends). Anything else (stderr, pid, sessionId,
    // hasPerRequestStream, terminateSession, the AI SDK's flags, …) is not found on it and
    // reaches its prototype, a Proxy that makes it the inner transport's own, for reads,
    // writes and `in`. Its methods run on the inner transport (bound to it, one bound
    // function per method): called on the guard, a method that reads `this.onmessage` would
    // otherwise reach the client's handler past the guard. The guard's state is in the
    // closure of `guard()`, not on this object.
    const bound = new WeakMap();
    // Its target is a plain object: the guard is still an `Object` (`instanceof`, `isPrototypeOf`).
    const forward = new Proxy({}, {
      get(_, prop) {
        const value = Reflect.get(transport, prop);
        if (typeof value !== "function") return value;
        let fn = bound.get(value);
        if (fn === undefined) bound.set(value, (fn = value.bind(transport)));
        return fn;
      },
      // An assignment to a member the guard does not have (the guard's own are written in
      // place, never here) is the inner transport's: nothing is defined on the guard.
      set(_, prop, value) {
        Reflect.set(transport, prop, value);
        return true;
      },
      has(_, prop) {
        return prop in transport;
      },
    });
    return Object.setPrototypeOf(own, forward);
  };
}

/** The guard's own members, with its state private in this closure. */
function guard(inner, Session, options) {
  const report = (error) => self.onerror?.(error instanceof Error ? error : new Error(String(error)));
  // The peer's request each handler runs for (its id as the SDK has it), across the handler's awaits.
  const handling = asyncContext();
  const ids = new StandIns();
  const session = new Session({
    transport: inner.hasPerRequestStream === true ? "streamable-http" : "stdio",
    ...options,
    // Every cancel the session makes (aborts, timeouts, deferred tasks/cancel) goes on the wire.
    send: (message) => {
      inner.send(message).catch(report);
    },
    // 2026-07-28 over Streamable HTTP the cancel is closing the request's stream: the
    // request's own signal (`withStream`) aborts right after this, and that closes it.
    closeStream: () => {},
    // The SDK keeps waiting for a response: give it the timeout as an error response.
    onTimeout: (id, error) => {
      answer(id, timeoutError(), "timeout", error);
      options.onTimeout?.(id, error);
    },
    // A request sent for the peer's request that the peer cancelled (an elicitation of a
    // cancelled tool call) was cancelled on the wire: the SDK stops waiting for it now.
    onCascade: (id, error) => {
      answer(id, cascadeError(), "parent-cancelled", error);
      options.onCascade?.(id, error);
    },
  });

  /** Answers the SDK's request `id`, which the session cancelled, with the JSON-RPC error `rpc`. */
  const answer = (id, rpc, reason, error) =>
    self.onmessage?.({ jsonrpc: "2.0", id, error: { ...rpc, data: { reason, detail: error.message } } });

  /**
   * A request on a transport with per-request streams (SDK 2.x Streamable HTTP): the SDK's
   * own `requestSignal` closing the stream is the cancel in 2026-07-28, so it is cancelled
   * through the session; and the request's own signal from the session (aborted when the
   * session cancels it, e.g. on a timeout) closes the stream too.
   */
  const withStream = (id, sendOptions) => {
    const ours = session.signal(id);
    const sdkSignal = sendOptions?.requestSignal;
    if (sdkSignal) {
      onAbort(
        sdkSignal,
        () => {
          try {
            session.cancel(id, reasonOf(sdkSignal));
          } catch (error) {
            report(error);
          }
        },
        { once: true },
      );
    }
    if (ours === undefined) return sendOptions;
    const requestSignal = sdkSignal ? AbortSignal.any([sdkSignal, ours]) : ours;
    return { ...sendOptions, requestSignal };
  };

  /** The protocol version the client set through the guard, if any. */
  let negotiated;
  const self = {
    /** @type {((message: any, extra?: any) => void) | undefined} */
    onmessage: undefined,
    /** @type {(() => void) | undefined} */
    onclose: undefined,
    /** @type {((error: Error) => void) | undefined} */
    onerror: undefined,
    session,
    inner,
    start(...args) {
      return inner.start(...args);
    },
    // Not `async`: a message that passes returns the inner transport's own promise, so the
    // SDK's `await` costs what it costs without the guard (an `async` frame here is ~420 of
    // the guard's ~3,400 instructions per round trip in bench/sdk.mjs's loop). Every error
    // still comes as a rejection, never a throw: the SDK calls `send(…).catch(…)`.
    send(message, sendOptions) {
      let out;
      let isRequest = false;
      try {
        // Our answer to the peer's request 0 or "" goes out with the peer's own id.
        message = ids.ours(message);
        const related = sendOptions?.relatedRequestId;
        if (related !== undefined && ids.isStandIn(related)) sendOptions = { ...sendOptions, relatedRequestId: ids.peers(related) };
        // The AI SDK passes each request's `signal` in the send options (the caller's, or
        // combined with its own timeout): the session cancels the request when it aborts.
        out = session.beforeSend(message, sendOptions);
        if (out === undefined) return Promise.resolve();
        isRequest = out === message && session[SENT_REQUEST]();
        if (isRequest) {
          // Sent for the peer's request a handler runs for: the SDK's `relatedRequestId`
          // (`extra.sendRequest()`), else the handler's async context.
          const parent = sendOptions?.relatedRequestId ?? handling?.getStore();
          if (parent !== undefined) session.relate(out.id, ids.peers(parent));
          if (inner.hasPerRequestStream === true) sendOptions = withStream(out.id, sendOptions);
        }
        const sent = Promise.resolve(inner.send(out, sendOptions));
        // A request that never left is not in flight: settle it so no cancel is sent for it
        // (before the caller's own handler of the rejection runs).
        if (isRequest) sent.then(undefined, () => session.shouldDropResponse(out.id));
        return sent;
      } catch (error) {
        if (isRequest) session.shouldDropResponse(out.id);
        return Promise.reject(error);
      }
    },
    // The AI SDK 2.x passes `{ signal }`: whatever the client gives goes to the inner transport.
    close(...args) {
      return inner.close(...args);
    },
    setProtocolVersion(version) {
      negotiated = version;
      try {
        session.setProtocolVersion(version);
      } finally {
        // As the AI SDK does itself for a transport without the method.
        if (typeof inner.setProtocolVersion === "function") inner.setProtocolVersion(version);
        else Reflect.set(inner, "protocolVersion", version);
      }
    },
  };

  // Defined after the literal: V8 keeps an object literal with an accessor in dictionary
  // mode, and then every read of the guard's `send` and `onmessage` (one each per message)
  // is a dictionary lookup, not an inline-cached load (~170 instructions per round trip
  // in bench/sdk.mjs's loop).
  Object.defineProperty(self, "protocolVersion", {
    /**
     * The protocol version: the inner transport's own when it keeps one (it may learn it
     * itself, as the AI SDK's transports do), else the one the client set through the guard.
     */
    get() {
      return Reflect.get(inner, "protocolVersion") ?? negotiated;
    },
    /**
     * A client that assigns the version instead of calling setProtocolVersion() (the AI SDK
     * does for a transport without that method) informs the session all the same.
     */
    set(version) {
      self.setProtocolVersion(version);
    },
    enumerable: true,
    configurable: true,
  });

  inner.onmessage = (message, extra) => {
    let kept = message;
    try {
      kept = session.filterIncoming(message);
    } catch (error) {
      // The session does not throw for peer input; if it ever did, the message is passed
      // on and the error reported, never lost.
      report(error);
    }
    if (kept === undefined) return;
    kept = ids.theirs(kept);
    // A request from the peer: its handler (which the SDK starts in this call) runs in a
    // context that names it.
    if (handling !== undefined && isPeerRequest(kept)) handling.run(kept.id, () => self.onmessage?.(kept, extra));
    else self.onmessage?.(kept, extra);
  };
  inner.onclose = () => {
    session.close();
    self.onclose?.();
  };
  inner.onerror = (error) => self.onerror?.(error);
  return self;
}

/** Whether `message` is a request (a method and an id), not a notification or a response. */
function isPeerRequest(message) {
  return message !== null && typeof message === "object" && typeof message.method === "string" && message.id !== undefined && message.id !== null;
}

/**
 * The stand-in ids of the peer's requests `0` and `""` in the SDK above the guard. The MCP
 * TypeScript SDK 1.x drops a cancel whose `requestId` is falsy (`if (!requestId) return`), so
 * the handler of such a request would never abort: the SDK gets the request, and the peer's
 * cancel of it, with a stand-in (a string no peer uses: it holds a random tag of this guard's),
 * and our response to it goes out with the peer's id. The wire never shows a stand-in; the SDK's
 * handlers see it as the request's id (`extra.requestId`).
 */
class StandIns {
  constructor() {
    const tag = `mcp-cancel:${Math.random().toString(36).slice(2, 10)}:`;
    /** The stand-in of `0` and of `""`. */
    this.zero = `${tag}0`;
    this.empty = `${tag}""`;
  }

  /** Whether `id` is a stand-in. */
  isStandIn(id) {
    return id === this.zero || id === this.empty;
  }

  /** The peer's id of the SDK's `id` (a stand-in or any other). */
  peers(id) {
    return id === this.zero ? 0 : id === this.empty ? "" : id;
  }

  /** `message` from the peer as the SDK gets it: its request `0` or `""`, and a cancel of one, under the stand-in. */
  theirs(message) {
    if (message === null || typeof message !== "object" || typeof message.method !== "string") return message;
    const id = message.id;
    if (id === 0 || id === "") return { ...message, id: id === 0 ? this.zero : this.empty };
    const cancelled = message.method === "notifications/cancelled" ? message.params?.requestId : undefined;
    if (cancelled === 0 || cancelled === "") return { ...message, params: { ...message.params, requestId: cancelled === 0 ? this.zero : this.empty } };
    return message;
  }

  /** `message` from the SDK as it goes out: a response to a stand-in with the peer's id. */
  ours(message) {
    if (message === null || typeof message !== "object" || message.method !== undefined || !this.isStandIn(message.id)) return message;
    return { ...message, id: this.peers(message.id) };
  }
}

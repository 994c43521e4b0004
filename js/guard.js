// guardTransport(): wraps an MCP SDK Transport so an unmodified SDK Client (1.x or 2.x)
// gets mcp-cancel's bookkeeping. Target-neutral: the entry module hands in the
// CancellationSession class of its wasm build. Every decision is the session's (the Rust
// core's); this file wires callbacks and passes messages through it.

import { InvalidArgumentError } from "./errors.js";
import { SENT_REQUEST, timeoutError } from "./session.js";
import { onAbort, reasonOf } from "./signals.js";

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
      self.onmessage?.({
        jsonrpc: "2.0",
        id,
        error: { ...timeoutError(), data: { reason: "timeout", detail: error.message } },
      });
      options.onTimeout?.(id, error);
    },
  });

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
    /**
     * The protocol version: the inner transport's own when it keeps one (it may learn it
     * itself, as the AI SDK's transports do), else the one the client set through the guard.
     */
    get protocolVersion() {
      return Reflect.get(inner, "protocolVersion") ?? negotiated;
    },
    /**
     * A client that assigns the version instead of calling setProtocolVersion() (the AI SDK
     * does for a transport without that method) informs the session all the same.
     */
    set protocolVersion(version) {
      self.setProtocolVersion(version);
    },
    session,
    inner,
    start(...args) {
      return inner.start(...args);
    },
    async send(message, sendOptions) {
      // The AI SDK passes each request's `signal` in the send options (the caller's, or
      // combined with its own timeout): the session cancels the request when it aborts.
      const out = session.beforeSend(message, sendOptions);
      if (out === undefined) return;
      const isRequest = out === message && session[SENT_REQUEST]();
      if (isRequest && inner.hasPerRequestStream === true) sendOptions = withStream(out.id, sendOptions);
      try {
        await inner.send(out, sendOptions);
      } catch (error) {
        // A request that never left is not in flight: settle it so no cancel is sent for it.
        if (isRequest) session.shouldDropResponse(out.id);
        throw error;
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

  inner.onmessage = (message, extra) => {
    let kept = message;
    try {
      kept = session.filterIncoming(message);
    } catch (error) {
      // The session does not throw for peer input; if it ever did, the message is passed
      // on and the error reported, never lost.
      report(error);
    }
    if (kept !== undefined) self.onmessage?.(kept, extra);
  };
  inner.onclose = () => {
    session.close();
    self.onclose?.();
  };
  inner.onerror = (error) => self.onerror?.(error);
  return self;
}

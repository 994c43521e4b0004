// guardTransport(): wraps an MCP SDK Transport so an unmodified SDK Client (1.x or 2.x)
// gets mcp-cancel's bookkeeping. Target-neutral: the entry module hands in the
// CancellationSession class of its wasm build.

import { InvalidArgumentError } from "./errors.js";

/** JSON-RPC error code the SDKs use for a request timeout (-32001, RequestTimeout). */
const REQUEST_TIMEOUT = -32001;

const OWN = new Set(["start", "send", "close", "setProtocolVersion", "session", "inner", "protocolVersion"]);
const CALLBACKS = new Set(["onmessage", "onclose", "onerror"]);

/**
 * @param {typeof import("./index.js").CancellationSession} Session
 * @returns {typeof import("./index.js").guardTransport}
 */
export function createGuardTransport(Session) {
  return function guardTransport(transport, options = {}) {
    if (transport === null || typeof transport !== "object" || typeof transport.send !== "function" || typeof transport.start !== "function") {
      throw new InvalidArgumentError(
        "guardTransport(): expected an MCP SDK Transport (an object with start() and send())",
        "ERR_INVALID_TRANSPORT",
        undefined,
      );
    }
    const guarded = new GuardedTransport(transport, Session, options);
    // Anything the guard does not define (stderr, pid, hasPerRequestStream,
    // terminateSession, …) is the inner transport's own, for reads, writes and `in`.
    return new Proxy(guarded, {
      get(target, prop, receiver) {
        if (OWN.has(prop) || CALLBACKS.has(prop) || prop in target) return Reflect.get(target, prop, receiver);
        const value = Reflect.get(transport, prop);
        return typeof value === "function" ? value.bind(transport) : value;
      },
      set(target, prop, value) {
        if (OWN.has(prop) || CALLBACKS.has(prop) || prop in target) target[prop] = value;
        else transport[prop] = value;
        return true;
      },
      has(target, prop) {
        return prop in target || prop in transport;
      },
    });
  };
}

class GuardedTransport {
  /** @type {((message: any, extra?: any) => void) | undefined} */
  onmessage = undefined;
  /** @type {(() => void) | undefined} */
  onclose = undefined;
  /** @type {((error: Error) => void) | undefined} */
  onerror = undefined;
  /** The protocol version the SDK negotiated (set through setProtocolVersion), if any. */
  protocolVersion = undefined;

  /** @internal Our own per-request stream controllers (2026-07-28 over Streamable HTTP), by request id. (Not a #private field: the guard is used through a Proxy.) */
  _streams = new Map();

  constructor(inner, Session, options) {
    const { session, ...sessionOptions } = options;
    this.inner = inner;
    const report = (error) => this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    this.session =
      session ??
      new Session({
        transport: inner.hasPerRequestStream === true ? "streamable-http" : "stdio",
        ...sessionOptions,
        // Cancels the session makes itself (timeouts, deferred tasks/cancel) go on the wire.
        send: (message) => {
          inner.send(message).catch(report);
        },
        // 2026-07-28 over Streamable HTTP: the cancel is closing the request's stream.
        closeStream: (id) => {
          this._streams.get(id)?.abort();
          this._streams.delete(id);
        },
        // The SDK keeps waiting for a response: give it the timeout as an error response.
        onTimeout: (id, error) => {
          this._streams.delete(id);
          this.onmessage?.({
            jsonrpc: "2.0",
            id,
            error: { code: REQUEST_TIMEOUT, message: "Request timed out", data: { reason: "timeout", detail: error.message } },
          });
          sessionOptions.onTimeout?.(id, error);
        },
      });
    inner.onmessage = (message, extra) => {
      let pass = true;
      try {
        pass = this.session.receive(message);
      } catch (error) {
        // receive() does not throw for peer input; if it ever did, the message is passed on
        // and the error reported, never lost.
        report(error);
      }
      if (message !== null && typeof message === "object" && message.method === undefined) this._streams.delete(message.id);
      if (pass) this.onmessage?.(message, extra);
    };
    inner.onclose = () => {
      this.session.close();
      this._streams.clear();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
  }

  start() {
    return this.inner.start();
  }

  async send(message, options) {
    const out = this.session.beforeSend(message);
    if (out === undefined) return;
    const isRequest = typeof out.method === "string" && out.id !== undefined && out === message;
    if (isRequest && this.inner.hasPerRequestStream === true) options = this._withStream(out.id, options);
    try {
      await this.inner.send(out, options);
    } catch (error) {
      // A request that never left is not in flight: settle it so no cancel is sent for it.
      if (isRequest) this.session.shouldDropResponse(out.id);
      throw error;
    }
  }

  close() {
    return this.inner.close();
  }

  get sessionId() {
    return this.inner.sessionId;
  }

  setProtocolVersion(version) {
    this.protocolVersion = version;
    try {
      this.session.setProtocolVersion(version);
    } finally {
      this.inner.setProtocolVersion?.(version);
    }
  }

  /**
   * A request on a transport with per-request streams (SDK 2.x Streamable HTTP): the SDK's
   * own `requestSignal` closing the stream is the cancel in 2026-07-28, so it is recorded
   * as one; and the guard gets a signal of its own, to close the stream on a timeout.
   */
  _withStream(id, options) {
    const ours = new AbortController();
    this._streams.set(id, ours);
    const sdkSignal = options?.requestSignal;
    if (sdkSignal) {
      sdkSignal.addEventListener("abort", () => {
        try {
          this.session.cancel(id, sdkSignal.reason);
        } catch (error) {
          this.onerror?.(error);
        }
      }, { once: true });
    }
    const requestSignal = sdkSignal ? AbortSignal.any([sdkSignal, ours.signal]) : ours.signal;
    return { ...options, requestSignal };
  }
}

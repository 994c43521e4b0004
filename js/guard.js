// guardTransport(): wraps an MCP SDK Transport so an unmodified SDK Client (or Server)
// gets mcp-cancel's bookkeeping. Target-neutral: the entry module hands in the
// CancellationSession class of its wasm build.

import { InvalidArgumentError } from "./errors.js";

const OWN = new Set(["start", "send", "close", "setProtocolVersion", "session", "inner", "protocolVersion"]);

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
    // Anything the guard does not define (stderr, pid, terminateSession, …) is the inner
    // transport's own.
    return new Proxy(guarded, {
      get(target, prop, receiver) {
        if (OWN.has(prop) || prop in target) return Reflect.get(target, prop, receiver);
        const value = Reflect.get(transport, prop);
        return typeof value === "function" ? value.bind(transport) : value;
      },
      set(target, prop, value) {
        if (OWN.has(prop) || prop in target || prop === "onmessage" || prop === "onclose" || prop === "onerror") {
          target[prop] = value;
        } else {
          transport[prop] = value;
        }
        return true;
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

  constructor(inner, Session, options) {
    const { session, ...sessionOptions } = options;
    this.inner = inner;
    this.session =
      session ??
      new Session({
        ...sessionOptions,
        send: (message) => {
          inner.send(message).catch((error) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
        },
      });
    inner.onmessage = (message, extra) => {
      let pass = true;
      try {
        pass = this.session.receive(message);
      } catch (error) {
        // receive() does not throw for peer input; if it ever did, the message is passed on
        // and the error reported, never lost.
        this.onerror?.(error);
      }
      if (pass) this.onmessage?.(message, extra);
    };
    inner.onclose = () => {
      this.session.close();
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
    try {
      await this.inner.send(out, options);
    } catch (error) {
      // A request that never left is not in flight: settle it so no cancel is sent for it.
      if (typeof out.method === "string" && out.id !== undefined) this.session.shouldDropResponse(out.id);
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
    this.inner.setProtocolVersion?.(version);
  }
}

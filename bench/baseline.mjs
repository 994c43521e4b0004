// The pure-JS baseline: cancellation bookkeeping done the way the MCP TypeScript SDK 1.x
// keeps its pending requests (node_modules/@modelcontextprotocol/sdk/dist/esm/shared/protocol.js,
// `Protocol.request`, `_onresponse`, `_onrequest`, `_oncancel`):
//
// - outbound: a `Map` of response handlers by id, and an `abort` listener on the caller's
//   signal that deletes the handler and sends `notifications/cancelled` with
//   `String(reason)`. Like the SDK, the listener is never removed.
// - inbound: one `AbortController` per peer request in a `Map`; the peer's cancel calls
//   `controller.abort(reason)`; the response is not sent when the signal is aborted.
//
// The one thing added to the SDK's bookkeeping is what it takes to give the same answers
// as mcp-cancel: a bounded set of cancelled ids (insertion-ordered `Map`, oldest evicted
// first, 1024 like mcp-cancel's default), so a late response is told apart from an
// unknown one without `JSON.stringify`ing it into an error as the SDK does.

export const DELIVER = 0;
export const LATE = 1;
export const UNKNOWN = 2;

export class SdkStylePending {
  constructor({ send = () => {}, tombstoneCapacity = 1024 } = {}) {
    this.send = send;
    this.capacity = tombstoneCapacity;
    /** id → { method } (the SDK's `_responseHandlers`) */
    this.pending = new Map();
    /** cancelled ids, oldest first */
    this.cancelled = new Map();
    /** id → AbortController (the SDK's `_requestHandlerAbortControllers`) */
    this.inbound = new Map();
  }

  /** A request we send (SDK `request()`): handler in the Map, listener on the signal. */
  track(id, method, signal) {
    this.pending.set(id, method);
    if (signal !== undefined) {
      signal.addEventListener("abort", () => {
        this.cancel(id, signal.reason);
      });
    }
  }

  /** SDK `cancel(reason)` inside `request()`. */
  cancel(id, reason) {
    const method = this.pending.get(id);
    if (method === undefined) return undefined;
    this.pending.delete(id);
    this.cancelled.set(id, method);
    if (this.cancelled.size > this.capacity) this.cancelled.delete(this.cancelled.keys().next().value);
    const message = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: String(reason) } };
    this.send(message);
    return message;
  }

  /** SDK `_onresponse` by id: DELIVER, LATE (after our cancel) or UNKNOWN. */
  onResponse(id) {
    if (this.pending.delete(id)) return DELIVER;
    if (this.cancelled.delete(id)) return LATE;
    return UNKNOWN;
  }

  /** SDK `_onrequest`: one AbortController per peer request. */
  onRequest(id) {
    const controller = new AbortController();
    this.inbound.set(id, controller);
    return controller.signal;
  }

  /** SDK `_oncancel`. */
  onCancelled(params) {
    this.inbound.get(params.requestId)?.abort(params.reason);
  }

  /** Before sending our response to the peer's request `id`: `false` to suppress it. */
  beforeResponse(id) {
    const controller = this.inbound.get(id);
    this.inbound.delete(id);
    return controller === undefined || !controller.signal.aborted;
  }
}

/**
 * The same bookkeeping without the SDK 1.x's leaks: the `abort` listener is removed when the
 * response arrives or the signal aborts, as mcp-cancel does. Kept, a listener holds memory:
 * a signal reused for many requests (an agent's "stop" button) keeps one closure per request
 * it ever tracked, and Node 20 keeps a signal of `AbortSignal.any()` that has a listener in
 * a strong set until the listener is removed, aborted or not (~1.2 KB per request, never
 * freed). The reference for what in scenarios 1 and 2 is Node's cost of
 * doing it right (`removeEventListener`) rather than mcp-cancel's own.
 */
export class LeakFreePending extends SdkStylePending {
  constructor(options) {
    super(options);
    /** id → { signal, listener } of requests tracked with a signal */
    this.listeners = new Map();
  }

  track(id, method, signal) {
    this.pending.set(id, method);
    if (signal !== undefined) {
      const listener = () => {
        this.listeners.delete(id);
        signal.removeEventListener("abort", listener);
        this.cancel(id, signal.reason);
      };
      signal.addEventListener("abort", listener);
      this.listeners.set(id, { signal, listener });
    }
  }

  onResponse(id) {
    const entry = this.listeners.get(id);
    if (entry !== undefined) {
      this.listeners.delete(id);
      entry.signal.removeEventListener("abort", entry.listener);
    }
    return super.onResponse(id);
  }
}

// A wire tap for MCP SDK transports: records every JSON-RPC message that crosses the
// wrapped transport, in both directions, with a timestamp. Used by the demo and the tests
// to assert what really went over the wire (below any guard).

/**
 * A logging wrapper, as a transport wrapper should be written: it defines only what it
 * changes (`send` and the three callbacks) and every other member — `start`, `close`,
 * `sessionId`, `hasPerRequestStream`, `setProtocolVersion`, `protocolVersion`, the AI SDK's
 * flags, … — is the inner transport's own (reads, writes, `in`; methods bound to it), so
 * wrappers stack in any order. `send`'s options pass through untouched.
 *
 * @typedef {{ dir: "out" | "in", at: number, message: any }} WireRecord
 * @param {import("@modelcontextprotocol/sdk/shared/transport.js").Transport} inner
 * @param {WireRecord[]} log  records are pushed here
 * @param {() => number} [now]
 */
export function tap(inner, log, now = () => performance.now()) {
  const own = {
    onmessage: undefined,
    onclose: undefined,
    onerror: undefined,
    async send(message, options) {
      log.push({ dir: "out", at: now(), message });
      return inner.send(message, options);
    },
  };
  inner.onmessage = (message, extra) => {
    log.push({ dir: "in", at: now(), message });
    own.onmessage?.(message, extra);
  };
  inner.onclose = () => own.onclose?.();
  inner.onerror = (error) => own.onerror?.(error);
  // The inner transport's methods run on it (called on the wrapper, `this.onmessage` in
  // them would skip the log).
  const bound = new WeakMap();
  const innerMember = (prop) => {
    const value = Reflect.get(inner, prop);
    if (typeof value !== "function") return value;
    if (!bound.has(value)) bound.set(value, value.bind(inner));
    return bound.get(value);
  };
  return new Proxy(own, {
    get: (target, prop) => (Object.hasOwn(target, prop) ? target[prop] : innerMember(prop)),
    set: (target, prop, value) => (Object.hasOwn(target, prop) ? Reflect.set(target, prop, value) : Reflect.set(inner, prop, value)),
    has: (target, prop) => Object.hasOwn(target, prop) || prop in inner,
  });
}

/** The records of `log` whose message matches `pred`. */
export function wire(log, dir, pred = () => true) {
  return log.filter((r) => r.dir === dir && pred(r.message)).map((r) => r.message);
}

export const isCancel = (m) => m.method === "notifications/cancelled";
export const isProgress = (m) => m.method === "notifications/progress";
export const isResponseTo = (id) => (m) => m.method === undefined && m.id === id;

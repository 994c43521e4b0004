// A wire tap for MCP SDK transports: records every JSON-RPC message that crosses the
// wrapped transport, in both directions, with a timestamp. Used by the demo and the tests
// to assert what really went over the wire (below any guard).

/**
 * @typedef {{ dir: "out" | "in", at: number, message: any }} WireRecord
 * @param {import("@modelcontextprotocol/sdk/shared/transport.js").Transport} inner
 * @param {WireRecord[]} log  records are pushed here
 * @param {() => number} [now]
 */
export function tap(inner, log, now = () => performance.now()) {
  const tapped = {
    onmessage: undefined,
    onclose: undefined,
    onerror: undefined,
    start: () => inner.start(),
    async send(message, options) {
      log.push({ dir: "out", at: now(), message });
      return inner.send(message, options);
    },
    close: () => inner.close(),
    get sessionId() {
      return inner.sessionId;
    },
    // SDK 2.x: transports with a stream per request (Streamable HTTP) say so.
    get hasPerRequestStream() {
      return inner.hasPerRequestStream;
    },
    setProtocolVersion(version) {
      inner.setProtocolVersion?.(version);
    },
  };
  inner.onmessage = (message, extra) => {
    log.push({ dir: "in", at: now(), message });
    tapped.onmessage?.(message, extra);
  };
  inner.onclose = () => tapped.onclose?.();
  inner.onerror = (error) => tapped.onerror?.(error);
  return tapped;
}

/** The records of `log` whose message matches `pred`. */
export function wire(log, dir, pred = () => true) {
  return log.filter((r) => r.dir === dir && pred(r.message)).map((r) => r.message);
}

export const isCancel = (m) => m.method === "notifications/cancelled";
export const isProgress = (m) => m.method === "notifications/progress";
export const isResponseTo = (id) => (m) => m.method === undefined && m.id === id;

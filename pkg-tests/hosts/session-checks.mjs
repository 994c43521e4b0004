// The session unit checks every host runs (Deno, Bun, workerd): track → cancel → the late
// response and progress dropped, a live one kept, a bad id an InvalidArgumentError. Returns
// what happened; the node:test side (../hosts.test.mjs, ../workers.test.mjs) asserts it
// against `EXPECTED` below, so a host that differs shows the whole difference.

/** What `sessionChecks()` returns on a host where the package works. */
export const EXPECTED = {
  sent: [
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "user pressed stop" } },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "two", reason: "no longer needed" } },
  ],
  signalAborted: true,
  lateResponseDropped: true,
  lateProgressDropped: true,
  liveResponseDropped: false,
  liveProgressDropped: false,
  inFlightAfter: { 1: false, two: false, 3: false },
  invalidId: { isInvalidArgumentError: true, isMcpCancelError: true, code: "ERR_INVALID_REQUEST_ID" },
  events: ["cancel-sent", "cancel-sent", "late-response-dropped", "late-progress-dropped"],
};

/**
 * @param {{ CancellationSession: any, InvalidArgumentError: any, McpCancelError: any }} api  the package's exports
 */
export function sessionChecks({ CancellationSession, InvalidArgumentError, McpCancelError }) {
  const sent = [];
  const events = [];
  const session = new CancellationSession({ send: (m) => sent.push(m), onEvent: (e) => events.push(e.type) });

  // 1: aborted through its signal; "two": cancelled by hand, with a progress token.
  const ac = new AbortController();
  session.track(1, "tools/call", { signal: ac.signal });
  const own = session.signal(1);
  ac.abort("user pressed stop");
  session.track("two", "tools/call", { params: { _meta: { progressToken: "p-two" } } });
  session.cancel("two", "no longer needed");
  // 3: in flight, never cancelled.
  session.track(3, "tools/call", { params: { _meta: { progressToken: "p-3" } } });

  const lateResponseDropped = session.shouldDropResponse({ jsonrpc: "2.0", id: 1, result: { content: [] } });
  const lateProgressDropped = session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p-two", progress: 1 } });
  const liveProgressDropped = session.shouldDropProgress("p-3");
  const liveResponseDropped = session.shouldDropResponse({ jsonrpc: "2.0", id: 3, result: { content: [] } });

  let invalidId;
  try {
    session.track(1.5, "tools/call");
  } catch (error) {
    invalidId = { isInvalidArgumentError: error instanceof InvalidArgumentError, isMcpCancelError: error instanceof McpCancelError, code: error.code };
  }
  const inFlightAfter = { 1: session.isInFlight(1), two: session.isInFlight("two"), 3: session.isInFlight(3) };
  session.close();
  return {
    sent,
    signalAborted: own?.aborted === true,
    lateResponseDropped,
    lateProgressDropped,
    liveResponseDropped,
    liveProgressDropped,
    inFlightAfter,
    invalidId,
    events,
  };
}

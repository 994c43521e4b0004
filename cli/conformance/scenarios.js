// The cancellation conformance scenarios, declared as data in one place, in the shape of the
// official @modelcontextprotocol/conformance suite: each scenario has a `name`, a
// `description`, the spec sections it checks (`specReferences`), where it applies (`source`
// as upstream: the revision it was introduced in and, if any, removed in; plus the
// transports), its `steps` and its `checks`. Steps and checks are small verbs the runners
// interpret (server-runner.js for `role: "server"`, client-runner.js for `role: "client"`);
// a check's status is "pass", "fail" or "n/a"; the JSON report also gives each check in
// upstream's shape, where a pass is SUCCESS, a failed MUST is FAILURE, a failed SHOULD is
// WARNING and an n/a is INFO (report.js).
//
// What is the rule — which cancel to send, whether a cancel is valid, what to drop — is never
// decided here: the suite runs every message through mcp-cancel's CancellationSession and
// reads its verdicts. The scenarios only say what to do and what to observe.

/** Every revision the suite knows, oldest first. */
export const REVISIONS = Object.freeze(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);

/** Where the spec pages live; a reference's `url` is this + `/<revision>/` + its `page` (+ `#` + its `anchor`). */
export const SPEC_BASE = "https://modelcontextprotocol.io/specification";

/** The spec sections the scenarios check (the text quoted is the requirement itself). */
export const SPEC = Object.freeze({
  behaviour: { id: "cancellation/behavior-requirements", page: "basic/utilities/cancellation", anchor: "behavior-requirements" },
  timing: { id: "cancellation/timing-considerations", page: "basic/utilities/cancellation", anchor: "timing-considerations" },
  errors: { id: "cancellation/error-handling", page: "basic/utilities/cancellation", anchor: "error-handling" },
  transport: { id: "cancellation/transport-specific-cancellation", page: "basic/utilities/cancellation", anchor: "transport-specific-cancellation", since: "2026-07-28" },
  requestId: { id: "basic/requests", page: "basic", anchor: "requests" },
  tasks: { id: "tasks", page: "basic/utilities/tasks", since: "2025-11-25" },
});

/** The revisions from `introducedIn` up to (not including) `removedIn`. */
export function revisionsOf({ introducedIn = REVISIONS[0], removedIn } = {}) {
  const from = REVISIONS.indexOf(introducedIn);
  const to = removedIn === undefined ? REVISIONS.length : REVISIONS.indexOf(removedIn);
  return REVISIONS.slice(from, to);
}

const BOTH = ["stdio", "streamable-http"];
const HTTP_2026 = { revision: "2026-07-28", transport: "streamable-http" };

/**
 * How long after a cancel the progress of the cancelled request may still arrive (it was
 * already on its way): later progress means the work went on.
 */
export const PROGRESS_GRACE_MS = 200;
/** How long after the call's cancel the server has to cancel its nested request. */
export const NESTED_CANCEL_MS = 1000;
/** The client capabilities the suite declares where a server sends it a nested request. */
export const NESTED_CAPABILITIES = Object.freeze({ elicitation: { form: {} }, sampling: {}, roots: {} });
/** In 2026-07-28 a server asks the client for input in its result, not with a request. */
const NO_SERVER_REQUESTS_2026 = "in 2026-07-28 a server asks for input in its result (InputRequiredResult), not with a request to the client";

/**
 * The checks every scenario shares. `level` is the strength of the requirement in the spec
 * (a SHOULD that is not met fails the scenario too: the suite reports what a client meets).
 */
const CHECK = {
  usable: {
    id: "connection-usable",
    name: "ConnectionStaysUsable",
    description: "After the cancel, the server still answers a ping (in 2026-07-28, which has no ping: server/discover) and has not exited.",
    level: "MUST",
    spec: SPEC.timing,
    quote: "Both parties MUST handle these race conditions gracefully",
    expect: { op: "alive", ping: "ping" },
  },
  ignored: {
    id: "invalid-cancel-ignored",
    name: "InvalidCancelIgnored",
    description: "Nothing answers the invalid cancel: no error response, no crash (a log notification about it is reported, not failed).",
    level: "SHOULD",
    spec: SPEC.errors,
    quote: "Invalid cancellation notifications SHOULD be ignored: Unknown request IDs, Already completed requests, Malformed notifications",
    expect: { op: "ignored" },
  },
  /** The work of the cancelled request `call` stopped, as far as its progress shows. */
  workStops: {
    id: "work-stops",
    name: "WorkStopsAfterCancel",
    description: `No notifications/progress for the cancelled request later than ${PROGRESS_GRACE_MS} ms after the cancel, counted past the tool's own run time (n/a for a tool that reports no progress: its work is not observable).`,
    level: "SHOULD",
    spec: SPEC.behaviour,
    quote: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources",
    expect: { op: "progressStopped", of: "call", graceMs: PROGRESS_GRACE_MS },
  },
};

/**
 * The scenarios where the suite is the client and the server is under test (`--server`,
 * `--url`). `needs`: "slowTool" (a tool that runs long enough to be cancelled, from `--tool`
 * or known), "progress" (that tool reports progress), "taskTool" (a tool that runs as a task),
 * "nestedTool" (a tool whose handler sends the client a request and waits for the answer, from
 * `--nested-tool`). `clientCapabilities`: what the suite declares in the scenario's handshake
 * (none otherwise). `except`: where it is n/a and why (`transport` left out: on every transport).
 */
export const SERVER_SCENARIOS = Object.freeze([
  {
    name: "cancel-in-flight",
    role: "server",
    description: "A request cancelled while it runs gets no response, its work stops (its progress ends), and the connection stays usable.",
    specReferences: [SPEC.behaviour, SPEC.timing],
    source: { introducedIn: "2024-11-05" },
    transports: BOTH,
    except: [{ ...HTTP_2026, why: "in 2026-07-28 over Streamable HTTP the cancel is closing the stream: see stream-close-cancels" }],
    needs: ["slowTool"],
    steps: [
      { do: "call", as: "call", tool: "slow", progress: true },
      { do: "waitStarted", of: "call" },
      { do: "cancel", of: "call", reason: "conformance: cancelled in flight" },
      { do: "observe", until: "toolEnd", of: "call" },
      { do: "ping", as: "ping" },
    ],
    checks: [
      {
        id: "no-response-after-cancel",
        name: "NoResponseAfterCancel",
        description: "No response (result or error) for the cancelled request, up to past the tool's own run time.",
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources; Not send a response for the cancelled request",
        expect: { op: "noResponse", of: "call" },
      },
      CHECK.workStops,
      CHECK.usable,
    ],
  },
  {
    name: "progress-stops-after-cancel",
    role: "server",
    description: "The work of a cancelled request stops: its progress notifications stop (counted over the tool's own run time).",
    specReferences: [SPEC.behaviour],
    source: { introducedIn: "2024-11-05" },
    transports: BOTH,
    except: [{ ...HTTP_2026, why: "in 2026-07-28 over Streamable HTTP the request's progress travels on the stream the cancel closes: nothing left to count" }],
    needs: ["slowTool", "progress"],
    steps: [
      { do: "call", as: "call", tool: "slow", progress: true },
      { do: "waitProgress", of: "call" },
      { do: "cancel", of: "call", reason: "conformance: stop the work" },
      { do: "observe", until: "toolEnd", of: "call" },
    ],
    checks: [
      {
        id: "progress-stops",
        name: "ProgressStopsAfterCancel",
        description: `No notifications/progress for the request later than ${PROGRESS_GRACE_MS} ms after the cancel was written (those within are in flight).`,
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request",
        expect: { op: "progressStopped", of: "call", graceMs: PROGRESS_GRACE_MS },
      },
    ],
  },
  {
    name: "cancel-id-zero",
    role: "server",
    description: "Request id 0 is an id like any other: a cancel for it is honoured (no result, the work stops).",
    specReferences: [SPEC.requestId, SPEC.behaviour],
    source: { introducedIn: "2024-11-05" },
    transports: BOTH,
    except: [{ ...HTTP_2026, why: "in 2026-07-28 over Streamable HTTP the cancel is closing the stream, which names no id" }],
    needs: ["slowTool"],
    steps: [
      { do: "call", as: "call", id: 0, tool: "slow", progress: true },
      { do: "waitStarted", of: "call" },
      { do: "cancel", of: "call", reason: "conformance: cancel id 0" },
      { do: "observe", until: "toolEnd", of: "call" },
      { do: "ping", as: "ping" },
    ],
    checks: [
      {
        id: "cancel-honoured",
        name: "CancelHonouredForIdZero",
        description: "No result arrives for request 0 after its cancel (a result at the tool's end means the cancel was ignored).",
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "RequestId = string | number; receivers SHOULD stop processing the cancelled request and not send a response",
        expect: { op: "honoured", of: "call" },
      },
      CHECK.workStops,
      CHECK.usable,
    ],
  },
  {
    name: "cancel-id-empty-string",
    role: "server",
    description: 'Request id "" is an id like any other: a cancel for it is honoured (no result, the work stops).',
    specReferences: [SPEC.requestId, SPEC.behaviour],
    source: { introducedIn: "2024-11-05" },
    transports: BOTH,
    except: [{ ...HTTP_2026, why: "in 2026-07-28 over Streamable HTTP the cancel is closing the stream, which names no id" }],
    needs: ["slowTool"],
    steps: [
      { do: "call", as: "call", id: "", tool: "slow", progress: true },
      { do: "waitStarted", of: "call" },
      { do: "cancel", of: "call", reason: 'conformance: cancel id ""' },
      { do: "observe", until: "toolEnd", of: "call" },
      { do: "ping", as: "ping" },
    ],
    checks: [
      {
        id: "cancel-honoured",
        name: "CancelHonouredForEmptyStringId",
        description: 'No result arrives for request "" after its cancel.',
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "RequestId = string | number; receivers SHOULD stop processing the cancelled request and not send a response",
        expect: { op: "honoured", of: "call" },
      },
      CHECK.workStops,
      CHECK.usable,
    ],
  },
  {
    name: "id-types-distinct",
    role: "server",
    description: 'Ids "7" and 7 are different requests: a cancel for "7" does not cancel 7, a cancel for 8 does not cancel "8".',
    specReferences: [SPEC.requestId, SPEC.errors],
    source: { introducedIn: "2024-11-05" },
    transports: BOTH,
    except: [{ ...HTTP_2026, why: "in 2026-07-28 over Streamable HTTP a client does not send cancels by id" }],
    needs: ["slowTool"],
    steps: [
      { do: "call", as: "number", id: 7, tool: "slow", progress: true },
      { do: "call", as: "string", id: "8", tool: "slow", progress: true },
      { do: "waitStarted", of: "number" },
      { do: "rawCancel", requestId: "7", reason: 'conformance: "7" is not 7' },
      { do: "rawCancel", requestId: 8, reason: 'conformance: 8 is not "8"' },
      { do: "observe", until: "toolEnd", of: "string" },
    ],
    checks: [
      {
        id: "number-id-not-cancelled",
        name: "NumberIdNotCancelledByStringId",
        description: 'Request 7 still gets its result after a cancel for "7".',
        level: "SHOULD",
        spec: SPEC.errors,
        quote: 'RequestId = string | number ("1" and 1 are different ids); a cancel for an unknown request SHOULD be ignored',
        expect: { op: "responded", of: "number", kind: "result" },
      },
      {
        id: "string-id-not-cancelled",
        name: "StringIdNotCancelledByNumberId",
        description: 'Request "8" still gets its result after a cancel for 8.',
        level: "SHOULD",
        spec: SPEC.errors,
        quote: 'RequestId = string | number ("1" and 1 are different ids); a cancel for an unknown request SHOULD be ignored',
        expect: { op: "responded", of: "string", kind: "result" },
      },
    ],
  },
  {
    name: "cancel-finished-request",
    role: "server",
    description: "A cancel for a request that already got its response is ignored.",
    specReferences: [SPEC.errors, SPEC.timing],
    source: { introducedIn: "2024-11-05" },
    transports: BOTH,
    needs: [],
    steps: [
      { do: "call", as: "done", method: "tools/list" },
      { do: "waitResponse", of: "done" },
      { do: "rawCancel", of: "done", reason: "conformance: too late" },
      { do: "observe", ms: 500 },
      { do: "ping", as: "ping" },
    ],
    checks: [CHECK.ignored, CHECK.usable],
  },
  {
    name: "cancel-unknown-request",
    role: "server",
    description: "A cancel for ids the client never sent is ignored.",
    specReferences: [SPEC.errors],
    source: { introducedIn: "2024-11-05" },
    transports: BOTH,
    needs: [],
    steps: [
      { do: "rawCancel", requestId: "conformance-never-sent", reason: "conformance: unknown id" },
      { do: "rawCancel", requestId: 424242, reason: "conformance: unknown id" },
      { do: "observe", ms: 500 },
      { do: "ping", as: "ping" },
    ],
    checks: [CHECK.ignored, CHECK.usable],
  },
  {
    name: "cancel-malformed",
    role: "server",
    description: "Malformed cancels (no params, no requestId, a null, object or boolean requestId, params not an object) are ignored.",
    specReferences: [SPEC.errors],
    source: { introducedIn: "2024-11-05" },
    transports: BOTH,
    needs: [],
    steps: [
      { do: "rawMessage", message: { jsonrpc: "2.0", method: "notifications/cancelled" } },
      { do: "rawMessage", message: { jsonrpc: "2.0", method: "notifications/cancelled", params: {} } },
      { do: "rawMessage", message: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: null } } },
      { do: "rawMessage", message: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: { id: 1 } } } },
      { do: "rawMessage", message: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: true, reason: 42 } } },
      // Not JSON-RPC at all (params must be an object or an array): over HTTP a transport may refuse it (HTTP 400), which is noted, not failed.
      { do: "rawMessage", message: { jsonrpc: "2.0", method: "notifications/cancelled", params: "requestId=1" }, notJsonRpc: true },
      { do: "observe", ms: 500 },
      { do: "ping", as: "ping" },
    ],
    checks: [CHECK.ignored, CHECK.usable],
  },
  {
    name: "initialize-not-cancellable",
    role: "server",
    description:
      "A client MUST NOT cancel initialize; the suite does it anyway (the cancel written right behind initialize as the server starts) and expects the server to ignore it: initialize answered, the connection usable.",
    specReferences: [SPEC.behaviour],
    source: { introducedIn: "2024-11-05", removedIn: "2026-07-28" },
    transports: BOTH,
    needs: [],
    // The server is started for this scenario and both messages are written at once, before
    // it reads its input: the cancel is there while initialize is handled (as when a client's
    // connect timeout expires while the server starts).
    coldStart: true,
    handshake: false,
    steps: [
      { do: "initialize", as: "init" },
      { do: "rawCancel", of: "init", reason: "conformance: cancelling initialize on purpose" },
      { do: "waitResponse", of: "init" },
      { do: "initialized", of: "init" },
      { do: "observe", ms: 300 },
      { do: "ping", as: "ping" },
    ],
    checks: [
      {
        id: "initialize-answered",
        name: "InitializeAnsweredDespiteCancel",
        description: "The server answers initialize with a result: a cancel a client may not send is an invalid cancel, ignored.",
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "The initialize request MUST NOT be cancelled by clients; Invalid cancellation notifications SHOULD be ignored",
        expect: { op: "responded", of: "init", kind: "result" },
      },
      CHECK.ignored,
      CHECK.usable,
    ],
  },
  {
    name: "task-cancelled-with-tasks-cancel",
    role: "server",
    description: "2025-11-25: a task-augmented request is cancelled with tasks/cancel { taskId } (never notifications/cancelled), and the task ends cancelled.",
    specReferences: [SPEC.tasks, SPEC.behaviour],
    source: { introducedIn: "2025-11-25", removedIn: "2026-07-28" },
    transports: BOTH,
    needs: ["taskTool"],
    steps: [
      { do: "call", as: "call", tool: "task" },
      { do: "waitResponse", of: "call" },
      { do: "cancel", of: "call", reason: "conformance: cancel the task" },
      { do: "waitEvent", type: "task-cancel-answered" },
      { do: "taskStatus", of: "call", as: "status" },
      { do: "observe", ms: 1000 },
      { do: "taskStatus", of: "call", as: "later" },
    ],
    checks: [
      {
        id: "tasks-cancel-accepted",
        name: "TasksCancelAccepted",
        description: "tasks/cancel for the working task is answered with the task in state cancelled (as the session reads the answer).",
        level: "MUST",
        spec: SPEC.tasks,
        quote: "For task-augmented requests, the tasks/cancel request MUST be used instead of the notifications/cancelled notification",
        expect: { op: "taskCancelAnswered", of: "call", outcome: "cancelled" },
      },
      {
        id: "task-ends-cancelled",
        name: "TaskStaysCancelled",
        description: "tasks/get reports the task cancelled right after, and still a second later.",
        level: "MUST",
        spec: SPEC.tasks,
        quote: "Tasks have their own dedicated cancellation mechanism that returns the final task state",
        expect: { op: "taskStatus", of: ["status", "later"], equals: "cancelled" },
      },
    ],
  },
  {
    name: "stream-close-cancels",
    role: "server",
    description: "2026-07-28 over Streamable HTTP: closing a request's response stream cancels it; no notification is sent.",
    specReferences: [SPEC.transport, SPEC.behaviour],
    source: { introducedIn: "2026-07-28" },
    transports: ["streamable-http"],
    needs: ["slowTool"],
    steps: [
      { do: "call", as: "call", tool: "slow", progress: true },
      { do: "waitStarted", of: "call" },
      { do: "cancel", of: "call", reason: "conformance: close the stream" },
      { do: "observe", until: "toolEnd", of: "call" },
      { do: "ping", as: "ping" },
    ],
    checks: [
      {
        id: "closed-by-stream",
        name: "CancelledByClosingTheStream",
        description: "The cancel went out as the close of the request's stream, with no notifications/cancelled (the session's decision for this revision and transport).",
        level: "MUST",
        spec: SPEC.transport,
        quote: "Streamable HTTP: Closing the SSE response stream is the cancellation signal. … No notifications/cancelled message is required or expected.",
        expect: { op: "cancelledVia", of: "call", via: "stream-close" },
      },
      {
        id: "no-response-after-cancel",
        name: "NoResponseAfterStreamClose",
        description: "No response for the request arrives on any other stream after the close.",
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "Servers receiving cancellation notifications SHOULD … Not send a response for the cancelled request",
        expect: { op: "noResponse", of: "call" },
      },
      {
        id: "work-stops",
        name: "WorkStopsAfterStreamClose",
        description: "Whether the server stopped the work.",
        level: "MUST",
        spec: SPEC.transport,
        quote: "The server MUST treat a client disconnect as cancellation of that request.",
        expect: { op: "notObservable", why: "not observable from outside: the request's progress and result travel on the stream that was closed" },
      },
      CHECK.usable,
    ],
  },
  {
    name: "nested-request-cancelled",
    role: "server",
    description:
      "A tool call whose handler waits on a request to the client (elicitation, sampling, roots/list) is cancelled: the server cancels that nested request too, sends no response to the call, and ignores the answer the client sends late.",
    specReferences: [SPEC.behaviour, SPEC.timing],
    source: { introducedIn: "2024-11-05", removedIn: "2026-07-28" },
    transports: BOTH,
    except: [{ revision: "2026-07-28", why: `${NO_SERVER_REQUESTS_2026}: there is no nested request to cancel` }],
    needs: ["nestedTool"],
    clientCapabilities: NESTED_CAPABILITIES,
    steps: [
      // Requests the server sends at connect (roots/list, to a client with roots) are answered first.
      { do: "settle" },
      { do: "call", as: "call", tool: "nested", progress: true },
      { do: "waitNested", of: "call", as: "nested" },
      { do: "cancel", of: "call", reason: "conformance: cancel the call that waits on its nested request" },
      { do: "observe", ms: NESTED_CANCEL_MS },
      { do: "answerLate", of: "nested" },
      { do: "observe", ms: 500 },
      { do: "ping", as: "ping" },
    ],
    checks: [
      {
        id: "nested-request-cancelled",
        name: "NestedRequestCancelled",
        description: `The server sends notifications/cancelled for its nested request within ${NESTED_CANCEL_MS} ms of the call's cancel (the suite never answered it).`,
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources",
        expect: { op: "nestedCancelled", of: "nested", withinMs: NESTED_CANCEL_MS },
      },
      {
        id: "no-response-after-cancel",
        name: "NoResponseAfterCancel",
        description: "No response (result or error) for the cancelled call, before or after the late answer to its nested request.",
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources; Not send a response for the cancelled request",
        expect: { op: "noResponse", of: "call" },
      },
      {
        id: "late-answer-ignored",
        name: "LateNestedAnswerIgnored",
        description: "The answer to the nested request, sent after the call's cancel, is ignored: nothing replies to it, no error is logged, the server does not exit.",
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward",
        expect: { op: "lateAnswerIgnored", of: "nested" },
      },
      CHECK.usable,
    ],
  },
]);

/**
 * The scenarios where the suite is the server and a client is under test (`--client`). The
 * suite spawns the client command once per scenario with `MCP_CONFORMANCE_SCENARIO` set to
 * the scenario's name and `MCP_CONFORMANCE_CONTEXT` to the JSON of its `context`, and speaks
 * MCP server-side over the child's stdin/stdout. `instructions` is what the client must do.
 * `server` is how the suite's server behaves in it. `except`: a revision where it is n/a
 * and why (the scenario's `source` already excludes it; the reason says more).
 */
export const CLIENT_SCENARIOS = Object.freeze([
  {
    name: "client-cancels-in-flight",
    role: "client",
    description: "The client cancels a tool call it aborts while it runs: one cancel (over stdio a notifications/cancelled in every revision); the late answer the server still sends is not surfaced as an error.",
    specReferences: [SPEC.behaviour, SPEC.timing],
    source: { introducedIn: "2024-11-05" },
    transports: ["stdio"],
    instructions: "Call the tool `slow` (arguments {}) with a progress callback and an AbortSignal; abort the signal at the first notifications/progress; wait `settleMs`; exit.",
    context: { tool: "slow", settleMs: 1000 },
    server: { lateAnswer: { afterMs: 150, progress: 1, result: true } },
    steps: [
      "answer initialize (2026-07-28: server/discover, if the client asks)",
      "tools/call slow: send notifications/progress every 100 ms",
      "on a valid cancel (the session's verdict) stop, then 150 ms later send one late progress and the result anyway (the race the spec allows)",
      "wait for the client to exit",
    ],
    checks: [
      {
        id: "cancel-sent",
        name: "CancelSentForRequestInFlight",
        description: "Exactly one cancel the session accepts for the tools/call in flight.",
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "Cancellation notifications MUST only reference requests that were previously issued in the same direction and are believed to still be in-progress",
        expect: { op: "cancelReceived", method: "tools/call", count: 1 },
      },
      {
        id: "every-cancel-valid",
        name: "NoInvalidCancel",
        description: "No cancel the session ignores (finished, unknown, malformed, initialize, duplicate).",
        level: "MUST",
        spec: SPEC.behaviour,
        quote: "Cancellation notifications MUST only reference requests that … are believed to still be in-progress",
        expect: { op: "noInvalidCancels" },
      },
      {
        id: "late-answer-not-surfaced",
        name: "LateAnswerNotSurfaced",
        description: "The late progress and result reach no error handler of the client (as the client reports them).",
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward",
        expect: { op: "clientErrors" },
      },
    ],
  },
  {
    name: "client-no-cancel-after-completion",
    role: "client",
    description: "Aborting after the call finished sends no cancel.",
    specReferences: [SPEC.behaviour],
    source: { introducedIn: "2024-11-05" },
    transports: ["stdio"],
    instructions: "Call the tool `fast` (arguments {}) with an AbortSignal, await its result, then abort the signal; wait `settleMs`; exit.",
    context: { tool: "fast", settleMs: 500 },
    server: {},
    steps: ["answer initialize (2026-07-28: server/discover, if the client asks)", "tools/call fast: answer at once", "wait for the client to exit"],
    checks: [
      {
        id: "no-cancel-for-finished",
        name: "NoCancelForFinishedRequest",
        description: "No cancel for the finished call (the session ignores any as not-in-flight).",
        level: "MUST",
        spec: SPEC.behaviour,
        quote: "Cancellation notifications MUST only reference requests that … are believed to still be in-progress",
        expect: { op: "noInvalidCancels" },
      },
    ],
  },
  {
    name: "client-never-cancels-initialize",
    role: "client",
    description: "A client whose connect times out does not cancel initialize.",
    specReferences: [SPEC.behaviour],
    source: { introducedIn: "2024-11-05", removedIn: "2026-07-28" },
    transports: ["stdio"],
    except: [{ revision: "2026-07-28", why: "2026-07-28 has no initialize (server/discover is an ordinary request, which a client may cancel)" }],
    instructions: "Connect with a handshake timeout of `connectTimeoutMs` (the server answers initialize only after `initializeDelayMs`); whether it fails or not, wait `settleMs`; exit.",
    context: { connectTimeoutMs: 500, initializeDelayMs: 1500, settleMs: 1300 },
    server: { initializeDelayMs: 1500 },
    steps: ["answer initialize only after 1500 ms", "wait for the client to exit"],
    checks: [
      {
        id: "initialize-not-cancelled",
        name: "InitializeNotCancelled",
        description: "No cancel for initialize (the session ignores one as the handshake).",
        level: "MUST",
        spec: SPEC.behaviour,
        quote: "The initialize request MUST NOT be cancelled by clients",
        expect: { op: "noInvalidCancels" },
      },
    ],
  },
  {
    name: "client-cancels-task-with-tasks-cancel",
    role: "client",
    description: "2025-11-25: the client cancels a task-augmented call with tasks/cancel { taskId }, never notifications/cancelled.",
    specReferences: [SPEC.tasks, SPEC.behaviour],
    source: { introducedIn: "2025-11-25", removedIn: "2026-07-28" },
    transports: ["stdio"],
    except: [{ revision: "2026-07-28", why: "2026-07-28 moves tasks to the io.modelcontextprotocol/tasks extension, which the suite's server does not implement" }],
    instructions: "Call the tool `slow` as a task-augmented request (params.task { ttl: 60000 }) with an AbortSignal, wait for the CreateTaskResult, then abort the signal; wait `settleMs`; exit.",
    context: { tool: "slow", settleMs: 1000 },
    server: { tasks: true },
    steps: ["answer initialize with the tasks capability", "tools/call slow with params.task: answer a CreateTaskResult at once, the task keeps working", "tasks/cancel: the task ends cancelled", "wait for the client to exit"],
    checks: [
      {
        id: "tasks-cancel-sent",
        name: "TaskCancelledWithTasksCancel",
        description: "One tasks/cancel naming the task.",
        level: "MUST",
        spec: SPEC.tasks,
        quote: "For task-augmented requests, the tasks/cancel request MUST be used instead of the notifications/cancelled notification",
        expect: { op: "tasksCancelReceived", count: 1 },
      },
      {
        id: "no-notification-for-task",
        name: "NoCancelledNotificationForTask",
        description: "No notifications/cancelled names the task's tools/call (the session ignores one: task-augmented while the call is unanswered, not-in-flight after its CreateTaskResult), and every cancel is one the session accepts.",
        level: "MUST",
        spec: SPEC.tasks,
        quote: "For task-augmented requests, the tasks/cancel request MUST be used instead of the notifications/cancelled notification",
        expect: { op: "noNotificationForTask" },
      },
    ],
  },
  {
    name: "client-elicitation-cancelled",
    role: "client",
    description: "The server cancels its elicitation/create while the client's handler still waits on the user: the client sends no answer for it after the cancel.",
    specReferences: [SPEC.behaviour, SPEC.timing],
    source: { introducedIn: "2025-06-18", removedIn: "2026-07-28" },
    transports: ["stdio"],
    except: [{ revision: "2026-07-28", why: `${NO_SERVER_REQUESTS_2026}: there is no elicitation/create to cancel` }],
    instructions:
      'Declare the elicitation capability and answer elicitation/create with { action: "decline" } after `answerAfterMs` (as a user would); call the tool `ask` (arguments {}) and await its result; wait `settleMs`; exit.',
    context: { tool: "ask", answerAfterMs: 600, settleMs: 300 },
    server: { elicit: { cancelAfterMs: 200, resultAfterMs: 1000 } },
    steps: [
      "answer initialize (the client declares elicitation)",
      "tools/call ask: send elicitation/create, and 200 ms later cancel it through the session (notifications/cancelled)",
      "answer the call 1000 ms after the elicitation, past the time the client would have answered",
      "wait for the client to exit",
    ],
    checks: [
      {
        id: "no-answer-after-cancel",
        name: "NoAnswerForCancelledElicitation",
        description: "No response (result or error) from the client for the elicitation/create after the server cancelled it.",
        level: "SHOULD",
        spec: SPEC.behaviour,
        quote: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources; Not send a response for the cancelled request",
        expect: { op: "noAnswerAfterCancel", method: "elicitation/create" },
      },
      {
        id: "every-cancel-valid",
        name: "NoInvalidCancel",
        description: "No cancel the session ignores from the client (finished, unknown, malformed, initialize, duplicate).",
        level: "MUST",
        spec: SPEC.behaviour,
        quote: "Cancellation notifications MUST only reference requests that … are believed to still be in-progress",
        expect: { op: "noInvalidCancels" },
      },
    ],
  },
]);

/** Every scenario, by name. */
export const SCENARIOS = Object.freeze([...SERVER_SCENARIOS, ...CLIENT_SCENARIOS]);

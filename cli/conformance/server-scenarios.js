// The server scenarios: the suite is the client and the server is under test (`--server`,
// `--url`); server-runner.js runs them. scenarios.js says what a scenario is made of.

import { NO_SERVER_REQUESTS_2026, SPEC } from "./scenarios.js";

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

/**
 * The checks the server scenarios share. `level` is the strength of the requirement in the spec
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

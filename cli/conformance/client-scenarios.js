// The client scenarios: the suite is the server and a client is under test (`--client`);
// client-runner.js runs them. scenarios.js says what a scenario is made of.

import { NO_SERVER_REQUESTS_2026, SPEC } from "./scenarios.js";

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

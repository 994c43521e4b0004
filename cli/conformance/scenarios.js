// The cancellation conformance scenarios are data, in the shape of the official
// @modelcontextprotocol/conformance suite: each scenario has a `name`, a `description`, the
// spec sections it checks (`specReferences`), where it applies (`source` as upstream: the
// revision it was introduced in and, if any, removed in; plus the transports), its `steps`
// and its `checks`. Steps and checks are small verbs the runners interpret. The server
// scenarios (the suite is the client) are in server-scenarios.js, run by server-runner.js; the
// client scenarios (the suite is the server) in client-scenarios.js, run by client-runner.js.
// This file holds what both are written with: the revisions and the spec sections. A check's
// status is "pass", "fail" or "n/a"; the JSON report also gives each check in upstream's
// shape, where a pass is SUCCESS, a failed MUST is FAILURE, a failed SHOULD is WARNING and an
// n/a is INFO (report.js).
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

/** In 2026-07-28 a server asks the client for input in its result, not with a request. */
export const NO_SERVER_REQUESTS_2026 = "in 2026-07-28 a server asks for input in its result (InputRequiredResult), not with a request to the client";

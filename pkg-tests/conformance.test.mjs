// `mcp-cancel conformance --server` / `--url`, run as the user runs it: `node
// cli/main.js conformance … --json` in a child process, against the real peers of the peer
// matrix — the TypeScript SDK 1.32.2 McpServer, Python `mcp` 2.3.0 and 1.30.0 (server-everything
// and an SDK 2.x server over HTTP: conformance-everything.test.mjs). Each
// asserts the results already known from the peer matrix (pkg-tests/peers.test.mjs,
// /work/shared/mcp-cancellation.md) or observed with this suite; the results tables are printed
// as test diagnostics. (--client mode and usage: conformance-client.test.mjs.)
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { NESTED, NODE_SERVER, PY1, PY2, SERVER_PY, SLOW, check, cli, scenario, skipPython, statuses, table } from "./conformance-helpers.mjs";

describe("mcp-cancel conformance --server", { timeout: 120000 }, () => {
  test("the same McpServer with its transport guarded ({ role: \"server\" }): every scenario passes", async (t) => {
    const { code, report } = await cli(["--server", `${NODE_SERVER} --guard`, ...SLOW, ...NESTED, "--json"]);
    table(t, "TS SDK 1.32.2 McpServer, guarded", report);
    assert.equal(code, 0, "exit code 0");
    assert.deepEqual(statuses(report), {
      "cancel-in-flight": "pass",
      "progress-stops-after-cancel": "pass",
      // The SDK gets requests 0 and "" under a stand-in id, so it aborts their handlers.
      "cancel-id-zero": "pass",
      "cancel-id-empty-string": "pass",
      "id-types-distinct": "pass",
      "cancel-finished-request": "pass",
      "cancel-unknown-request": "pass",
      "cancel-malformed": "pass",
      "initialize-not-cancellable": "pass",
      "task-cancelled-with-tasks-cancel": "n/a",
      "stream-close-cancels": "n/a",
      "nested-request-cancelled": "pass",
    });
    assert.equal(check(report, "cancel-id-zero", "work-stops").status, "pass");
  });

  test("TS SDK 1.32.2 McpServer: ids 0 and \"\" are not cancellable, a cancel of initialize leaves it unanswered, a cancelled call leaves its elicitation open; the rest passes", async (t) => {
    const { code, report } = await cli(["--server", NODE_SERVER, ...SLOW, ...NESTED, "--json"]);
    table(t, "TS SDK 1.32.2 McpServer", report);
    assert.equal(code, 1, "exit code 1: scenarios failed");
    assert.equal(report.ok, false);
    assert.deepEqual(statuses(report), {
      "cancel-in-flight": "pass",
      "progress-stops-after-cancel": "pass",
      "cancel-id-zero": "fail",
      "cancel-id-empty-string": "fail",
      "id-types-distinct": "pass",
      "cancel-finished-request": "pass",
      "cancel-unknown-request": "pass",
      "cancel-malformed": "pass",
      "initialize-not-cancellable": "fail",
      "task-cancelled-with-tasks-cancel": "n/a",
      "stream-close-cancels": "n/a",
      "nested-request-cancelled": "fail",
    });
    assert.match(check(report, "cancel-id-zero", "cancel-honoured").detail, /a result for 0 .* the cancel for 0 was ignored/);
    // Its handler honours the signal: the work of a cancelled call stops; for id 0 the SDK never aborts it.
    assert.match(check(report, "cancel-in-flight", "work-stops").detail, /^0 progress after the cancel over \d+ ms/);
    assert.match(check(report, "cancel-id-zero", "work-stops").detail, /^the work went on: \d+ progress notifications after the cancel/);
    // `ask` calls elicitInput() with no signal: the elicitation outlives the call's cancel.
    assert.equal(report.preflight.nested.method, "elicitation/create");
    assert.match(check(report, "nested-request-cancelled", "nested-request-cancelled").detail, /^no notifications\/cancelled for its elicitation\/create 0 .*the nested request stays open/);
    for (const id of ["no-response-after-cancel", "late-answer-ignored", "connection-usable"]) assert.equal(check(report, "nested-request-cancelled", id).status, "pass", id);
    assert.equal(check(report, "cancel-id-zero", "connection-usable").status, "pass");
    assert.match(check(report, "initialize-not-cancellable", "initialize-answered").detail, /unanswered .*the server acted on the cancel/);
    // The evidence: the wire lines, the late result marked as dropped by the session.
    const lines = scenario(report, "cancel-id-zero").evidence.lines;
    assert.ok(lines.some((l) => /→ notifications\/cancelled \{"requestId":0/.test(l) && /the session's cancel/.test(l)), lines.join("\n"));
    assert.ok(lines.some((l) => /← result 0 .*dropped by the session/.test(l)), lines.join("\n"));
    // The shape of the upstream suite: spec references with URLs of the negotiated revision.
    const s = scenario(report, "cancel-in-flight");
    assert.ok(s.specReferences.every((r) => r.url.startsWith("https://modelcontextprotocol.io/specification/2025-11-25/")));
    assert.ok(s.checks.every((c) => c.id && c.name && c.description && c.level && c.status && c.detail));
    assert.equal(report.preflight.baseline.progress, 10);
  });

  test("Python mcp 2.3.0: coerces \"7\" to 7 (and 8 to \"8\"), honours everything else, and cancels the elicitation of a cancelled call", { skip: skipPython(PY2) }, async (t) => {
    const { code, report } = await cli(["--server", `${PY2} ${SERVER_PY}`, ...SLOW, ...NESTED, "--json"]);
    table(t, "Python mcp 2.3.0", report);
    assert.equal(code, 1);
    const got = statuses(report);
    assert.deepEqual(
      Object.keys(got).filter((k) => got[k] === "fail"),
      ["id-types-distinct"],
    );
    for (const name of ["cancel-in-flight", "progress-stops-after-cancel", "cancel-id-zero", "cancel-id-empty-string", "cancel-malformed", "initialize-not-cancellable", "nested-request-cancelled"]) {
      assert.equal(got[name], "pass", name);
    }
    assert.match(check(report, "id-types-distinct", "number-id-not-cancelled").detail, /tools\/call 7 unanswered/);
    // `ctx.elicit(…)` is cancelled with the call: its notifications/cancelled follows the call's within milliseconds.
    assert.match(check(report, "nested-request-cancelled", "nested-request-cancelled").detail, /^notifications\/cancelled for its elicitation\/create \d+ .* \d+ ms after the call's cancel, reason "caller cancelled"; the session took it as valid$/);
  });

  test("Python mcp 1.30.0: answers a cancelled request with error 0 (slow), and dies when a stubborn handler returns", { skip: skipPython(PY1) }, async (t) => {
    const [slow, stubborn] = await Promise.all([
      cli(["--server", `${PY1} ${SERVER_PY}`, ...SLOW, ...NESTED, "--json"]),
      cli(["--server", `${PY1} ${SERVER_PY}`, "--tool", "stubborn", "--arguments", '{"ms":1200}', "--scenario", "cancel-in-flight", "--json"]),
    ]);
    table(t, "Python mcp 1.30.0, tool slow", slow.report);
    table(t, "Python mcp 1.30.0, tool stubborn", stubborn.report);
    assert.equal(slow.code, 1);
    const got = statuses(slow.report);
    assert.equal(got["cancel-in-flight"], "fail");
    assert.match(check(slow.report, "cancel-in-flight", "no-response-after-cancel").detail, /error 0 "Request cancelled" .* ms after the cancel \(dropped by the session\)/);
    assert.equal(check(slow.report, "cancel-in-flight", "connection-usable").status, "pass");
    for (const name of ["progress-stops-after-cancel", "cancel-id-zero", "cancel-id-empty-string", "id-types-distinct", "cancel-malformed", "initialize-not-cancellable"]) {
      assert.equal(got[name], "pass", name);
    }
    assert.match(check(slow.report, "cancel-id-zero", "cancel-honoured").detail, /honoured, with an error reply/);
    // Its elicitation outlives the cancelled call, and the late answer to it is logged as an error.
    assert.equal(got["nested-request-cancelled"], "fail");
    assert.match(check(slow.report, "nested-request-cancelled", "nested-request-cancelled").detail, /the nested request stays open/);
    assert.match(check(slow.report, "nested-request-cancelled", "late-answer-ignored").detail, /made the server log an error .*Internal Server Error/);
    // A params-not-an-object cancel makes 1.30.0 log an "Internal Server Error" to the client: reported, not failed.
    assert.ok(scenario(slow.report, "cancel-malformed").evidence.notes.some((n) => /logged 1 error notification/.test(n)));

    assert.equal(stubborn.code, 1);
    assert.equal(statuses(stubborn.report)["cancel-in-flight"], "fail");
    const usable = check(stubborn.report, "cancel-in-flight", "connection-usable");
    assert.equal(usable.status, "fail");
    assert.match(usable.detail, /the server exited.*Request already responded to/);
  });
});

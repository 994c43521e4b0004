// `mcp-cancel conformance` against server-everything over stdio and an SDK 2.x
// server over Streamable HTTP on 127.0.0.1 (2026-07-28): the rest of the server matrix of
// conformance.test.mjs, in a file of its own so each stays well inside npm test's per-file
// time bound.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, test } from "node:test";

import { EVERYTHING, NODE, check, cli, repo, scenario, statuses, table } from "./conformance-helpers.mjs";

describe("mcp-cancel conformance --server / --url: server-everything and an SDK 2.x server", { timeout: 90000 }, () => {
  test("server-everything (its own long-running tool, found without --tool): the work goes on after a cancel, ids 0 and \"\" are not cancellable, its elicitation outlives a cancelled call; its task is cancelled with tasks/cancel", async (t) => {
    const { code, report } = await cli(["--server", `${NODE} ${EVERYTHING} stdio`, "--nested-tool", "trigger-elicitation-request", "--json"]);
    table(t, "server-everything 2026.8.31", report);
    assert.equal(code, 1);
    assert.equal(report.preflight.slow.name, "trigger-long-running-operation");
    assert.deepEqual(statuses(report), {
      "cancel-in-flight": "fail",
      "progress-stops-after-cancel": "fail",
      "cancel-id-zero": "fail",
      "cancel-id-empty-string": "fail",
      "id-types-distinct": "pass",
      "cancel-finished-request": "pass",
      "cancel-unknown-request": "pass",
      "cancel-malformed": "pass",
      "initialize-not-cancellable": "fail",
      "task-cancelled-with-tasks-cancel": "pass",
      "stream-close-cancels": "n/a",
      "nested-request-cancelled": "fail",
    });
    assert.match(check(report, "progress-stops-after-cancel", "progress-stops").detail, /^the work went on: \d+ progress notifications after the cancel over \d+ ms/);
    // The result of the cancelled call is withheld, but the work runs on to its end.
    assert.equal(check(report, "cancel-in-flight", "no-response-after-cancel").status, "pass");
    assert.equal(check(report, "cancel-in-flight", "work-stops").status, "fail");
    assert.match(check(report, "nested-request-cancelled", "nested-request-cancelled").detail, /no notifications\/cancelled for its elicitation\/create/);
    assert.match(check(report, "task-cancelled-with-tasks-cancel", "tasks-cancel-accepted").detail, /answered: cancelled/);
    const lines = scenario(report, "task-cancelled-with-tasks-cancel").evidence.lines;
    assert.ok(lines.some((l) => /→ tasks\/cancel "mcp-cancel:\d+" \{"taskId":/.test(l)), lines.join("\n"));
    assert.ok(!lines.some((l) => /notifications\/cancelled/.test(l)), "no notifications/cancelled for a task");
  });

  test("SDK 2.x over Streamable HTTP on 2026-07-28: closing the stream cancels, no notification", async (t) => {
    const server = spawn(NODE, [`${repo}pkg-tests/peers/node2-http-server.mjs`], { stdio: ["ignore", "pipe", "pipe"] });
    t.after(() => server.kill("SIGKILL"));
    const url = await new Promise((resolve, reject) => {
      let out = "";
      server.stdout.on("data", (d) => {
        out += d;
        if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]).url);
      });
      server.once("exit", () => reject(new Error("the HTTP server exited")));
    });
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { code, report } = await cli(["--url", url, "--tool", "slow", "--arguments", '{"steps":12}', "--protocol-version", "2026-07-28", "--json"]);
    table(t, "SDK 2.x createMcpHandler over HTTP, 2026-07-28", report);
    assert.equal(code, 0, JSON.stringify(report.scenarios.filter((s) => s.status === "fail").map((s) => s.summary)));
    assert.equal(report.revision, "2026-07-28");
    const got = statuses(report);
    assert.equal(got["stream-close-cancels"], "pass");
    assert.equal(check(report, "stream-close-cancels", "work-stops").status, "n/a");
    assert.match(check(report, "stream-close-cancels", "closed-by-stream").detail, /via stream-close; no notifications\/cancelled/);
    assert.equal(got["cancel-in-flight"], "n/a");
    for (const name of ["cancel-finished-request", "cancel-unknown-request", "cancel-malformed"]) assert.equal(got[name], "pass", name);
    assert.match(check(report, "cancel-malformed", "connection-usable").detail, /server\/discover answered/);
  });
});

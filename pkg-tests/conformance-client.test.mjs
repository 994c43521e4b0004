// `mcp-cancel conformance --client` and the command's usage: the suite as the
// server over the child's stdio, against the SDK 1.32.2 Client (the initialize era) and the SDK
// 2.x Client pinned to 2026-07-28 (`--protocol-version 2026-07-28`), each alone and behind
// guardTransport. (Server mode: conformance.test.mjs; split so each file stays well inside the
// per-file time bound of npm test.)
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { NODE, NODE_SERVER, SLOW, check, cli, repo, scenario, statuses, table } from "./conformance-helpers.mjs";

describe("mcp-cancel conformance --client", { timeout: 90000 }, () => {
  const client = (guard) => ["--client", `${NODE} ${repo}pkg-tests/peers/sdk1-client.mjs${guard ? " --guard" : ""}`, "--json"];
  const client2 = (guard) => ["--client", `${NODE} ${repo}pkg-tests/peers/sdk2-client.mjs${guard ? " --guard" : ""}`, "--protocol-version", "2026-07-28", "--json"];

  test("the SDK 1.32.2 Client alone fails every cancel scenario; it answers no elicitation the server cancelled", async (t) => {
    const { code, report } = await cli(client(false));
    table(t, "SDK 1.32.2 Client alone", report);
    assert.equal(code, 1);
    assert.deepEqual(statuses(report), {
      "client-cancels-in-flight": "fail",
      "client-no-cancel-after-completion": "fail",
      "client-never-cancels-initialize": "fail",
      "client-cancels-task-with-tasks-cancel": "fail",
      "client-elicitation-cancelled": "pass",
    });
    assert.equal(check(report, "client-cancels-in-flight", "cancel-sent").status, "pass", "it does send the cancel");
    // Its handler answers after 600 ms with no look at its signal; the SDK drops that answer after the cancel.
    assert.match(check(report, "client-elicitation-cancelled", "no-answer-after-cancel").detail, /^no answer to the elicitation\/create in \d+ ms after its cancel/);
    assert.match(check(report, "client-cancels-in-flight", "late-answer-not-surfaced").detail, /unknown message ID/);
    assert.match(check(report, "client-no-cancel-after-completion", "no-cancel-for-finished").detail, /cancel for 1 \(tools\/call\) .*not-in-flight/);
    assert.match(check(report, "client-never-cancels-initialize", "initialize-not-cancelled").detail, /cancel for 0 \(initialize\) .*handshake/);
    assert.match(check(report, "client-cancels-task-with-tasks-cancel", "tasks-cancel-sent").detail, /no tasks\/cancel/);
    // The session's verdict: the notification came after the CreateTaskResult, so the call is no longer in flight.
    assert.match(check(report, "client-cancels-task-with-tasks-cancel", "no-notification-for-task").detail, /notifications\/cancelled for the task's tools\/call 1 .*\(the session: cancel ignored \(not-in-flight\)\)/);
  });

  test("the SDK 1.32.2 Client behind guardTransport passes every scenario", async (t) => {
    const { code, report } = await cli(client(true));
    table(t, "SDK 1.32.2 Client + guardTransport", report);
    assert.equal(code, 0);
    assert.deepEqual(new Set(Object.values(statuses(report))), new Set(["pass"]));
    assert.match(check(report, "client-cancels-in-flight", "cancel-sent").detail, /reason "Request cancelled"/);
    assert.match(check(report, "client-cancels-in-flight", "late-answer-not-surfaced").detail, /no error after 2 late message/);
    assert.match(check(report, "client-cancels-task-with-tasks-cancel", "tasks-cancel-sent").detail, /1 tasks\/cancel \{ taskId: "conformance-task-1" \}/);
  });

  test("2026-07-28, the SDK 2.x Client pinned, alone: cancels over stdio with a notification and nothing after completion, but the late answer reaches onerror", async (t) => {
    const { code, report } = await cli(client2(false));
    table(t, "SDK 2.x Client pinned to 2026-07-28, alone", report);
    assert.equal(code, 1);
    assert.equal(report.revision, "2026-07-28");
    assert.equal(report.offeredVersion, "2026-07-28");
    assert.deepEqual(statuses(report), {
      "client-cancels-in-flight": "fail",
      "client-no-cancel-after-completion": "pass",
      "client-never-cancels-initialize": "n/a",
      "client-cancels-task-with-tasks-cancel": "n/a",
      "client-elicitation-cancelled": "n/a",
    });
    assert.match(scenario(report, "client-elicitation-cancelled").summary, /InputRequiredResult/);
    const inFlight = scenario(report, "client-cancels-in-flight");
    assert.match(check(report, "client-cancels-in-flight", "cancel-sent").detail, /^1 cancel\(s\) for tools\/call 0 .*reason "AbortError: This operation was aborted"\), _meta version "2026-07-28"$/);
    assert.equal(check(report, "client-cancels-in-flight", "every-cancel-valid").status, "pass");
    // Both late messages reach the client's onerror; in which order the SDK reports them
    // varies from run to run (one full run saw the answer's error first).
    const surfaced = check(report, "client-cancels-in-flight", "late-answer-not-surfaced").detail;
    assert.match(surfaced, /unknown token/);
    assert.match(surfaced, /unknown message ID/);
    // 2026-07-28: server/discover at connect, no initialize; the suite's results carry resultType.
    const lines = inFlight.evidence.lines;
    assert.ok(lines.some((l) => /← server\/discover /.test(l)), lines.join("\n"));
    assert.ok(!lines.some((l) => /initialize/.test(l)), lines.join("\n"));
    assert.equal(inFlight.evidence.wire.find((w) => w.dir === "in" && w.message.method === "tools/call").message.params._meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    assert.match(scenario(report, "client-never-cancels-initialize").summary, /2026-07-28 has no initialize/);
    assert.match(scenario(report, "client-cancels-task-with-tasks-cancel").summary, /io\.modelcontextprotocol\/tasks extension/);
    assert.equal(scenario(report, "client-never-cancels-initialize").evidence.wire.length, 0, "an n/a scenario of a fixed revision starts no client");
  });

  test("2026-07-28, the SDK 2.x Client pinned behind guardTransport passes what applies", async (t) => {
    const { code, report } = await cli(client2(true));
    table(t, "SDK 2.x Client pinned to 2026-07-28 + guardTransport", report);
    assert.equal(code, 0);
    assert.deepEqual(statuses(report), {
      "client-cancels-in-flight": "pass",
      "client-no-cancel-after-completion": "pass",
      "client-never-cancels-initialize": "n/a",
      "client-cancels-task-with-tasks-cancel": "n/a",
      "client-elicitation-cancelled": "n/a",
    });
    assert.match(check(report, "client-cancels-in-flight", "cancel-sent").detail, /reason "Request cancelled"\), _meta version "2026-07-28"/);
    assert.match(check(report, "client-cancels-in-flight", "late-answer-not-surfaced").detail, /no error after 2 late message/);
    // The suite keeps a server's books (role "server"): in 2026-07-28 the client's cancel is valid.
    const events = scenario(report, "client-cancels-in-flight").evidence.events;
    assert.ok(events.some((e) => e.type === "cancel-received" && e.method === "tools/call" && e.requestId === 0), JSON.stringify(events));
    assert.ok(!events.some((e) => e.type === "cancel-ignored"), JSON.stringify(events));
  });

  test("an elicitation the server cancels: the SDK 2.x Client (initialize era) sends no answer; a hand-written client that answers anyway fails", async (t) => {
    const only = ["--scenario", "client-elicitation-cancelled", "--json"];
    const [sdk2, answering] = await Promise.all([
      cli(["--client", `${NODE} ${repo}pkg-tests/peers/sdk2-client.mjs --legacy`, ...only]),
      cli(["--client", `${NODE} ${repo}pkg-tests/peers/answering-client.mjs`, ...only]),
    ]);
    table(t, "SDK 2.x Client (2.4.0), initialize era", sdk2.report);
    assert.equal(sdk2.code, 0);
    assert.equal(sdk2.report.revision, "2025-11-25");
    assert.match(check(sdk2.report, "client-elicitation-cancelled", "no-answer-after-cancel").detail, /^no answer to the elicitation\/create/);
    assert.equal(answering.code, 1);
    const late = check(answering.report, "client-elicitation-cancelled", "no-answer-after-cancel");
    assert.equal(late.status, "fail");
    assert.match(late.detail, /^the client answered the cancelled elicitation\/create \d+ ms after the cancel: result \{"action":"decline"\} \(dropped by the session\)$/);
    // The suite's cancel is the session's: a notifications/cancelled for the suite's own request.
    const lines = scenario(answering.report, "client-elicitation-cancelled").evidence.lines;
    assert.ok(lines.some((l) => /→ notifications\/cancelled \{"requestId":"conformance-elicitation-1"/.test(l) && /the session's cancel/.test(l)), lines.join("\n"));
  });

  test("a client of the other era never connects, and the report says why", async () => {
    const [legacyOn2026, pinnedOnLegacy] = await Promise.all([
      cli(["--client", `${NODE} ${repo}pkg-tests/peers/sdk1-client.mjs`, "--protocol-version", "2026-07-28", "--scenario", "client-cancels-in-flight", "--json"]),
      cli(["--client", `${NODE} ${repo}pkg-tests/peers/sdk2-client.mjs`, "--scenario", "client-cancels-in-flight", "--json"]),
    ]);
    assert.equal(legacyOn2026.code, 1);
    const legacy = check(legacyOn2026.report, "client-cancels-in-flight", "client-connected");
    assert.equal(legacy.status, "fail");
    assert.match(legacy.detail, /the client sent no 2026-07-28 request \(its first: initialize.*run without --protocol-version/);
    assert.ok(scenario(legacyOn2026.report, "client-cancels-in-flight").evidence.lines.some((l) => /→ error 0 \{"code":-32022/.test(l)));
    assert.equal(pinnedOnLegacy.code, 1);
    assert.match(check(pinnedOnLegacy.report, "client-cancels-in-flight", "client-connected").detail, /never sent initialize \(it sent server\/discover.*--protocol-version 2026-07-28/);
  });
});

describe("mcp-cancel conformance: usage and output", { timeout: 30000 }, () => {
  test("usage errors exit 2 with one line that says what is wrong, and where to read more", async () => {
    const cases = [
      [[], /give one of --server, --url or --client/],
      [["--server", "a", "--url", "http://127.0.0.1:1/mcp"], /give only one of --server, --url/],
      [["--url", "not a url"], /--url "not a url": not a URL/],
      [["--url", "ftp://127.0.0.1/x"], /expected an http: or https: URL/],
      [["--server", "node x.mjs", "--tool", "slow", "--arguments", "{ms:1}"], /--arguments '\{ms:1\}': not JSON/],
      [["--server", "node x.mjs", "--tool", "slow", "--arguments", "[1]"], /expected a JSON object/],
      [["--server", "node x.mjs", "--arguments", "{}"], /--arguments needs --tool/],
      [["--server", "node 'x.mjs"], /unterminated ' quote/],
      [["--server", "node x.mjs | tee log"], /"\|" is shell syntax/],
      [["--server", "node x.mjs", "--scenario", "nope"], /--scenario nope: no such server scenario/],
      [["--server", "node x.mjs", "--protocol-version", "2025-01-01"], /expected one of 2024-11-05/],
      [["--client", "node c.mjs", "--tool", "slow"], /--tool applies to --server and --url/],
      [["--client", "node c.mjs", "--protocol-version", "2026-13-01"], /--protocol-version 2026-13-01: expected one of 2024-11-05/],
      [["--server", "node x.mjs", "--bogus"], /Unknown option '--bogus' \(see --help\)$/],
      [["--server", "FOO=1 node s.mjs"], /FOO=1 is a shell's variable assignment, and the command is not run by a shell; write --server "env FOO=1 node s.mjs"/],
      [["--server", "node $HOME/s.mjs"], /"\$HOME" is shell syntax, and the command is not run by a shell; write --server "sh -c '…'"/],
      [["--server", "node x.mjs", "--nested-arguments", "{}"], /--nested-arguments needs --nested-tool/],
      [["--client", "node c.mjs", "--nested-tool", "ask"], /--nested-tool applies to --server and --url/],
      [["--server", "node x.mjs", "--fail-on", "may"], /--fail-on may: expected must or should/],
      [["--server", "node x.mjs", "--expected-failures", "/nonexistent/baseline.yml"], /--expected-failures \/nonexistent\/baseline.yml: cannot read it \(ENOENT\)/],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(args)));
    cases.forEach(([args, message], i) => {
      const { code, stderr } = runs[i];
      assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
      assert.match(stderr.trim(), message, args.join(" "));
      assert.equal(stderr.trim().split("\n").length, 1, `one line: ${stderr}`);
      assert.match(stderr, /^mcp-cancel conformance: .* \(see --help\)\n$/);
    });
  });

  test("--help says how a command is split, and that no shell runs it", async () => {
    const { code, stdout } = await cli(["--help"]);
    assert.equal(code, 0);
    assert.match(stdout, /split into words as a POSIX shell splits them/);
    assert.match(stdout, /it is not run by a shell/);
    assert.match(stdout, /--server "env FOO=1 node s\.mjs"/);
    assert.match(stdout, /sh -c/);
    for (const flag of ["--nested-tool", "--nested-arguments", "--fail-on", "--expected-failures", "--junit"]) assert.ok(stdout.includes(flag), flag);
  });

  test("a command that cannot start or a server that cannot be reached exits 2", async () => {
    const missing = await cli(["--server", "/nonexistent/mcp-server --stdio", "--json"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot start \/nonexistent\/mcp-server --stdio: .*ENOENT/);
    assert.equal(missing.report.ok, false);
    const refused = await cli(["--url", "http://127.0.0.1:9/mcp"]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /cannot connect to http:\/\/127\.0\.0\.1:9\/mcp/);
  });

  test("the terminal report: a table row per scenario, the failed ones with their wire lines", async () => {
    const { code, stdout } = await cli(["--server", NODE_SERVER, ...SLOW, "--scenario", "cancel-unknown-request", "--scenario", "cancel-id-zero"]);
    assert.equal(code, 1);
    assert.match(stdout, /SCENARIO +RESULT +EVIDENCE/);
    assert.match(stdout, /cancel-unknown-request +pass +no reply to 2 invalid cancel/);
    assert.match(stdout, /cancel-id-zero +FAIL/);
    assert.match(stdout, /cancel-id-zero: FAILED[^\n]*\n +✗ cancel-honoured \(SHOULD https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25\/basic\/utilities\/cancellation#behavior-requirements\)/);
    assert.match(stdout, /→ notifications\/cancelled \{"requestId":0,"reason":"conformance: cancel id 0"\} +\[the session's cancel\]/);
    assert.match(stdout, /2 scenarios: 1 pass, 1 fail, 0 n\/a/);
  });
});

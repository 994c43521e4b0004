// `mcp-cancel conformance` (issue #15), run as the user runs it: `node js/cli/main.js
// conformance … --json` in a child process, against the real peers of the peer matrix — the
// TypeScript SDK 1.32.2 McpServer, Python `mcp` 2.3.0 and 1.30.0, server-everything, an SDK
// 2.x server over Streamable HTTP on 127.0.0.1 (2026-07-28) — and in --client mode against
// the SDK 1.32.2 Client (the initialize era) and the SDK 2.x Client pinned to 2026-07-28
// (`--protocol-version 2026-07-28`: the suite is a 2026-07-28 server), each alone and behind
// guardTransport. Each asserts the results already known from the peer matrix
// (pkg-tests/peers.test.mjs, /work/shared/mcp-cancellation.md) or observed with this suite.
// The results tables are printed as test diagnostics.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { EVERYTHING } from "../demo/everything.mjs";

const repo = fileURLToPath(new URL("..", import.meta.url));
const CLI = `${repo}js/cli/main.js`;
const NODE = process.execPath;
const PY2 = `${repo}.venv/mcp-2.3.0/bin/python`;
const PY1 = `${repo}.venv/mcp-1.30.0/bin/python`;
const SERVER_PY = `${repo}pkg-tests/peers/server.py`;
const NODE_SERVER = `${NODE} ${repo}pkg-tests/peers/node-server.mjs`;
const SLOW = ["--tool", "slow", "--arguments", '{"ms":1200}'];

/**
 * Runs the command; resolves with its exit code, stdout (parsed when --json), stderr.
 * Bounded: killed after `timeoutMs`.
 */
function cli(args, { timeoutMs = 60000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [CLI, "conformance", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mcp-cancel conformance ${args.join(" ")} did not exit within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      let report;
      if (args.includes("--json")) {
        try {
          report = JSON.parse(stdout);
        } catch (error) {
          return reject(new Error(`not JSON (${error.message}):\n${stdout}\n${stderr}`));
        }
      }
      resolve({ code, stdout, stderr, report });
    });
  });
}

/** name → status of a JSON report. */
const statuses = (report) => Object.fromEntries(report.scenarios.map((s) => [s.name, s.status]));
const scenario = (report, name) => report.scenarios.find((s) => s.name === name);
const check = (report, name, id) => scenario(report, name).checks.find((c) => c.id === id);

/** Prints a report's table as diagnostics (the README's tables come from these runs). */
function table(t, title, report) {
  t.diagnostic(`${title} (${report.revision ?? "-"}, ${report.durationMs} ms)`);
  for (const s of report.scenarios) t.diagnostic(`  ${s.name.padEnd(38)} ${s.status.padEnd(4)}  ${s.summary}`);
}

const skipPython = (python) => (existsSync(python) ? false : `${python} missing: run scripts/setup.sh --test`);

describe("mcp-cancel conformance --server", { timeout: 120000 }, () => {
  test("TS SDK 1.32.2 McpServer: ids 0 and \"\" are not cancellable, a cancel of initialize leaves it unanswered; the rest passes", async (t) => {
    const { code, report } = await cli(["--server", NODE_SERVER, ...SLOW, "--json"]);
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
    });
    assert.match(check(report, "cancel-id-zero", "cancel-honoured").detail, /a result for 0 .* the cancel for 0 was ignored/);
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

  test("Python mcp 2.3.0: coerces \"7\" to 7 (and 8 to \"8\"), honours everything else", { skip: skipPython(PY2) }, async (t) => {
    const { code, report } = await cli(["--server", `${PY2} ${SERVER_PY}`, ...SLOW, "--json"]);
    table(t, "Python mcp 2.3.0", report);
    assert.equal(code, 1);
    const got = statuses(report);
    assert.deepEqual(
      Object.keys(got).filter((k) => got[k] === "fail"),
      ["id-types-distinct"],
    );
    for (const name of ["cancel-in-flight", "progress-stops-after-cancel", "cancel-id-zero", "cancel-id-empty-string", "cancel-malformed", "initialize-not-cancellable"]) {
      assert.equal(got[name], "pass", name);
    }
    assert.match(check(report, "id-types-distinct", "number-id-not-cancelled").detail, /tools\/call 7 unanswered/);
  });

  test("Python mcp 1.30.0: answers a cancelled request with error 0 (slow), and dies when a stubborn handler returns", { skip: skipPython(PY1) }, async (t) => {
    const [slow, stubborn] = await Promise.all([
      cli(["--server", `${PY1} ${SERVER_PY}`, ...SLOW, "--json"]),
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
    // A params-not-an-object cancel makes 1.30.0 log an "Internal Server Error" to the client: reported, not failed.
    assert.ok(scenario(slow.report, "cancel-malformed").evidence.notes.some((n) => /logged 1 error notification/.test(n)));

    assert.equal(stubborn.code, 1);
    assert.equal(statuses(stubborn.report)["cancel-in-flight"], "fail");
    const usable = check(stubborn.report, "cancel-in-flight", "connection-usable");
    assert.equal(usable.status, "fail");
    assert.match(usable.detail, /the server exited.*Request already responded to/);
  });

  test("server-everything (its own long-running tool, found without --tool): progress goes on after a cancel, ids 0 and \"\" are not cancellable; its task is cancelled with tasks/cancel", async (t) => {
    const { code, report } = await cli(["--server", `${NODE} ${EVERYTHING} stdio`, "--json"]);
    table(t, "server-everything 2026.8.31", report);
    assert.equal(code, 1);
    assert.equal(report.preflight.slow.name, "trigger-long-running-operation");
    assert.deepEqual(statuses(report), {
      "cancel-in-flight": "pass",
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
    });
    assert.match(check(report, "progress-stops-after-cancel", "progress-stops").detail, /^\d+ progress notifications after the cancel over \d+ ms/);
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

describe("mcp-cancel conformance --client", { timeout: 90000 }, () => {
  const client = (guard) => ["--client", `${NODE} ${repo}pkg-tests/peers/sdk1-client.mjs${guard ? " --guard" : ""}`, "--json"];
  const client2 = (guard) => ["--client", `${NODE} ${repo}pkg-tests/peers/sdk2-client.mjs${guard ? " --guard" : ""}`, "--protocol-version", "2026-07-28", "--json"];

  test("the SDK 1.32.2 Client alone fails every scenario", async (t) => {
    const { code, report } = await cli(client(false));
    table(t, "SDK 1.32.2 Client alone", report);
    assert.equal(code, 1);
    assert.deepEqual(statuses(report), {
      "client-cancels-in-flight": "fail",
      "client-no-cancel-after-completion": "fail",
      "client-never-cancels-initialize": "fail",
      "client-cancels-task-with-tasks-cancel": "fail",
    });
    assert.equal(check(report, "client-cancels-in-flight", "cancel-sent").status, "pass", "it does send the cancel");
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
    });
    const inFlight = scenario(report, "client-cancels-in-flight");
    assert.match(check(report, "client-cancels-in-flight", "cancel-sent").detail, /^1 cancel\(s\) for tools\/call 0 .*reason "AbortError: This operation was aborted"\), _meta version "2026-07-28"$/);
    assert.equal(check(report, "client-cancels-in-flight", "every-cancel-valid").status, "pass");
    assert.match(check(report, "client-cancels-in-flight", "late-answer-not-surfaced").detail, /unknown token.*unknown message ID/);
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
    });
    assert.match(check(report, "client-cancels-in-flight", "cancel-sent").detail, /reason "Request cancelled"\), _meta version "2026-07-28"/);
    assert.match(check(report, "client-cancels-in-flight", "late-answer-not-surfaced").detail, /no error after 2 late message/);
    // The suite keeps a server's books (role "server"): in 2026-07-28 the client's cancel is valid.
    const events = scenario(report, "client-cancels-in-flight").evidence.events;
    assert.ok(events.some((e) => e.type === "cancel-received" && e.method === "tools/call" && e.requestId === 0), JSON.stringify(events));
    assert.ok(!events.some((e) => e.type === "cancel-ignored"), JSON.stringify(events));
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
  test("usage errors exit 2 with a message that says what is wrong", async () => {
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
      [["--server", "node x.mjs", "--bogus"], /Unknown option '--bogus'/],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(args)));
    cases.forEach(([args, message], i) => {
      const { code, stderr } = runs[i];
      assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
      assert.match(stderr, message, args.join(" "));
      assert.match(stderr, /usage: mcp-cancel conformance/);
    });
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

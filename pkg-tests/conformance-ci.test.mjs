// `mcp-cancel conformance` in CI: a hand-written server that withholds the response of a
// cancelled request but keeps sending its progress (pkg-tests/peers/withholding-server.mjs)
// fails every scenario that judges a cancel honoured; `--fail-on must` gates on MUST-level
// checks only; `--expected-failures` takes the official suite's YAML baseline and exit rules;
// `--junit` writes a testcase per scenario; `--json` gives each check in the official shape
// too. Each run is the command as a user runs it, in a child process, bounded.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";

import { NODE, SLOW, check, cli, repo, scenario, statuses, table } from "./conformance-helpers.mjs";

const WITHHOLDING = `${NODE} ${repo}pkg-tests/peers/withholding-server.mjs`;
/** The scenarios that judge a cancel honoured. */
const HONOURED = ["cancel-in-flight", "progress-stops-after-cancel", "cancel-id-zero", "cancel-id-empty-string"];
/** Those, and one that passes on this server: the runs of the baseline and gate tests. */
const SOME = [...HONOURED, "cancel-unknown-request"].flatMap((name) => ["--scenario", name]);

/**
 * A minimal XML 1.0 well-formedness check: one root element, every tag closed in order,
 * attributes quoted and not repeated, only the five predefined entities or character
 * references, no `<` or `&` loose in text. Returns the elements as `{ name, attrs, parent }`.
 */
function parseXml(text) {
  let rest = text.replace(/^<\?xml [^?]*\?>\s*/, "");
  const stack = [];
  const elements = [];
  let roots = 0;
  const checkText = (chunk) => {
    assert.ok(!/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(chunk), `a loose & in ${JSON.stringify(chunk.slice(0, 80))}`);
  };
  while (rest.length > 0) {
    const lt = rest.indexOf("<");
    if (lt === -1) {
      assert.equal(rest.trim(), "", "text after the root element");
      break;
    }
    const chunk = rest.slice(0, lt);
    checkText(chunk);
    if (stack.length === 0) assert.equal(chunk.trim(), "", "text outside the root element");
    rest = rest.slice(lt);
    const close = /^<\/([A-Za-z_][\w.-]*)\s*>/.exec(rest);
    if (close) {
      assert.equal(stack.pop()?.name, close[1], `</${close[1]}> closes the element open`);
      rest = rest.slice(close[0].length);
      continue;
    }
    const open = /^<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*\s*=\s*"[^"<]*")*)\s*(\/?)>/.exec(rest);
    assert.ok(open, `not a tag: ${JSON.stringify(rest.slice(0, 80))}`);
    const attrs = {};
    for (const m of open[2].matchAll(/([A-Za-z_][\w.-]*)\s*=\s*"([^"]*)"/g)) {
      assert.ok(!(m[1] in attrs), `attribute ${m[1]} repeated`);
      checkText(m[2]);
      attrs[m[1]] = m[2].replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    }
    if (stack.length === 0) roots += 1;
    const element = { name: open[1], attrs, parent: stack.at(-1) };
    elements.push(element);
    if (open[3] !== "/") stack.push(element);
    rest = rest.slice(open[0].length);
  }
  assert.equal(stack.length, 0, `unclosed: ${stack.map((e) => e.name).join(", ")}`);
  assert.equal(roots, 1, "one root element");
  return elements;
}

// Two tests at a time: each run mostly waits on the tool's timers, and the file stays short.
describe("mcp-cancel conformance in CI: the work must stop, --fail-on, --expected-failures, --junit", { timeout: 120000, concurrency: 2 }, () => {
  let dir;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "conformance-ci-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const baseline = async (name, text) => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return file;
  };

  test("a server that withholds the response but keeps working fails each honoured-cancel scenario; the JUnit report has a testcase per scenario and a failure per failed one", async (t) => {
    const junit = path.join(dir, "junit.xml");
    const { code, report } = await cli(["--server", WITHHOLDING, ...SLOW, "--json", "--junit", junit]);
    table(t, "hand-written server: withholds the response, keeps the progress", report);
    assert.equal(code, 1);
    const got = statuses(report);
    for (const name of HONOURED) assert.equal(got[name], "fail", name);
    for (const name of ["id-types-distinct", "cancel-finished-request", "cancel-unknown-request", "cancel-malformed", "initialize-not-cancellable"]) assert.equal(got[name], "pass", name);
    // It sends no response: only the work's progress gives it away.
    for (const name of ["cancel-in-flight", "cancel-id-zero", "cancel-id-empty-string"]) {
      assert.equal(check(report, name, name === "cancel-in-flight" ? "no-response-after-cancel" : "cancel-honoured").status, "pass", name);
      assert.match(check(report, name, "work-stops").detail, /^the work went on: \d+ progress notifications after the cancel over \d+ ms, .*within the 200 ms grace/, name);
      assert.equal(check(report, name, "connection-usable").status, "pass", name);
    }
    // Each check also in the official shape: a failed SHOULD is a WARNING.
    const official = scenario(report, "cancel-in-flight").officialChecks;
    assert.deepEqual(
      official.map((c) => [c.id, c.status]),
      [
        ["no-response-after-cancel", "SUCCESS"],
        ["work-stops", "WARNING"],
        ["connection-usable", "SUCCESS"],
      ],
    );
    for (const c of official) {
      assert.deepEqual(Object.keys(c).filter((k) => !["errorMessage", "details"].includes(k)).sort(), ["description", "id", "name", "specReferences", "status", "timestamp"]);
      assert.ok(!Number.isNaN(Date.parse(c.timestamp)), c.timestamp);
      assert.match(c.specReferences[0].url, /^https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25\//);
    }
    assert.equal(official[1].errorMessage, check(report, "cancel-in-flight", "work-stops").detail);
    assert.ok(!("errorMessage" in official[0]));
    assert.ok(scenario(report, "nested-request-cancelled").officialChecks.every((c) => c.status === "INFO"));
    // The evidence is whole in JSON: no line is cut.
    assert.ok(report.scenarios.every((s) => s.evidence.lines.every((l) => !l.includes("…"))));

    const elements = parseXml(await readFile(junit, "utf8"));
    const [suites, suite] = elements;
    assert.equal(suites.name, "testsuites");
    assert.equal(suite.name, "testsuite");
    const cases = elements.filter((e) => e.name === "testcase");
    assert.deepEqual(
      cases.map((c) => c.attrs.name),
      report.scenarios.map((s) => s.name),
    );
    assert.ok(cases.every((c) => c.parent === suite && c.attrs.classname === "mcp-cancel-conformance.server" && /^\d+\.\d{3}$/.test(c.attrs.time)));
    const failures = elements.filter((e) => e.name === "failure");
    assert.deepEqual(failures.map((f) => f.parent.attrs.name).sort(), [...HONOURED].sort());
    assert.match(failures.find((f) => f.parent.attrs.name === "cancel-id-zero").attrs.message, /^work-stops \(SHOULD\): the work went on/);
    const skipped = elements.filter((e) => e.name === "skipped").map((e) => e.parent.attrs.name);
    assert.deepEqual(skipped, report.scenarios.filter((s) => s.status === "n/a").map((s) => s.name));
    assert.equal(suite.attrs.tests, String(report.scenarios.length));
    assert.equal(suite.attrs.failures, "4");
    assert.equal(suite.attrs.skipped, String(skipped.length));
    assert.equal(suite.attrs.errors, "0");
    // The failure's text is the evidence: the check with its spec URL, then the wire.
    const xml = await readFile(junit, "utf8");
    assert.match(xml, /work-stops \(SHOULD https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25\/basic\/utilities\/cancellation#behavior-requirements\): the work went on/);
    assert.match(xml, /→ notifications\/cancelled \{&quot;requestId&quot;:0,/);
  });

  test("--fail-on must exits 0 exactly when no MUST-level check failed", async () => {
    const [should, must, exiting] = await Promise.all([
      cli(["--server", WITHHOLDING, ...SLOW, ...SOME, "--json"]),
      cli(["--server", WITHHOLDING, ...SLOW, ...SOME, "--fail-on", "must", "--json"]),
      // It exits at a cancel: the connection does not stay usable, a MUST.
      cli(["--server", `${WITHHOLDING} --exit-on-cancel`, ...SLOW, "--scenario", "cancel-in-flight", "--scenario", "cancel-unknown-request", "--fail-on", "must", "--json"]),
    ]);
    assert.equal(should.code, 1);
    assert.equal(should.report.failOn, "should");
    assert.equal(must.code, 0, JSON.stringify(must.report.scenarios.map((s) => [s.name, s.status, s.failsGate])));
    assert.equal(must.report.failOn, "must");
    assert.equal(must.report.ok, true);
    for (const name of HONOURED) {
      const s = scenario(must.report, name);
      assert.equal(s.status, "fail", `${name} still fails its SHOULD`);
      assert.equal(s.failsGate, false, name);
      assert.ok(s.checks.filter((c) => c.status === "fail").every((c) => c.level === "SHOULD"), name);
    }
    assert.equal(exiting.code, 1);
    assert.equal(check(exiting.report, "cancel-in-flight", "connection-usable").status, "fail");
    assert.equal(scenario(exiting.report, "cancel-in-flight").failsGate, true);
    assert.equal(scenario(exiting.report, "cancel-in-flight").officialChecks.find((c) => c.id === "connection-usable").status, "FAILURE");
  });

  test("--expected-failures: exactly the failing scenarios exit 0; one missing exits 1; one extra that passes exits 1; each is named", async () => {
    const exact = await baseline("exact.yml", `# known failures of the withholding server\nserver:\n${HONOURED.map((n) => `  - ${n}`).join("\n")}\nclient: []\n`);
    const missing = await baseline("missing.yml", `server:\n${HONOURED.slice(1).map((n) => `  - ${n}`).join("\n")}\n`);
    const extra = await baseline("extra.yml", `server:\n${[...HONOURED, "cancel-unknown-request"].map((n) => `  - ${n}`).join("\n")}\n`);
    const runs = await Promise.all([exact, missing, extra].map((file) => cli(["--server", WITHHOLDING, ...SLOW, ...SOME, "--expected-failures", file])));
    const [ok, unexpected, stale] = runs;
    assert.equal(ok.code, 0, ok.stdout);
    assert.match(ok.stdout, /~ cancel-in-flight: fails, as listed/);
    assert.match(ok.stdout, /baseline check passed: every failure is listed/);
    assert.equal(unexpected.code, 1, unexpected.stdout);
    assert.match(unexpected.stdout, /✗ cancel-in-flight: fails, and is not listed \(an unexpected failure\)/);
    assert.match(unexpected.stdout, /baseline check failed: 1 unexpected failure/);
    assert.equal(stale.code, 1, stale.stdout);
    assert.match(stale.stdout, /✗ cancel-unknown-request: listed, but passes now \(a stale entry: remove it from the baseline\)/);
    assert.match(stale.stdout, /baseline check failed: 1 stale entry/);
  });

  test("--expected-failures with --json and --junit: the verdict in the report, a known failure skipped, a stale entry a failure; a bad file is a usage error", async () => {
    const stale = await baseline("stale.yml", `server: [${[...HONOURED.slice(1), "cancel-unknown-request"].join(", ")}]\n`);
    const junit = path.join(dir, "baseline.xml");
    const [run, notYaml, wrongShape] = await Promise.all([
      cli(["--server", WITHHOLDING, ...SLOW, ...SOME, "--expected-failures", stale, "--json", "--junit", junit]),
      baseline("bad.yml", "server: [a, b\n").then((file) => cli(["--server", WITHHOLDING, "--expected-failures", file])),
      baseline("shape.yml", "server: cancel-in-flight\n").then((file) => cli(["--server", WITHHOLDING, "--expected-failures", file])),
    ]);
    assert.equal(run.code, 1);
    assert.deepEqual(run.report.baseline, {
      file: stale,
      expectedFailures: HONOURED.slice(1),
      unexpectedFailures: ["cancel-in-flight"],
      staleEntries: ["cancel-unknown-request"],
      unknownEntries: [],
    });
    assert.equal(run.report.exitCode, 1);
    assert.match(run.stderr, /cancel-unknown-request: listed, but passes now/);
    const elements = parseXml(await readFile(junit, "utf8"));
    const of = (name) => elements.filter((e) => e.parent?.attrs.name === name).map((e) => e.name);
    assert.deepEqual(of("cancel-in-flight"), ["failure"]);
    assert.deepEqual(of("cancel-id-zero"), ["skipped", "system-out"]);
    assert.deepEqual(of("cancel-unknown-request"), ["failure"]);
    assert.equal(elements.find((e) => e.name === "failure" && e.parent.attrs.name === "cancel-unknown-request").attrs.type, "stale-baseline-entry");
    assert.equal(notYaml.code, 2);
    assert.match(notYaml.stderr, /^mcp-cancel conformance: --expected-failures .*bad\.yml: not YAML .* \(see --help\)\n$/);
    assert.equal(wrongShape.code, 2);
    assert.match(wrongShape.stderr, /server: must be a list of scenario names/);
  });
});

// What CI reads from a conformance run, the way the official @modelcontextprotocol/conformance
// suite (0.1.16) gives it: the gate (`--fail-on must|should`), a baseline of known failures
// (`--expected-failures`, its YAML file and exit rules) and a JUnit XML report (`--junit`).
// Each check in the official shape is report.js's `officialCheck()`.

import { readFile } from "node:fs/promises";

import { parse as parseYaml } from "yaml";

import { describeMessage, specUrl } from "./report.js";

/**
 * The checks of `result` that fail at the gate: with `must`, failed MUST checks only; with
 * `should`, every failed check.
 *
 * @param {any} result a scenario's result
 * @param {"must" | "should"} failOn
 * @returns {any[]}
 */
export function gatedFailures(result, failOn) {
  return result.checks.filter((c) => c.status === "fail" && (failOn === "should" || c.level === "MUST"));
}

/** A problem with the baseline file: a usage error of the command line (exit code 2). */
export class BaselineError extends Error {
  name = "BaselineError";
}

/**
 * Reads an expected-failures file, as the official suite does: YAML with a `server:` and/or a
 * `client:` list of scenario names; an empty file lists none.
 *
 * @param {string} file
 * @returns {Promise<{ server: string[], client: string[] }>}
 * @throws {BaselineError} when the file cannot be read, is not YAML, or has another shape
 */
export async function loadExpectedFailures(file) {
  let text;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new BaselineError(`--expected-failures ${file}: cannot read it (${error.code ?? error.message})`);
  }
  let parsed;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new BaselineError(`--expected-failures ${file}: not YAML (${error.message.split("\n")[0]})`);
  }
  if (parsed === null || parsed === undefined) return { server: [], client: [] };
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new BaselineError(`--expected-failures ${file}: expected a mapping with a server: and/or a client: list of scenario names`);
  }
  const unknown = Object.keys(parsed).filter((k) => k !== "server" && k !== "client");
  if (unknown.length > 0) throw new BaselineError(`--expected-failures ${file}: unknown key ${unknown.map((k) => JSON.stringify(k)).join(", ")} (expected server: and/or client:)`);
  const list = (key) => {
    const value = parsed[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw new BaselineError(`--expected-failures ${file}: ${key}: must be a list of scenario names`);
    return value;
  };
  return { server: list("server"), client: list("client") };
}

/**
 * Judges the run against the gate and the baseline (the official suite's rules): a scenario
 * that fails and is listed is an expected failure; one that fails and is not listed is an
 * unexpected failure (exit 1); one that is listed but passes is a stale entry (exit 1: the
 * baseline must shrink). An n/a scenario is neither. Without a baseline, any failure exits 1.
 *
 * @param {any[]} results the scenarios' results
 * @param {{ failOn: "must" | "should", listed?: string[], known: string[] }} options `listed`:
 *   the baseline's names for this mode (none: no baseline); `known`: every scenario of this mode
 * @returns {{ exitCode: 0 | 1, failed: string[], expectedFailures: string[], unexpectedFailures: string[], staleEntries: string[], unknownEntries: string[] }}
 */
export function judge(results, { failOn, listed, known }) {
  const failed = results.filter((r) => gatedFailures(r, failOn).length > 0).map((r) => r.name);
  if (listed === undefined) return { exitCode: failed.length > 0 ? 1 : 0, failed, expectedFailures: [], unexpectedFailures: failed, staleEntries: [], unknownEntries: [] };
  const set = new Set(listed);
  const expectedFailures = failed.filter((n) => set.has(n));
  const unexpectedFailures = failed.filter((n) => !set.has(n));
  const staleEntries = results.filter((r) => set.has(r.name) && !failed.includes(r.name) && r.status !== "n/a").map((r) => r.name);
  const unknownEntries = listed.filter((n) => !known.includes(n));
  const exitCode = unexpectedFailures.length > 0 || staleEntries.length > 0 ? 1 : 0;
  return { exitCode, failed, expectedFailures, unexpectedFailures, staleEntries, unknownEntries };
}

/**
 * The baseline's verdict in words, one scenario a line (printed after the table, or on
 * stderr with `--json`).
 *
 * @param {ReturnType<typeof judge>} verdict
 * @param {string} file
 * @param {"server" | "client"} mode
 * @returns {string}
 */
export function baselineText(verdict, file, mode) {
  const out = [`\nbaseline ${file} (${mode}:):`];
  for (const n of verdict.expectedFailures) out.push(`  ~ ${n}: fails, as listed`);
  for (const n of verdict.staleEntries) out.push(`  ✗ ${n}: listed, but passes now (a stale entry: remove it from the baseline)`);
  for (const n of verdict.unexpectedFailures) out.push(`  ✗ ${n}: fails, and is not listed (an unexpected failure)`);
  for (const n of verdict.unknownEntries) out.push(`  ? ${n}: listed, but there is no ${mode} scenario of that name`);
  if (out.length === 1) out.push("  nothing fails and nothing is listed");
  out.push(
    verdict.exitCode === 0
      ? "baseline check passed: every failure is listed"
      : `baseline check failed: ${[verdict.unexpectedFailures.length ? `${verdict.unexpectedFailures.length} unexpected failure(s)` : "", verdict.staleEntries.length ? `${verdict.staleEntries.length} stale entry(ies)` : ""].filter(Boolean).join(", ")}`,
  );
  return `${out.join("\n")}\n`;
}

/** Text as XML character data or an attribute value: escaped, and without the characters XML 1.0 cannot hold. */
function xml(text) {
  return String(text)
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

const seconds = (ms) => ((ms ?? 0) / 1000).toFixed(3);

/** A failed scenario's evidence as text: each failed check whole, its spec URL, the notes, the wire. */
function evidenceText(result, checks, revision) {
  const lines = [];
  for (const c of checks) lines.push(`${c.id} (${c.level}${c.spec ? ` ${specUrl(c.spec, result.revision ?? revision).url}` : ""}): ${c.detail}`);
  for (const note of result.notes ?? []) lines.push(`note: ${note}`);
  if (result.exit) lines.push(`client: ${result.exit}`);
  if (result.stderr) lines.push(`stderr: ${result.stderr.join("\n        ")}`);
  if (result.wire?.length) {
    lines.push("wire:");
    for (const w of result.wire) lines.push(`  +${String(w.at).padStart(5)} ms ${w.dir === "out" ? "→" : "←"} ${describeMessage(w.message, Infinity)}${w.dropped ? "   [dropped by the session]" : ""}`);
  }
  return lines.join("\n");
}

/**
 * The JUnit XML report: one testsuite, one testcase per scenario. A scenario that fails at the
 * gate and is not a listed known failure gets a `<failure>` naming its failed checks, with
 * their evidence; a stale baseline entry gets a `<failure>` that says so; a listed known
 * failure and an n/a scenario are `<skipped>` (with the evidence of the known failure in
 * `<system-out>`); a failed SHOULD that `--fail-on must` does not gate is in `<system-out>`.
 *
 * @param {any} run what main.js gathered (`mode`, `targetText`, `transport`, `revision`, `results`, `durationMs`, `version`)
 * @param {ReturnType<typeof judge>} verdict
 * @param {{ failOn: "must" | "should", baseline?: string, startedAt: string }} options
 * @returns {string}
 */
export function junitXml(run, verdict, { failOn, baseline, startedAt }) {
  const cases = [];
  let failures = 0;
  let skipped = 0;
  for (const r of run.results) {
    const gated = gatedFailures(r, failOn);
    const allFailed = r.checks.filter((c) => c.status === "fail");
    const open = `    <testcase classname="mcp-cancel-conformance.${xml(run.mode)}" name="${xml(r.name)}" time="${seconds(r.durationMs)}">`;
    const body = [];
    if (verdict.staleEntries.includes(r.name)) {
      failures += 1;
      body.push(`      <failure type="stale-baseline-entry" message="${xml(`${r.name} is listed in ${baseline} but passes now: remove it from the baseline`)}">${xml(`status: ${r.status}; ${r.summary}`)}</failure>`);
    } else if (gated.length > 0 && verdict.expectedFailures.includes(r.name)) {
      skipped += 1;
      body.push(`      <skipped message="${xml(`a known failure, listed in ${baseline}: ${gated.map((c) => c.id).join(", ")}`)}"/>`);
      body.push(`      <system-out>${xml(evidenceText(r, allFailed, run.revision))}</system-out>`);
    } else if (gated.length > 0) {
      failures += 1;
      const message = gated.map((c) => `${c.id} (${c.level}): ${c.detail}`).join("; ");
      const type = gated.some((c) => c.level === "MUST") ? "MUST" : "SHOULD";
      body.push(`      <failure type="${type}" message="${xml(message)}">${xml(evidenceText(r, allFailed, run.revision))}</failure>`);
    } else if (r.status === "n/a") {
      skipped += 1;
      body.push(`      <skipped message="${xml(`n/a: ${r.summary}`)}"/>`);
    } else if (allFailed.length > 0) {
      body.push(`      <system-out>${xml(`SHOULD-level failures, not gated by --fail-on ${failOn}:\n${evidenceText(r, allFailed, run.revision)}`)}</system-out>`);
    }
    cases.push(body.length ? `${open}\n${body.join("\n")}\n    </testcase>` : `${open}</testcase>`);
  }
  const name = `mcp-cancel conformance ${run.mode} ${run.targetText} (${run.transport})`;
  const counts = `tests="${run.results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(run.durationMs)}"`;
  const properties = [
    ["version", run.version],
    ["revision", run.revision ?? "not negotiated"],
    ["fail-on", failOn],
    ...(baseline ? [["expected-failures", baseline]] : []),
  ].map(([k, v]) => `      <property name="${xml(k)}" value="${xml(v)}"/>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mcp-cancel conformance" ${counts}>`,
    `  <testsuite name="${xml(name)}" ${counts} timestamp="${xml(startedAt)}">`,
    "    <properties>",
    ...properties,
    "    </properties>",
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/**
 * The JUnit report of a run that could not start (the target cannot be started or reached):
 * one testcase with an `<error>`, so that CI shows why.
 *
 * @param {string} mode
 * @param {string} message
 * @param {string} startedAt
 * @returns {string}
 */
export function junitSetupError(mode, message, startedAt) {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites name="mcp-cancel conformance" tests="1" failures="0" errors="1" skipped="0" time="0.000">',
    `  <testsuite name="mcp-cancel conformance ${xml(mode)}" tests="1" failures="0" errors="1" skipped="0" time="0.000" timestamp="${xml(startedAt)}">`,
    `    <testcase classname="mcp-cancel-conformance.${xml(mode)}" name="setup" time="0.000">`,
    `      <error type="setup" message="${xml(message)}"/>`,
    "    </testcase>",
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

// The conformance suite's output: the readable table for a terminal (each failed scenario
// followed by its checks and its wire lines), and the JSON report for CI (`--json`), where each
// check is also given in the official suite's shape. The table shortens its rows to the
// terminal's width; the details, `--verbose` and the JSON give the evidence whole.

import { SPEC_BASE, REVISIONS } from "./scenarios.js";

const MARK = { pass: "pass", fail: "FAIL", "n/a": "n/a" };

/**
 * The URL of a spec reference for `revision` (the revision the section appeared in, when it
 * is newer than `revision`).
 *
 * @param {{ id: string, page: string, anchor?: string, since?: string }} ref
 * @param {string | undefined} revision
 * @returns {{ id: string, url: string }}
 */
export function specUrl(ref, revision) {
  let rev = REVISIONS.includes(revision) ? revision : REVISIONS.at(-1);
  if (ref.since !== undefined && REVISIONS.indexOf(rev) < REVISIONS.indexOf(ref.since)) rev = ref.since;
  return { id: ref.id, url: `${SPEC_BASE}/${rev}/${ref.page}${ref.anchor ? `#${ref.anchor}` : ""}` };
}

/**
 * One wire record as a line: time, direction, the message (in short, or whole with `full`).
 *
 * @param {{ at: number, dir: "in" | "out", message: any, dropped?: boolean, by?: string }} record
 * @param {{ full?: boolean }} [options]
 * @returns {string}
 */
export function wireLine(record, { full = false } = {}) {
  const arrow = record.dir === "out" ? "→" : "←";
  const marks = [];
  if (record.dropped) marks.push("dropped by the session");
  if (record.by === "probe") marks.push("sent on purpose, past the session");
  if (record.by === "session") marks.push("the session's cancel");
  return `+${String(record.at).padStart(5)} ms ${arrow} ${describeMessage(record.message, full ? Infinity : 1)}${marks.length ? `   [${marks.join("; ")}]` : ""}`;
}

/**
 * A JSON-RPC message in one line (the 2026-07-28 `_meta` envelope left out), its params or
 * result cut to about 140 characters × `scale` (`Infinity`: whole).
 *
 * @param {any} m
 * @param {number} [scale]
 * @returns {string}
 */
export function describeMessage(m, scale = 1) {
  if (Array.isArray(m)) return `batch of ${m.length}`;
  if (m === null || typeof m !== "object") return JSON.stringify(m);
  if (m.rejected !== undefined) return `(the transport) the message above was rejected: ${short(m.rejected, 160 * scale)}`;
  if (typeof m.method === "string") {
    const id = m.id !== undefined ? ` ${JSON.stringify(m.id)}` : "";
    return `${m.method}${id}${m.params === undefined ? "" : ` ${short(withoutEnvelope(m.params), 140 * scale)}`}`;
  }
  if (m.error !== undefined) return `error ${JSON.stringify(m.id)} ${short(m.error, 140 * scale)}`;
  return `result ${JSON.stringify(m.id)} ${short(withoutEnvelope(m.result), 120 * scale)}`;
}

function withoutEnvelope(params) {
  if (params === null || typeof params !== "object" || Array.isArray(params) || params._meta === undefined) return params;
  const meta = Object.fromEntries(Object.entries(params._meta).filter(([k]) => !k.startsWith("io.modelcontextprotocol/")));
  const { _meta, ...rest } = params;
  return Object.keys(meta).length ? { ...rest, _meta: meta } : rest;
}

function short(value, max) {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A check in the official suite's shape: a pass is SUCCESS, a failed MUST is FAILURE, a failed
 * SHOULD is WARNING (the official suite's status for a SHOULD that is not met), an n/a is INFO.
 * Our own fields (`level`, `requirement`, `detail`) are in `details`.
 *
 * @param {any} check a check of a result (with `status`, `detail`, `level`, `spec`, `timestamp`)
 * @param {string | undefined} revision the revision the spec URLs are for
 * @returns {{ id: string, name: string, description: string, status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO", timestamp: string, specReferences: { id: string, url: string }[], errorMessage?: string, details: any }}
 */
export function officialCheck(check, revision) {
  const status = check.status === "pass" ? "SUCCESS" : check.status === "fail" ? (check.level === "MUST" ? "FAILURE" : "WARNING") : "INFO";
  return {
    id: check.id,
    name: check.name,
    description: check.description,
    status,
    timestamp: check.timestamp ?? new Date().toISOString(),
    specReferences: check.spec ? [specUrl(check.spec, revision)] : [],
    ...(status === "FAILURE" || status === "WARNING" ? { errorMessage: check.detail } : {}),
    details: { level: check.level, requirement: check.quote, detail: check.detail },
  };
}

/**
 * The JSON report (`--json`): every scenario with its checks (ours, and `officialChecks` in the
 * official suite's shape), spec URLs and the whole evidence; the gate and the baseline's
 * verdict; `ok` when the exit code is 0.
 *
 * @param {any} run what main.js gathered: `mode`, `target`, `transport`, `offered`, `revision`, `preflight`, `results`, `version`, `failOn`, `verdict`, `baseline`
 * @returns {any}
 */
export function jsonReport(run) {
  const summary = tally(run.results);
  const verdict = run.verdict;
  return {
    suite: "mcp-cancel conformance",
    version: run.version,
    mode: run.mode,
    target: run.target,
    transport: run.transport,
    offeredVersion: run.offered,
    revision: run.revision,
    preflight: run.preflight,
    failOn: run.failOn,
    scenarios: run.results.map((r) => {
      const revision = r.revision ?? run.revision;
      return {
        name: r.name,
        role: r.role,
        description: r.description,
        specReferences: r.specReferences.map((ref) => specUrl(ref, revision)),
        status: r.status,
        failsGate: verdict ? verdict.failed.includes(r.name) : r.status === "fail",
        durationMs: r.durationMs,
        summary: r.summary,
        checks: r.checks.map((c) => ({
          id: c.id,
          name: c.name,
          description: c.description,
          level: c.level,
          specReference: c.spec ? specUrl(c.spec, revision) : undefined,
          requirement: c.quote,
          status: c.status,
          detail: c.detail,
        })),
        officialChecks: r.checks.map((c) => officialCheck(c, revision)),
        evidence: {
          wire: r.wire.map((w) => ({ at: w.at, dir: w.dir, message: w.message, ...(w.dropped ? { dropped: true } : {}), ...(w.by && w.by !== "suite" ? { by: w.by } : {}) })),
          lines: r.wire.map((w) => wireLine(w, { full: true })),
          events: r.events.map((e) => ({ at: e.at, ...e.event })),
          notes: r.notes,
          stderr: r.stderr,
          exit: r.exit,
        },
      };
    }),
    summary,
    ...(run.baseline !== undefined && verdict
      ? {
          baseline: {
            file: run.baseline,
            expectedFailures: verdict.expectedFailures,
            unexpectedFailures: verdict.unexpectedFailures,
            staleEntries: verdict.staleEntries,
            unknownEntries: verdict.unknownEntries,
          },
        }
      : {}),
    exitCode: verdict ? verdict.exitCode : summary.fail > 0 ? 1 : 0,
    ok: verdict ? verdict.exitCode === 0 : summary.fail === 0,
  };
}

/** Counts of pass / fail / n/a. */
export function tally(results) {
  const counts = { pass: 0, fail: 0, "n/a": 0 };
  for (const r of results) counts[r.status] += 1;
  return counts;
}

/**
 * The header lines of the terminal report.
 *
 * @param {any} run as for `jsonReport`
 * @returns {string}
 */
export function header(run) {
  const lines = [`mcp-cancel conformance ${run.version}: ${run.mode} ${run.targetText} (${run.transport})`];
  if (run.mode === "server") {
    const pre = run.preflight;
    lines.push(`  revision ${run.revision}${pre.protocolVersion !== run.revision ? ` (the server said ${pre.protocolVersion})` : ""}, offered ${run.offered}`);
    lines.push(
      pre.slow
        ? `  slow tool ${pre.slow.name} ${JSON.stringify(pre.slow.arguments)} (${pre.slow.source}): ${pre.baseline.durationMs} ms uncancelled, ${pre.baseline.progress} progress notification(s)`
        : `  slow tool: none (${pre.slowWhy})`,
    );
    lines.push(pre.task ? `  task tool ${pre.task.name} ${JSON.stringify(pre.task.arguments)} (${pre.task.source})` : `  task tool: none (${pre.taskWhy})`);
    if (pre.nested) {
      const b = pre.nested.baseline;
      lines.push(`  nested tool ${pre.nested.name} ${JSON.stringify(pre.nested.arguments)} (${pre.nested.source}): sends ${pre.nested.method} at +${b.askedMs} ms; answered ${b.answeredWith}, then ${b.then}`);
    }
  } else {
    lines.push(`  the suite is the server over the client's stdin/stdout; revision ${run.revision ?? "not negotiated"}`);
  }
  return `${lines.join("\n")}\n\n`;
}

/**
 * One table row for a finished scenario (printed as each one ends).
 *
 * @param {any} result
 * @param {number} width the terminal's width
 * @returns {string}
 */
export function row(result, width = 120) {
  const name = result.name.padEnd(38);
  const mark = MARK[result.status].padEnd(5);
  const text = isCut(result, width) ? `${result.summary.slice(0, room(width) - 1)}…` : result.summary;
  return `  ${name} ${mark}  ${text}\n`;
}

const room = (width) => Math.max(30, width - 38 - 5 - 5);

/** Whether `row()` shortens the evidence of `result` to fit `width`. */
export function isCut(result, width = 120) {
  return result.summary.length > room(width);
}

/** The table's head line. */
export function tableHead() {
  return `  ${"SCENARIO".padEnd(38)} ${"RESULT".padEnd(5)}  EVIDENCE\n`;
}

/**
 * After the table: each failed scenario (or every one, with `verbose`) with its checks and
 * its wire lines; then the counts.
 *
 * @param {any[]} results
 * @param {{ verbose?: boolean, revision?: string }} options
 * @returns {string}
 */
export function details(results, { verbose = false, revision, width = 120 } = {}) {
  const out = [];
  for (const r of results) {
    if (!(r.status === "fail" || (verbose && r.status !== "n/a"))) continue;
    out.push(`\n${r.name}: ${r.status === "fail" ? "FAILED" : r.status}  — ${r.description}`);
    for (const c of r.checks) {
      const ref = c.spec ? ` ${specUrl(c.spec, r.revision ?? revision).url}` : "";
      out.push(`  ${c.status === "pass" ? "✓" : c.status === "fail" ? "✗" : "-"} ${c.id} (${c.level ?? "?"}${ref}): ${c.detail}`);
    }
    for (const note of r.notes ?? []) out.push(`  note: ${note}`);
    if (r.exit) out.push(`  client: ${r.exit}`);
    if (r.stderr) out.push(`  stderr: ${r.stderr.join("\n          ")}`);
    if (r.wire.length) out.push("  wire:", ...r.wire.map((w) => `    ${wireLine(w, { full: verbose })}`));
  }
  const t = tally(results);
  out.push(`\n${results.length} scenarios: ${t.pass} pass, ${t.fail} fail, ${t["n/a"]} n/a`);
  if (!verbose && results.some((r) => isCut(r, width))) out.push("(the table shortens its evidence to the terminal's width: --verbose prints every check and wire line whole, --json gives everything)");
  return `${out.join("\n")}\n`;
}

// The conformance suite's output: the readable table for a terminal (each failed scenario
// followed by its checks and its wire lines), and the JSON report for CI (`--json`).

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
 * One wire record as a line: time, direction, the message in short.
 *
 * @param {{ at: number, dir: "in" | "out", message: any, dropped?: boolean, by?: string }} record
 * @returns {string}
 */
export function wireLine(record) {
  const arrow = record.dir === "out" ? "→" : "←";
  const marks = [];
  if (record.dropped) marks.push("dropped by the session");
  if (record.by === "probe") marks.push("sent on purpose, past the session");
  if (record.by === "session") marks.push("the session's cancel");
  return `+${String(record.at).padStart(5)} ms ${arrow} ${describeMessage(record.message)}${marks.length ? `   [${marks.join("; ")}]` : ""}`;
}

/** A JSON-RPC message in one short line (the 2026-07-28 `_meta` envelope left out). */
export function describeMessage(m) {
  if (Array.isArray(m)) return `batch of ${m.length}`;
  if (m === null || typeof m !== "object") return JSON.stringify(m);
  if (m.rejected !== undefined) return `(the transport) the message above was rejected: ${short(m.rejected, 160)}`;
  if (typeof m.method === "string") {
    const id = m.id !== undefined ? ` ${JSON.stringify(m.id)}` : "";
    return `${m.method}${id}${m.params === undefined ? "" : ` ${short(withoutEnvelope(m.params), 140)}`}`;
  }
  if (m.error !== undefined) return `error ${JSON.stringify(m.id)} ${short(m.error, 140)}`;
  return `result ${JSON.stringify(m.id)} ${short(withoutEnvelope(m.result), 120)}`;
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
 * The JSON report (`--json`): every scenario with its checks, spec URLs and evidence.
 *
 * @param {any} run what main.js gathered: `mode`, `target`, `transport`, `offered`, `revision`, `preflight`, `results`, `version`
 * @returns {any}
 */
export function jsonReport(run) {
  const summary = tally(run.results);
  return {
    suite: "mcp-cancel conformance",
    version: run.version,
    mode: run.mode,
    target: run.target,
    transport: run.transport,
    offeredVersion: run.offered,
    revision: run.revision,
    preflight: run.preflight,
    scenarios: run.results.map((r) => {
      const revision = r.revision ?? run.revision;
      return {
        name: r.name,
        role: r.role,
        description: r.description,
        specReferences: r.specReferences.map((ref) => specUrl(ref, revision)),
        status: r.status,
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
        evidence: {
          wire: r.wire.map((w) => ({ at: w.at, dir: w.dir, message: w.message, ...(w.dropped ? { dropped: true } : {}), ...(w.by && w.by !== "suite" ? { by: w.by } : {}) })),
          lines: r.wire.map(wireLine),
          events: r.events.map((e) => ({ at: e.at, ...e.event })),
          notes: r.notes,
          stderr: r.stderr,
          exit: r.exit,
        },
      };
    }),
    summary,
    ok: summary.fail === 0,
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
  const room = Math.max(30, width - 38 - 5 - 5);
  const text = result.summary.length > room ? `${result.summary.slice(0, room - 1)}…` : result.summary;
  return `  ${name} ${mark}  ${text}\n`;
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
export function details(results, { verbose = false, revision } = {}) {
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
    if (r.wire.length) out.push("  wire:", ...r.wire.map((w) => `    ${wireLine(w)}`));
  }
  const t = tally(results);
  out.push(`\n${results.length} scenarios: ${t.pass} pass, ${t.fail} fail, ${t["n/a"]} n/a`);
  return `${out.join("\n")}\n`;
}

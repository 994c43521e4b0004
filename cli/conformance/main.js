// `mcp-cancel conformance`: checks an MCP server's (`--server`, `--url`) or client's
// (`--client`) cancellation, scenario by scenario (scenarios.js), through mcp-cancel's
// CancellationSession. Prints a table (or `--json`, and `--junit <file>`); exit code 0 when
// nothing failed at the `--fail-on` level (or, with `--expected-failures`, only the listed
// scenarios failed and every listed one still fails), 1 otherwise, 2 for a usage error or a
// target that cannot be started or reached.

import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";

import { BaselineError, baselineText, judge, junitSetupError, junitXml, loadExpectedFailures } from "./ci.js";
import { describeServerRevision, runClientSuite } from "./client-runner.js";
import { CLIENT_SCENARIOS } from "./client-scenarios.js";
import { describeTarget, SetupError } from "./connection.js";
import { details, header, jsonReport, row, tableHead } from "./report.js";
import { REVISIONS } from "./scenarios.js";
import { runServerSuite } from "./server-runner.js";
import { SERVER_SCENARIOS } from "./server-scenarios.js";

const VERSION = createRequire(import.meta.url)("../package.json").version;

const USAGE = `usage: mcp-cancel conformance (--server "<command>" | --url <url> | --client "<command>") [options]

  --server "<command>"      an MCP server over stdio: the command line that starts it
  --url <url>               an MCP server over Streamable HTTP (http: or https:)
  --client "<command>"      an MCP client: the suite spawns it once per scenario and is its
                            server over the child's stdin/stdout; the scenario's name is in
                            MCP_CONFORMANCE_SCENARIO, its parameters (JSON) in
                            MCP_CONFORMANCE_CONTEXT; the client may report the errors its
                            application saw as a stderr line {"conformance":{"errors":[…]}}

  A command is split into words as a POSIX shell splits them ('…' and "…" quote, a backslash
  escapes the next character), but it is not run by a shell: no variables, no FOO=1 prefix,
  no globs, pipes or redirections. For an environment variable write
  --server "env FOO=1 node s.mjs"; for shell syntax, --server "sh -c 'node s.mjs 2>s.log'".

server options (--server, --url)
  --tool <name>             a slow tool to cancel (it should run 0.5–5 s, ideally with progress)
  --arguments '<json>'      its arguments (a JSON object; default {})
  --task-tool <name>        a tool to call task-augmented (2025-11-25)
  --task-arguments '<json>' its arguments (a JSON object; default {})
  --nested-tool <name>      a tool whose handler sends the client a request (elicitation,
                            sampling or roots/list) and waits for the answer
  --nested-arguments '<json>' its arguments (a JSON object; default {})
  --protocol-version <v>    the revision to offer (default 2025-11-25; 2026-07-28 uses server/discover)

client options (--client)
  --protocol-version <v>    the one revision the suite's server speaks (default: any of
                            2024-11-05 to 2025-11-25 with initialize, as the client offers;
                            2026-07-28: server/discover and the _meta version envelope)

CI
  --fail-on must|should     what fails the run: any failed check (should, the default), or only
                            a failed MUST-level check (must)
  --expected-failures <file> a YAML baseline of known failures, as @modelcontextprotocol/conformance
                            reads it (server: and client: lists of scenario names): a listed
                            scenario that fails is expected; one that fails unlisted, or a listed
                            one that passes now (a stale entry), fails the run
  --junit <file>            also write a JUnit XML report: a testcase per scenario, a failure
                            with the failed checks and their evidence per failed one
  --json                    print the JSON report instead of the table: every check whole, also
                            in the official suite's shape (officialChecks), and the wire

  --scenario <name>         run only this scenario (repeatable)
  --timeout <ms>            longest wait for one answer (default 10000)
  --verbose                 print every scenario's checks and wire lines whole, not only the failed ones
  --list                    list the scenarios and exit
  -h, --help                this text

Without --tool the suite uses a slow tool it knows when the server lists it (server-everything's
trigger-long-running-operation); otherwise the scenarios that need one say so (n/a).
Exit code: 0 nothing failed at the --fail-on level (with --expected-failures: only listed
scenarios failed, and every listed one still fails), 1 otherwise, 2 usage error or the target
cannot be started or reached.
`;

class UsageError extends Error {}

/** A usage error in one line, and where to read more. */
function usageError(message) {
  process.stderr.write(`mcp-cancel conformance: ${message} (see --help)\n`);
  return 2;
}

/**
 * Runs `mcp-cancel conformance` with its command-line arguments.
 *
 * @param {string[]} args the arguments after `conformance`
 * @returns {Promise<number>} the exit code: 0 nothing failed, 1 a scenario failed, 2 usage or setup error
 */
export async function main(args) {
  let options;
  try {
    options = parseOptions(args);
    if (options.expectedFailuresFile !== undefined) options.expectedFailures = await loadExpectedFailures(options.expectedFailuresFile);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof BaselineError)) throw error;
    return usageError(error.message);
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (options.list) {
    for (const s of [...SERVER_SCENARIOS, ...CLIENT_SCENARIOS]) process.stdout.write(`${s.role.padEnd(7)} ${s.name.padEnd(40)} ${s.description}\n`);
    return 0;
  }
  const startedAt = new Date().toISOString();
  try {
    return await run(options, startedAt);
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    if (options.json) process.stdout.write(`${JSON.stringify({ suite: "mcp-cancel conformance", version: VERSION, error: error.message, exitCode: 2, ok: false }, null, 2)}\n`);
    process.stderr.write(`mcp-cancel conformance: ${error.message}\n`);
    if (options.junit !== undefined) await writeFile(options.junit, junitSetupError(options.mode, error.message, startedAt)).catch(() => {});
    return 2;
  }
}

/** Runs the suite the options name and prints its report; returns the exit code. */
async function run(options, startedAt) {
  const width = process.stdout.columns ?? 120;
  const print = options.json ? () => {} : (text) => process.stdout.write(text);
  const started = performance.now();
  let run;
  if (options.mode === "client") {
    const scenarios = selected(CLIENT_SCENARIOS, options.scenarios);
    const head = `mcp-cancel conformance ${VERSION}: client ${describeTarget(options.target)} (stdio)\n  the suite is the server over the client's stdin/stdout: ${describeServerRevision(options.protocolVersion)}\n\n${tableHead()}`;
    let headed = false;
    const { results, revision } = await runClientSuite(options.target, scenarios, options, (r) => {
      if (!headed) print(head);
      headed = true;
      print(row(r, width));
    });
    run = { mode: "client", target: { command: options.target.command, args: options.target.args }, targetText: describeTarget(options.target), transport: "stdio", offered: options.protocolVersion, revision, results };
  } else {
    const scenarios = selected(SERVER_SCENARIOS, options.scenarios);
    const transport = options.target.kind === "http" ? "streamable-http" : "stdio";
    const about = {
      mode: "server",
      target: options.target.kind === "http" ? { url: options.target.url.href } : { command: options.target.command, args: options.target.args },
      targetText: describeTarget(options.target),
      transport,
      offered: options.protocolVersion,
      version: VERSION,
    };
    const { preflight, results } = await runServerSuite(options.target, scenarios, options, {
      onPreflight: (pre) => print(`${header({ ...about, revision: pre.revision, preflight: pre })}${tableHead()}`),
      onResult: (r) => print(row(r, width)),
    });
    run = { ...about, revision: preflight.revision, preflight, results };
  }
  run.version = VERSION;
  run.durationMs = Math.round(performance.now() - started);
  run.failOn = options.failOn;
  run.baseline = options.expectedFailuresFile;
  const known = (options.mode === "client" ? CLIENT_SCENARIOS : SERVER_SCENARIOS).map((s) => s.name);
  run.verdict = judge(run.results, { failOn: options.failOn, listed: options.expectedFailures?.[options.mode], known });
  const verdictText = run.baseline !== undefined ? baselineText(run.verdict, run.baseline, options.mode) : gateText(run.verdict, options.failOn);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...jsonReport(run), durationMs: run.durationMs }, null, 2)}\n`);
    if (run.baseline !== undefined) process.stderr.write(verdictText);
  } else {
    print(details(run.results, { verbose: options.verbose, revision: run.revision, width }));
    print(verdictText);
  }
  if (options.junit !== undefined) {
    try {
      await writeFile(options.junit, junitXml(run, run.verdict, { failOn: options.failOn, baseline: run.baseline, startedAt }));
    } catch (error) {
      process.stderr.write(`mcp-cancel conformance: --junit ${options.junit}: cannot write it (${error.code ?? error.message})\n`);
      return 2;
    }
  }
  return run.verdict.exitCode;
}

/** With `--fail-on must`, which scenarios fail the run (the table's FAIL may be a SHOULD only). */
function gateText(verdict, failOn) {
  if (failOn !== "must") return "";
  return verdict.failed.length ? `--fail-on must: ${verdict.failed.join(", ")} fail a MUST-level check\n` : "--fail-on must: no MUST-level check failed\n";
}

function selected(scenarios, names) {
  return names.length === 0 ? scenarios : scenarios.filter((s) => names.includes(s.name));
}

/**
 * The options, validated.
 *
 * @param {string[]} args
 * @throws {UsageError} with a message that says what is wrong
 */
function parseOptions(args) {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        server: { type: "string" },
        url: { type: "string" },
        client: { type: "string" },
        tool: { type: "string" },
        arguments: { type: "string" },
        "task-tool": { type: "string" },
        "task-arguments": { type: "string" },
        "nested-tool": { type: "string" },
        "nested-arguments": { type: "string" },
        "fail-on": { type: "string" },
        "expected-failures": { type: "string" },
        junit: { type: "string" },
        "protocol-version": { type: "string" },
        scenario: { type: "string", multiple: true },
        timeout: { type: "string" },
        json: { type: "boolean" },
        verbose: { type: "boolean" },
        list: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    // Node's message goes on to explain positionals after `--`, which this command has none of.
    throw new UsageError(error.message.split(". ")[0]);
  }
  if (parsed.help || parsed.list) return { help: parsed.help, list: parsed.list };
  const modes = ["server", "url", "client"].filter((m) => parsed[m] !== undefined);
  if (modes.length !== 1) throw new UsageError(modes.length === 0 ? "give one of --server, --url or --client" : `give only one of ${modes.map((m) => `--${m}`).join(", ")}`);
  const options = {
    json: parsed.json === true,
    verbose: parsed.verbose === true,
    scenarios: parsed.scenario ?? [],
    timeoutMs: 10000,
    protocolVersion: "2025-11-25",
    failOn: "should",
    expectedFailuresFile: parsed["expected-failures"],
    junit: parsed.junit,
  };
  if (parsed["fail-on"] !== undefined) {
    if (!["must", "should"].includes(parsed["fail-on"])) throw new UsageError(`--fail-on ${parsed["fail-on"]}: expected must or should`);
    options.failOn = parsed["fail-on"];
  }
  if (options.expectedFailuresFile !== undefined) nonEmpty("--expected-failures", options.expectedFailuresFile);
  if (options.junit !== undefined) nonEmpty("--junit", options.junit);
  if (parsed.timeout !== undefined) {
    const ms = Number(parsed.timeout);
    if (!Number.isInteger(ms) || ms < 100 || ms > 600000) throw new UsageError(`--timeout ${parsed.timeout}: expected a whole number of milliseconds from 100 to 600000`);
    options.timeoutMs = ms;
  }
  if (parsed["protocol-version"] !== undefined && !REVISIONS.includes(parsed["protocol-version"])) {
    throw new UsageError(`--protocol-version ${parsed["protocol-version"]}: expected one of ${REVISIONS.join(", ")}`);
  }
  if (parsed.client !== undefined) {
    for (const o of ["tool", "arguments", "task-tool", "task-arguments", "nested-tool", "nested-arguments"]) {
      if (parsed[o] !== undefined) throw new UsageError(`--${o} applies to --server and --url (a server under test), not to --client`);
    }
    options.mode = "client";
    options.target = { kind: "stdio", ...command("--client", parsed.client) };
    // The revision the suite's server speaks; without it, the initialize era as the client offers.
    options.protocolVersion = parsed["protocol-version"];
  } else {
    options.mode = "server";
    options.target = parsed.server !== undefined ? { kind: "stdio", ...command("--server", parsed.server) } : { kind: "http", url: httpUrl(parsed.url) };
    if (parsed["protocol-version"] !== undefined) options.protocolVersion = parsed["protocol-version"];
    if (parsed.arguments !== undefined && parsed.tool === undefined) throw new UsageError("--arguments needs --tool");
    if (parsed["task-arguments"] !== undefined && parsed["task-tool"] === undefined) throw new UsageError("--task-arguments needs --task-tool");
    if (parsed.tool !== undefined) {
      options.tool = nonEmpty("--tool", parsed.tool);
      options.arguments = jsonObject("--arguments", parsed.arguments);
    }
    if (parsed["task-tool"] !== undefined) {
      options.taskTool = nonEmpty("--task-tool", parsed["task-tool"]);
      options.taskArguments = jsonObject("--task-arguments", parsed["task-arguments"]);
    }
    if (parsed["nested-arguments"] !== undefined && parsed["nested-tool"] === undefined) throw new UsageError("--nested-arguments needs --nested-tool");
    if (parsed["nested-tool"] !== undefined) {
      options.nestedTool = nonEmpty("--nested-tool", parsed["nested-tool"]);
      options.nestedArguments = jsonObject("--nested-arguments", parsed["nested-arguments"]);
    }
  }
  const known = (options.mode === "client" ? CLIENT_SCENARIOS : SERVER_SCENARIOS).map((s) => s.name);
  for (const name of options.scenarios) {
    if (!known.includes(name)) throw new UsageError(`--scenario ${name}: no such ${options.mode} scenario (there are: ${known.join(", ")})`);
  }
  return options;
}

function nonEmpty(flag, value) {
  if (value.trim() === "") throw new UsageError(`${flag}: empty`);
  return value;
}

function jsonObject(flag, text) {
  if (text === undefined) return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${flag} '${text}': not JSON (${error.message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new UsageError(`${flag} '${text}': expected a JSON object, e.g. '{"ms": 2000}'`);
  return value;
}

function httpUrl(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--url ${JSON.stringify(text)}: not a URL (expected e.g. http://127.0.0.1:3001/mcp)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--url ${text}: expected an http: or https: URL, not ${url.protocol}`);
  return url;
}

/**
 * A command line split into the program and its arguments, as a POSIX shell would split it
 * for simple cases: whitespace separates words; '…' and "…" quote; a backslash escapes the
 * next character (outside single quotes). It is not run by a shell, so shell syntax it would
 * not honour — pipes, redirections, `$VAR`, a `FOO=1` prefix — is refused with a usage error
 * that says what to write instead, never left to fail as `spawn FOO=1 ENOENT`.
 *
 * @param {string} flag the option, for messages
 * @param {string} text
 * @returns {{ command: string, args: string[] }}
 * @throws {UsageError} for an unterminated quote, shell syntax or an empty command
 */
export function command(flag, text) {
  const words = [];
  let word;
  let quote;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === "\\" && i + 1 < text.length && '"\\$`'.includes(text[i + 1])) word += text[++i];
      else if (expands(text, i)) throw shellSyntax(flag, text, expansion(text, i));
      else word += ch;
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= "";
    } else if (ch === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[++i];
    } else if ("|&;<>".includes(ch) || expands(text, i)) {
      throw shellSyntax(flag, text, ch === "$" ? expansion(text, i) : ch);
    } else {
      word = (word ?? "") + ch;
    }
  }
  if (quote !== undefined) throw new UsageError(`${flag} ${JSON.stringify(text)}: unterminated ${quote} quote`);
  if (word !== undefined) words.push(word);
  if (words.length === 0) throw new UsageError(`${flag}: empty command`);
  const assignment = /^[A-Za-z_][A-Za-z0-9_]*=/.exec(words[0]);
  if (assignment) {
    throw new UsageError(`${flag} ${JSON.stringify(text)}: ${words[0]} is a shell's variable assignment, and the command is not run by a shell; write ${flag} ${JSON.stringify(`env ${text.trim()}`)}`);
  }
  return { command: words[0], args: words.slice(1) };
}

/** Whether `text[i]` starts what a shell would expand: `$NAME`, `${…}`, `$(…)` or a backquote. */
function expands(text, i) {
  return text[i] === "`" || (text[i] === "$" && /[A-Za-z_{(]/.test(text[i + 1] ?? ""));
}

/** The expansion that starts at `text[i]` (a `$`), for the message: `$HOME`, `${X}`, `$(`. */
function expansion(text, i) {
  return /^\$(?:\{[^}]*\}?|\(|[A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(i))[0];
}

function shellSyntax(flag, text, what) {
  return new UsageError(`${flag} ${JSON.stringify(text)}: "${what}" is shell syntax, and the command is not run by a shell; write ${flag} "sh -c '…'" (or wrap it in a script)`);
}

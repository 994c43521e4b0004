// `mcp-cancel conformance`: checks an MCP server's (`--server`, `--url`) or client's
// (`--client`) cancellation, scenario by scenario (scenarios.js), through mcp-cancel's
// CancellationSession. Prints a table (or `--json`); exit code 0 when nothing failed, 1 when
// a scenario failed, 2 for a usage error or a target that cannot be started or reached.

import { createRequire } from "node:module";
import { parseArgs } from "node:util";

import { describeServerRevision, runClientSuite } from "./client-runner.js";
import { details, header, jsonReport, row, tableHead } from "./report.js";
import { CLIENT_SCENARIOS, REVISIONS, SERVER_SCENARIOS } from "./scenarios.js";
import { describeTarget, runServerSuite, SetupError } from "./server-runner.js";

const VERSION = createRequire(import.meta.url)("../package.json").version;

const USAGE = `usage: mcp-cancel conformance (--server "<command>" | --url <url> | --client "<command>") [options]

  --server "<command>"      an MCP server over stdio: the command line that starts it
  --url <url>               an MCP server over Streamable HTTP (http: or https:)
  --client "<command>"      an MCP client: the suite spawns it once per scenario and is its
                            server over the child's stdin/stdout; the scenario's name is in
                            MCP_CONFORMANCE_SCENARIO, its parameters (JSON) in
                            MCP_CONFORMANCE_CONTEXT; the client may report the errors its
                            application saw as a stderr line {"conformance":{"errors":[…]}}

server options (--server, --url)
  --tool <name>             a slow tool to cancel (it should run 0.5–5 s, ideally with progress)
  --arguments '<json>'      its arguments (a JSON object; default {})
  --task-tool <name>        a tool to call task-augmented (2025-11-25)
  --task-arguments '<json>' its arguments (a JSON object; default {})
  --protocol-version <v>    the revision to offer (default 2025-11-25; 2026-07-28 uses server/discover)

client options (--client)
  --protocol-version <v>    the one revision the suite's server speaks (default: any of
                            2024-11-05 to 2025-11-25 with initialize, as the client offers;
                            2026-07-28: server/discover and the _meta version envelope)

  --scenario <name>         run only this scenario (repeatable)
  --timeout <ms>            longest wait for one answer (default 10000)
  --json                    print the JSON report (for CI) instead of the table
  --verbose                 print every scenario's checks and wire lines, not only the failed ones
  --list                    list the scenarios and exit
  -h, --help                this text

Without --tool the suite uses a slow tool it knows when the server lists it (server-everything's
trigger-long-running-operation); otherwise the scenarios that need one say so (n/a).
Exit code: 0 nothing failed, 1 a scenario failed, 2 usage error or the target cannot be reached.
`;

class UsageError extends Error {}

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
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`mcp-cancel conformance: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (options.list) {
    for (const s of [...SERVER_SCENARIOS, ...CLIENT_SCENARIOS]) process.stdout.write(`${s.role.padEnd(7)} ${s.name.padEnd(40)} ${s.description}\n`);
    return 0;
  }
  try {
    return await run(options);
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    if (options.json) process.stdout.write(`${JSON.stringify({ suite: "mcp-cancel conformance", version: VERSION, error: error.message, ok: false }, null, 2)}\n`);
    process.stderr.write(`mcp-cancel conformance: ${error.message}\n`);
    return 2;
  }
}

/** Runs the suite the options name and prints its report; returns the exit code. */
async function run(options) {
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
  if (options.json) process.stdout.write(`${JSON.stringify({ ...jsonReport(run), durationMs: run.durationMs }, null, 2)}\n`);
  else print(details(run.results, { verbose: options.verbose, revision: run.revision }));
  return run.results.some((r) => r.status === "fail") ? 1 : 0;
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
    throw new UsageError(error.message);
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
  };
  if (parsed.timeout !== undefined) {
    const ms = Number(parsed.timeout);
    if (!Number.isInteger(ms) || ms < 100 || ms > 600000) throw new UsageError(`--timeout ${parsed.timeout}: expected a whole number of milliseconds from 100 to 600000`);
    options.timeoutMs = ms;
  }
  if (parsed["protocol-version"] !== undefined && !REVISIONS.includes(parsed["protocol-version"])) {
    throw new UsageError(`--protocol-version ${parsed["protocol-version"]}: expected one of ${REVISIONS.join(", ")}`);
  }
  if (parsed.client !== undefined) {
    for (const o of ["tool", "arguments", "task-tool", "task-arguments"]) {
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
 * next character (outside single quotes). No variables, globs, pipes or redirections.
 *
 * @param {string} flag the option, for messages
 * @param {string} text
 * @returns {{ command: string, args: string[] }}
 * @throws {UsageError} for an unterminated quote or an empty command
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
      else word += ch;
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= "";
    } else if (ch === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[++i];
    } else if ("|&;<>".includes(ch)) {
      throw new UsageError(`${flag} ${JSON.stringify(text)}: "${ch}" is shell syntax; give one command (wrap a pipeline in a script)`);
    } else {
      word = (word ?? "") + ch;
    }
  }
  if (quote !== undefined) throw new UsageError(`${flag} ${JSON.stringify(text)}: unterminated ${quote} quote`);
  if (word !== undefined) words.push(word);
  if (words.length === 0) throw new UsageError(`${flag}: empty command`);
  return { command: words[0], args: words.slice(1) };
}

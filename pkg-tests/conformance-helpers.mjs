// What the conformance tests share (conformance.test.mjs: --server; conformance-client.test.mjs:
// --client and usage): the command run as a user runs it (`node cli/main.js conformance …`
// in a child process, bounded), the peers' command lines, and readers of its JSON report.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export { EVERYTHING } from "../demo/everything.mjs";

export const repo = fileURLToPath(new URL("..", import.meta.url));
export const CLI = `${repo}cli/main.js`;
export const NODE = process.execPath;
export const PY2 = `${repo}.venv/mcp-2.3.0/bin/python`;
export const PY1 = `${repo}.venv/mcp-1.30.0/bin/python`;
export const SERVER_PY = `${repo}pkg-tests/peers/server.py`;
export const NODE_SERVER = `${NODE} ${repo}pkg-tests/peers/node-server.mjs`;
export const SLOW = ["--tool", "slow", "--arguments", '{"ms":1200}'];
/** The peers' tool that elicits (pkg-tests/peers/node-server.mjs and server.py). */
export const NESTED = ["--nested-tool", "ask"];

/**
 * Runs the command; resolves with its exit code, stdout (parsed when --json), stderr.
 * Bounded: killed after `timeoutMs`.
 */
export function cli(args, { timeoutMs = 60000 } = {}) {
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
export const statuses = (report) => Object.fromEntries(report.scenarios.map((s) => [s.name, s.status]));
export const scenario = (report, name) => report.scenarios.find((s) => s.name === name);
export const check = (report, name, id) => scenario(report, name).checks.find((c) => c.id === id);

/** Prints a report's table as diagnostics (the README's tables come from these runs). */
export function table(t, title, report) {
  t.diagnostic(`${title} (${report.revision ?? "-"}, ${report.durationMs} ms)`);
  for (const s of report.scenarios) t.diagnostic(`  ${s.name.padEnd(38)} ${s.status.padEnd(4)}  ${s.summary}`);
}

export const skipPython = (python) => (existsSync(python) ? false : `${python} missing: run scripts/setup.sh --test`);


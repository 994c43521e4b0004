// A wire tap for a stdio MCP server: runs the command given as arguments, passes stdin and
// stdout through line by line, and appends every JSON-RPC line to the file named by
// $WIRE_LOG as `{"dir":"out"|"in","at":ms,"message":…}` ("out": to the server). Used by the
// bridge tests to see what the server behind `mcp-cancel bridge --stdio` received. With
// $WIRE_DIR instead, each tap (one per server process, `--child-per-session`) appends to
// `<WIRE_DIR>/<its pid>.jsonl`, and records the end of its stdin as `{"dir":"end","at":ms}`.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";

const [command, ...args] = process.argv.slice(2);
const log = process.env.WIRE_DIR !== undefined ? path.join(process.env.WIRE_DIR, `${process.pid}.jsonl`) : process.env.WIRE_LOG;
const record = (dir, line) => {
  if (log === undefined) return;
  try {
    appendFileSync(log, `${JSON.stringify({ dir, at: performance.now(), message: JSON.parse(line) })}\n`);
  } catch {
    // Not JSON: not recorded.
  }
};
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
createInterface({ input: process.stdin }).on("line", (line) => {
  record("out", line);
  child.stdin.write(`${line}\n`);
});
process.stdin.on("end", () => {
  try {
    if (process.env.WIRE_DIR !== undefined) appendFileSync(log, `${JSON.stringify({ dir: "end", at: performance.now() })}\n`);
  } catch {
    // The test's directory is gone: nothing to record.
  }
  child.stdin.end();
});
createInterface({ input: child.stdout }).on("line", (line) => {
  record("in", line);
  process.stdout.write(`${line}\n`);
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => child.kill(signal));

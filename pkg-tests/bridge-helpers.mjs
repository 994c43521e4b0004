// `mcp-cancel bridge` as a process, for the bridge tests: run it to its end, or start
// `bridge --stdio` behind the stdio wire tap (pkg-tests/peers/stdio-tap.mjs) and read what
// its child received.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const CLI = path.join(ROOT, "cli/main.js");

/**
 * Waits for a `bridge --stdio` process's "listening on <url>" line on stderr (bounded by
 * `timeoutMs`): its URL, and what it has written to stderr so far (a function: it keeps
 * reading). Shared by the bridge tests, bench/bridge-load.mjs and scripts/instance-capacity.mjs.
 */
export function listening(child, timeoutMs = 20_000) {
  let text = "";
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bridge did not start: ${text}`)), timeoutMs);
    child.stderr.on("data", (d) => {
      text += d;
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1]));
      }
    });
  });
  return url.then((u) => ({ url: u, stderr: () => text }));
}
const TAP = path.join(ROOT, "pkg-tests/peers/stdio-tap.mjs");

/** Runs `mcp-cancel bridge <args>` to its end: { status, stderr }. */
export function runBridge(args, { input = "", timeout = 15_000, env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "bridge", ...args], { stdio: ["pipe", "pipe", "pipe"], env });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`bridge did not exit in ${timeout} ms: ${stderr}`));
    }, timeout);
    child.on("exit", (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
    child.stdin.end(input);
  });
}

/**
 * `mcp-cancel bridge --stdio "<tap> <command>" --port 0 <args>`: its URL, the child's wire
 * (`wire()`, records `{ dir, at, message }`), its exit status (`exited`), its stderr and the
 * bridge's process (`child`). Stopped when the test ends.
 */
export async function startStdioBridge(command, t, { args = [], env = {} } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "mcp-cancel-bridge-"));
  const log = path.join(dir, "wire.jsonl");
  const child = spawn(process.execPath, [CLI, "bridge", "--stdio", `${JSON.stringify(process.execPath)} ${JSON.stringify(TAP)} ${command}`, "--port", "0", ...args], {
    env: { ...process.env, ...env, WIRE_LOG: log },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise((resolve) => child.on("exit", (status) => resolve(status)));
  const { url, stderr } = await listening(child, 15_000);
  t.after(async () => {
    child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });
  const wire = () => {
    try {
      return readFileSync(log, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
    } catch {
      return [];
    }
  };
  return { url, wire, exited, stderr, child };
}

/**
 * One raw HTTP request (node:http, so that `Host` and `Origin` are what the test says):
 * resolves with `{ status, headers, text, json }` once the answer has ended.
 */
export function rawRequest(url, { method = "POST", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => {
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** An `initialize` request body (2025-11-25), as an SDK client sends it. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "hostile", version: "0.0.0" } },
});

/** The resident set size of process `pid`, in bytes (Linux: /proc/<pid>/status VmRSS). */
export function rssOf(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (match === null) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

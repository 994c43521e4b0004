// Runs inside Deno or Bun (../hosts.test.mjs), in a project that installed the packed
// tarball and the MCP SDK: mcp-cancel imported as their users import it, the session checks,
// and the SDK Client through guardTransport against server-everything over stdio with one
// abort. Prints one JSON line of what happened; the node:test side asserts it.
//   <runtime> host-check.mjs <node> <server-everything's dist/index.js>
import process from "node:process";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import * as api from "mcp-cancel";

import { sessionChecks } from "./session-checks.mjs";
import { tap } from "./wiretap.mjs"; // demo/wiretap.mjs, copied here by the test

const [node, everything] = process.argv.slice(2);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(pred, ms, what) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}
const messages = (log, dir) => log.filter((r) => r.dir === dir).map((r) => r.message);

const result = { exports: Object.keys(api).sort(), checks: sessionChecks(api) };

// server-everything's trigger-long-running-operation ignores cancellation and keeps sending
// progress: abort after two, then wait for the rest to arrive (late, to be dropped).
const wireLog = [];
const errors = [];
const events = [];
const transport = api.guardTransport(tap(new StdioClientTransport({ command: node, args: [everything, "stdio"], stderr: "pipe" }), wireLog), {
  onEvent: (e) => events.push(e),
});
const client = new Client({ name: "host-check", version: "0.0.0" });
client.onerror = (e) => errors.push(`${e?.name}: ${e?.message}`);
try {
  await client.connect(transport, { timeout: 20000 });
  const ac = new AbortController();
  let progressSeen = 0;
  const call = client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 1.6, steps: 8 } }, undefined, {
    signal: ac.signal,
    onprogress: () => progressSeen++,
  });
  await until(() => progressSeen >= 2, 10000, "two progress notifications");
  ac.abort();
  const outcome = await call.then(
    () => ({ settled: "resolved" }),
    (e) => ({ settled: "rejected", name: e?.name, message: String(e?.message ?? e) }),
  );
  const progressAtAbort = progressSeen;
  await until(() => messages(wireLog, "in").some((m) => m.method === "notifications/progress" && m.params.progress === 8), 10000, "the last progress");
  await sleep(300);

  const callId = messages(wireLog, "out").find((m) => m.method === "tools/call").id;
  const cancelIndex = wireLog.findIndex((r) => r.dir === "out" && r.message.method === "notifications/cancelled");
  result.sdk = {
    outcome,
    callId,
    cancels: messages(wireLog, "out").filter((m) => m.method === "notifications/cancelled"),
    lateProgressOnWire: cancelIndex < 0 ? 0 : wireLog.slice(cancelIndex).filter((r) => r.dir === "in" && r.message.method === "notifications/progress").length,
    lateProgressDropped: events.filter((e) => e.type === "late-progress-dropped").length,
    progressAtAbort,
    progressAfter: progressSeen,
    responsesToCall: messages(wireLog, "in").filter((m) => m.id === callId && m.method === undefined).length,
    errors,
  };
  await client.ping();
} finally {
  await client.close();
}
process.stdout.write(`${JSON.stringify(result)}\n`);

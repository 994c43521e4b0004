// A hand-written MCP server over stdio (newline-delimited JSON-RPC, no SDK) that looks as if it
// honours a cancel but does not stop the work: for a cancelled tools/call it withholds the
// response, yet its tool `slow` goes on to the end and keeps sending the request's progress.
// With `--exit-on-cancel` it exits at the first notifications/cancelled instead (a MUST-level
// failure: the connection does not stay usable).
import { createInterface } from "node:readline";

const exitOnCancel = process.argv.includes("--exit-on-cancel");
const KNOWN = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const cancelled = new Set();
const key = (id) => `${typeof id}:${id}`;
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

function call(id, params) {
  if (params?.name !== "slow") return send({ jsonrpc: "2.0", id, error: { code: -32602, message: `Unknown tool: ${params?.name}` } });
  const ms = Number(params.arguments?.ms ?? 1000);
  const token = params._meta?.progressToken;
  let step = 0;
  const timer = setInterval(() => {
    step += 1;
    // The work goes on after a cancel: only the response is withheld.
    if (token !== undefined) send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: step, total: 10 } });
    if (step < 10) return;
    clearInterval(timer);
    if (!cancelled.delete(key(id))) send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: `slept ${ms} ms` }] } });
  }, ms / 10);
}

createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m === null || typeof m !== "object" || Array.isArray(m)) return;
  if (m.method === "notifications/cancelled") {
    if (exitOnCancel) process.exit(1);
    const id = m.params?.requestId;
    if (typeof id === "string" || typeof id === "number") cancelled.add(key(id));
    return;
  }
  if (m.id === undefined || typeof m.method !== "string") return;
  switch (m.method) {
    case "initialize": {
      const offered = m.params?.protocolVersion;
      const protocolVersion = KNOWN.includes(offered) ? offered : KNOWN.at(-1);
      return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "withholding-server", version: "0.0.0" } } });
    }
    case "ping":
      return send({ jsonrpc: "2.0", id: m.id, result: {} });
    case "tools/list":
      return send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "slow", inputSchema: { type: "object", properties: { ms: { type: "number" } } } }] } });
    case "tools/call":
      return call(m.id, m.params);
    default:
      return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } });
  }
});

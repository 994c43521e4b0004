// A hand-written MCP client over stdio (newline-delimited JSON-RPC, no SDK) for `mcp-cancel
// conformance --client`: it declares elicitation, calls the tool the context names, and answers
// every elicitation/create after `answerAfterMs` whether or not the server cancelled it first
// (it reads no notifications/cancelled). client-elicitation-cancelled fails on it.
import { createInterface } from "node:readline";

const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {} } }, clientInfo: { name: "answering-client", version: "0.0.0" } } });
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === 0 && m.result) {
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: context.tool ?? "ask", arguments: {} } });
  } else if (m.method === "elicitation/create") {
    setTimeout(() => send({ jsonrpc: "2.0", id: m.id, result: { action: "decline" } }), context.answerAfterMs ?? 0);
  } else if (m.id === 1) {
    setTimeout(() => process.exit(0), context.settleMs ?? 0);
  }
});

// A raw stdio MCP server that answers `initialize`, then exits (status 3) 300 ms after its
// first `tools/call`: the bridge tests' server that goes away with a request in flight.
import { createInterface } from "node:readline";

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    const result = { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "exiting", version: "0.0.0" } };
    process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n`);
  }
  if (message.method === "tools/call") setTimeout(() => process.exit(3), 300);
});

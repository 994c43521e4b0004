// An MCP server over stdio on the TypeScript SDK 2.x (@modelcontextprotocol/server 2.4.0,
// `serveStdio`): speaks 2026-07-28 (`server/discover`) and the legacy era. Its `slow` tool
// honours its signal; what the handler saw goes to stderr as one JSON line each
// (`{"started":id}`, `{"aborted":id,"reason":…}`, `{"completed":id}`) for the tests to read.
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod/v4";

const report = (record) => process.stderr.write(`${JSON.stringify(record)}\n`);

function makeServer() {
  const server = new McpServer({ name: "node2-peer", version: "0.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("slow", { inputSchema: z.object({ steps: z.number() }) }, async ({ steps }, ctx) => {
    const { id, signal } = ctx.mcpReq;
    report({ started: id });
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 100);
        signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
      });
      if (signal.aborted) {
        report({ aborted: id, reason: String(signal.reason) });
        return { content: [{ type: "text", text: "aborted" }] };
      }
    }
    report({ completed: id });
    return { content: [{ type: "text", text: `done ${steps}` }] };
  });
  return server;
}

serveStdio(makeServer);

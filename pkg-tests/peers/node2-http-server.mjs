// An MCP server over Streamable HTTP on 127.0.0.1 for the conformance tests, on the TypeScript
// SDK 2.x (@modelcontextprotocol/server 2.4.0, createMcpHandler): speaks 2026-07-28 and the
// legacy era. Its `slow` tool reports progress every 100 ms and honours its signal; what the
// handler saw goes to stderr as one JSON line each ({"started":id}, {"aborted":id,"reason":…},
// {"completed":id}). Prints {"url":"http://127.0.0.1:<port>/mcp"} on stdout once listening.
import http from "node:http";

import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod/v4";

const report = (record) => process.stderr.write(`${JSON.stringify(record)}\n`);

function makeServer() {
  const server = new McpServer({ name: "node2-http-peer", version: "0.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("slow", { inputSchema: z.object({ steps: z.number() }) }, async ({ steps }, ctx) => {
    const { id, signal } = ctx.mcpReq;
    const token = ctx.mcpReq._meta?.progressToken;
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
      if (token !== undefined) await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } }).catch(() => {});
    }
    report({ completed: id });
    return { content: [{ type: "text", text: `done ${steps}` }] };
  });
  return server;
}

const handler = toNodeHandler(createMcpHandler(makeServer));
const server = http.createServer((req, res) => handler(req, res));
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/mcp` })}\n`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});

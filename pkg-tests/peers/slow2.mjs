// The SDK 2.x (@modelcontextprotocol/server 2.4.0) server the tests share: one tool, `slow`
// ({ steps }), that reports progress every 100 ms when asked, honours its signal, and tells
// `seen` what its handler did — `started(id)`, `aborted(id, reason)`, `completed(id)`.
// Used over stdio (node2-server.mjs), over Streamable HTTP (node2-http-server.mjs,
// startHttp2026 below) and in memory (sdk2.test.mjs).
import http from "node:http";

import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod/v4";

/**
 * A new McpServer with `slow`.
 * @param {{ started?: (id: any) => void, aborted?: (id: any, reason: string) => void, completed?: (id: any) => void }} seen
 * @param {string} [name]
 */
export function makeSlowServer(seen = {}, name = "slow-2x") {
  const server = new McpServer({ name, version: "0.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("slow", { inputSchema: z.object({ steps: z.number() }) }, async ({ steps }, ctx) => {
    const { id, signal } = ctx.mcpReq;
    const token = ctx.mcpReq._meta?.progressToken;
    seen.started?.(id);
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 100);
        signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
      });
      if (signal.aborted) {
        seen.aborted?.(id, String(signal.reason));
        return { content: [{ type: "text", text: "aborted" }] };
      }
      if (token !== undefined) {
        await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } }).catch(() => {});
      }
    }
    seen.completed?.(id);
    return { content: [{ type: "text", text: `done ${steps}` }] };
  });
  return server;
}

/**
 * `makeSlowServer(seen)` over Streamable HTTP (createMcpHandler: 2026-07-28 and the legacy
 * era) on 127.0.0.1 and a free port.
 * @returns {Promise<{ url: URL, server: http.Server, close: () => Promise<void> }>}
 */
export async function startSlowHttp(seen = {}, name = "slow-2x") {
  const handler = createMcpHandler(() => makeSlowServer(seen, name));
  const nodeHandler = toNodeHandler(handler);
  const server = http.createServer((req, res) => nodeHandler(req, res));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: new URL(`http://127.0.0.1:${server.address().port}/mcp`),
    server,
    close: async () => {
      await handler.close?.();
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

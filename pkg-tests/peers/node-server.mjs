// An MCP server over stdio for the real-peer matrix, on the TypeScript SDK 1.32.2 McpServer:
// `slow` honours its signal and reports progress; `stubborn` ignores it; `ask` elicits from
// the client the usual way, `server.server.elicitInput()` with no signal, so a cancel of the
// call leaves its elicitation open. With `--guard` its transport is guarded with
// `{ role: "server" }` (the elicitation is then cancelled with the call), and `ask` writes how
// its elicitation ended to stderr.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { guardTransport } from "mcp-cancel";
import { z } from "zod";

const guarded = process.argv.includes("--guard");

const server = new McpServer({ name: "node-peer", version: "0.0.0" });
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });

server.registerTool("slow", { inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
  for (let step = 1; step <= 10 && !extra.signal.aborted; step++) {
    await sleep(ms / 10, extra.signal);
    const token = extra._meta?.progressToken;
    if (token !== undefined && !extra.signal.aborted) {
      await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, total: 10 } });
    }
  }
  return { content: [{ type: "text", text: `slept ${ms} ms` }] };
});

server.registerTool("stubborn", { inputSchema: { ms: z.number() } }, async ({ ms }) => {
  await sleep(ms);
  return { content: [{ type: "text", text: `ignored the cancel for ${ms} ms` }] };
});

server.registerTool("ask", { inputSchema: {} }, async () => {
  const asked = server.server.elicitInput({ message: "What is your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
  if (guarded) asked.then(() => process.stderr.write("ask: answered\n"), (error) => process.stderr.write(`ask: rejected: ${error.message}\n`));
  const answer = await asked;
  return { content: [{ type: "text", text: `elicitation: ${answer.action}` }] };
});

if (guarded) {
  await server.connect(guardTransport(new StdioServerTransport(), { role: "server" }));
} else {
  await server.connect(new StdioServerTransport());
}

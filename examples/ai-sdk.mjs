// The Vercel AI SDK: createMCPClient over a guarded transport, a tool call aborted.
import { createMCPClient } from "@ai-sdk/mcp";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { guardTransport } from "mcp-cancel";

const inner = new StdioClientTransport({ command: "mcp-server-everything", args: ["stdio"] }); // or any MCP SDK transport
const mcp = await createMCPClient({
  transport: guardTransport(inner, { onEvent: (event) => console.log("[mcp-cancel]", event.type, event.requestId ?? "") }),
});
const tools = await mcp.tools(); // what you pass to generateText/streamText with your abortSignal

const ac = new AbortController();
setTimeout(() => ac.abort(), 1000); // the user presses Stop
try {
  // generateText calls this with its abortSignal; here it is called directly.
  await tools["trigger-long-running-operation"].execute({ duration: 3, steps: 6 }, { abortSignal: ac.signal, toolCallId: "call-1", messages: [] });
} catch (error) {
  console.log("tool call rejected:", error.message);
}
// One notifications/cancelled went out, and no late result reaches the AI SDK.
await new Promise((resolve) => setTimeout(resolve, 2500));
await mcp.close();

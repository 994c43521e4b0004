// The MCP TypeScript SDK 2.x Client over Streamable HTTP, its transport guarded, one call aborted.
// Start a server first: npx @modelcontextprotocol/server-everything streamableHttp (port 3001).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { guardTransport } from "mcp-cancel";

const url = process.argv[2] ?? process.env.MCP_URL ?? "http://127.0.0.1:3001/mcp";
const transport = guardTransport(new StreamableHTTPClientTransport(new URL(url)), {
  onEvent: (event) => console.log("[mcp-cancel]", event.type, event.requestId ?? ""), // optional
});
const client = new Client({ name: "my-app", version: "1.0.0" });
await client.connect(transport);

const ac = new AbortController();
const call = client.callTool(
  { name: "trigger-long-running-operation", arguments: { duration: 3, steps: 6 } },
  { signal: ac.signal, onprogress: (p) => console.log(`progress ${p.progress}/${p.total}`) },
);
setTimeout(() => ac.abort("user pressed stop"), 1200); // the user presses Stop
try {
  await call;
} catch (error) {
  console.log("call rejected:", error.message); // the SDK rejects the aborted call
}
// One notifications/cancelled went out, and the call's response stream is closed.
await transport.terminateSession(); // ends the server's session (DELETE)
await client.close();

// README "Quick start": an SDK Client whose transport is guarded, one call aborted.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { guardTransport } from "mcp-cancel";

const transport = guardTransport(new StdioClientTransport({ command: "mcp-server-everything", args: ["stdio"] }), {
  onEvent: (event) => console.log("[mcp-cancel]", event.type, event.requestId ?? ""), // optional
});
const client = new Client({ name: "my-app", version: "1.0.0" });
await client.connect(transport);

const ac = new AbortController();
const call = client.callTool(
  { name: "trigger-long-running-operation", arguments: { duration: 3, steps: 6 } },
  undefined,
  { signal: ac.signal, onprogress: (p) => console.log(`progress ${p.progress}/${p.total}`) },
);
setTimeout(() => ac.abort("user pressed stop"), 1200); // the user presses Stop
try {
  await call;
} catch (error) {
  console.log("call rejected:", error.message); // the SDK rejects the aborted call
}
// One notifications/cancelled went out; the progress the server still sends is dropped.
await new Promise((resolve) => setTimeout(resolve, 2500));
await client.close();

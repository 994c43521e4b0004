// An MCP client to kill mid-call: the TypeScript SDK 1.32.2 Client over Streamable HTTP to
// the URL in argv[2] (a `bridge --stdio`), which calls tool argv[3] with the JSON arguments
// argv[4] and waits. It prints `{"session":"<Mcp-Session-Id>"}` on stdout once connected;
// the bridge tests SIGKILL it while its call is in flight (the client vanishes without a
// cancel or a DELETE).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, tool, args] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: "vanishing-client", version: "0.0.0" });
await client.connect(transport);
process.stdout.write(`${JSON.stringify({ session: transport.sessionId })}\n`);
await client.callTool({ name: tool, arguments: JSON.parse(args ?? "{}") }, undefined, { timeout: 600_000 });
process.stdout.write(`${JSON.stringify({ done: true })}\n`);

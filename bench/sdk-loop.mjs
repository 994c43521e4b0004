// Child program of bench/sdk.mjs: `node bench/sdk-loop.mjs plain|guard N` makes N sequential
// tools/call round trips (SDK Client → InMemoryTransport → in-process McpServer), with or
// without guardTransport, for callgrind to count the instructions.
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
const { guardTransport } = await import("mcp-cancel");
const [c, s] = InMemoryTransport.createLinkedPair();
const server = new McpServer({ name: "b", version: "0" });
server.registerTool("echo", {}, async () => ({ content: [{ type: "text", text: "x" }] }));
await server.connect(s);
const client = new Client({ name: "b", version: "0" });
await client.connect(process.argv[2] === "plain" ? c : guardTransport(c));
const n = Number(process.argv[3]);
for (let i = 0; i < n; i++) await client.callTool({ name: "echo", arguments: {} });
process.exit(0);

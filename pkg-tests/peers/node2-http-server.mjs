// An MCP server over Streamable HTTP on 127.0.0.1 for the conformance tests, on the TypeScript
// SDK 2.x (@modelcontextprotocol/server 2.4.0, createMcpHandler): speaks 2026-07-28 and the
// legacy era. Its `slow` tool (slow2.mjs) reports progress every 100 ms and honours its signal;
// what the handler saw goes to stderr as one JSON line each ({"started":id},
// {"aborted":id,"reason":…}, {"completed":id}). Prints {"url":"http://127.0.0.1:<port>/mcp"}
// on stdout once listening.
import { startSlowHttp } from "./slow2.mjs";

const report = (record) => process.stderr.write(`${JSON.stringify(record)}\n`);
const { url, server } = await startSlowHttp(
  { started: (id) => report({ started: id }), aborted: (id, reason) => report({ aborted: id, reason }), completed: (id) => report({ completed: id }) },
  "node2-http-peer",
);
process.stdout.write(`${JSON.stringify({ url: url.href })}\n`);
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});

// An MCP server over stdio on the TypeScript SDK 2.x (@modelcontextprotocol/server 2.4.0,
// `serveStdio`): speaks 2026-07-28 (`server/discover`) and the legacy era. Its `slow` tool
// (slow2.mjs) honours its signal; what the handler saw goes to stderr as one JSON line each
// (`{"started":id}`, `{"aborted":id,"reason":…}`, `{"completed":id}`) for the tests to read.
import { serveStdio } from "@modelcontextprotocol/server/stdio";

import { makeSlowServer } from "./slow2.mjs";

const report = (record) => process.stderr.write(`${JSON.stringify(record)}\n`);
serveStdio(() =>
  makeSlowServer(
    { started: (id) => report({ started: id }), aborted: (id, reason) => report({ aborted: id, reason }), completed: (id) => report({ completed: id }) },
    "node2-peer",
  ),
);

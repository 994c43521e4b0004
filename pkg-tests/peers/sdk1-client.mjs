// An MCP client under test for `mcp-cancel conformance --client`: the MCP TypeScript SDK
// 1.32.2 Client, alone or with `--guard` behind guardTransport(). The conformance suite is
// its server over this process's stdin/stdout (the SDK's stdio transport works either way
// round), and tells it what to do in MCP_CONFORMANCE_SCENARIO / MCP_CONFORMANCE_CONTEXT.
// It reports what reached `client.onerror` as one stderr line {"conformance":{"errors":[…]}}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { guardTransport } from "mcp-cancel";

const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const stdio = new StdioServerTransport();
const transport = process.argv.includes("--guard") ? guardTransport(stdio) : stdio;
const client = new Client({ name: "sdk1-client", version: "0.0.0" }, { capabilities: {} });
const errors = [];
client.onerror = (error) => errors.push(error.message);

try {
  if (scenario === "client-never-cancels-initialize") {
    await client.connect(transport, { timeout: context.connectTimeoutMs }).catch(() => {});
  } else {
    await client.connect(transport);
    const ac = new AbortController();
    if (scenario === "client-cancels-in-flight") {
      await client.callTool({ name: context.tool, arguments: {} }, undefined, { signal: ac.signal, onprogress: () => ac.abort() }).catch(() => {});
    } else if (scenario === "client-no-cancel-after-completion") {
      await client.callTool({ name: context.tool, arguments: {} }, undefined, { signal: ac.signal });
      ac.abort();
    } else if (scenario === "client-cancels-task-with-tasks-cancel") {
      await client.request({ method: "tools/call", params: { name: context.tool, arguments: {} } }, CreateTaskResultSchema, { task: { ttl: 60000 }, signal: ac.signal });
      ac.abort();
    }
  }
  await sleep(context.settleMs ?? 0);
} catch (error) {
  errors.push(`the scenario threw: ${error.message}`);
}
process.stderr.write(`${JSON.stringify({ conformance: { errors } })}\n`);
process.exit(0);

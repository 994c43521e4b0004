// An MCP client under test for `mcp-cancel conformance --client`: the MCP TypeScript SDK
// 1.32.2 Client, alone or with `--guard` behind guardTransport(). The conformance suite is
// its server over this process's stdin/stdout (the SDK's stdio transport works either way
// round), and tells it what to do in MCP_CONFORMANCE_SCENARIO / MCP_CONFORMANCE_CONTEXT.
// It reports what reached `client.onerror` as one stderr line {"conformance":{"errors":[…]}}.
// For client-elicitation-cancelled it declares elicitation and answers it the way a handler
// usually is written, after the user's `answerAfterMs`, with no look at its signal: whether an
// answer goes out after the server's cancel is then the SDK's doing.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CreateTaskResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { guardTransport } from "mcp-cancel";

const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const stdio = new StdioServerTransport();
const transport = process.argv.includes("--guard") ? guardTransport(stdio) : stdio;
const eliciting = scenario === "client-elicitation-cancelled";
const client = new Client({ name: "sdk1-client", version: "0.0.0" }, { capabilities: eliciting ? { elicitation: { form: {} } } : {} });
if (eliciting) {
  client.setRequestHandler(ElicitRequestSchema, async () => {
    await sleep(context.answerAfterMs);
    return { action: "decline" };
  });
}
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
    } else if (eliciting) {
      await client.callTool({ name: context.tool, arguments: {} });
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

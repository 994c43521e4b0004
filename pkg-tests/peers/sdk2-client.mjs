// An MCP client under test for `mcp-cancel conformance --client … --protocol-version
// 2026-07-28`: the MCP TypeScript SDK 2.x Client (@modelcontextprotocol/client 2.4.0) pinned
// to 2026-07-28 (`versionNegotiation: { mode: { pin: "2026-07-28" } }`: `server/discover` at
// connect, the `_meta` version envelope on every request and notification), alone or with
// `--guard` behind guardTransport(). As sdk1-client.mjs: the conformance suite is its server
// over this process's stdin/stdout, it does what MCP_CONFORMANCE_SCENARIO /
// MCP_CONFORMANCE_CONTEXT say, and reports what reached `client.onerror` as one stderr line
// {"conformance":{"errors":[…]}}. With `--legacy` it speaks the initialize era instead
// (`versionNegotiation: { mode: "legacy" }`), for the scenarios that 2026-07-28 does not have:
// client-elicitation-cancelled, where it declares elicitation and answers after the user's
// `answerAfterMs` with no look at its signal (whether an answer goes out after the server's
// cancel is then the SDK's doing).
import { Client } from "@modelcontextprotocol/client";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { guardTransport } from "mcp-cancel";

const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const stdio = new StdioServerTransport();
const transport = process.argv.includes("--guard") ? guardTransport(stdio) : stdio;
const legacy = process.argv.includes("--legacy");
const eliciting = scenario === "client-elicitation-cancelled";
const client = new Client(
  { name: "sdk2-client", version: "0.0.0" },
  { capabilities: eliciting ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode: legacy ? "legacy" : { pin: "2026-07-28" } } },
);
if (eliciting) {
  client.setRequestHandler("elicitation/create", async () => {
    await sleep(context.answerAfterMs);
    return { action: "decline" };
  });
}
const errors = [];
client.onerror = (error) => errors.push(error.message);

try {
  await client.connect(transport);
  const ac = new AbortController();
  if (scenario === "client-cancels-in-flight") {
    await client.callTool({ name: context.tool, arguments: {} }, { signal: ac.signal, onprogress: () => ac.abort() }).catch(() => {});
  } else if (scenario === "client-no-cancel-after-completion") {
    await client.callTool({ name: context.tool, arguments: {} }, { signal: ac.signal });
    ac.abort();
  } else if (eliciting) {
    await client.callTool({ name: context.tool, arguments: {} });
  }
  // Pinned, client-never-cancels-initialize, client-cancels-task-with-tasks-cancel and
  // client-elicitation-cancelled do not apply to 2026-07-28 (no initialize; tasks are the
  // io.modelcontextprotocol/tasks extension; a server asks for input in its result).
  await sleep(context.settleMs ?? 0);
} catch (error) {
  errors.push(`the scenario threw: ${error.message}`);
}
process.stderr.write(`${JSON.stringify({ conformance: { errors } })}\n`);
process.exit(0);

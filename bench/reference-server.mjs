// The reference servers beside `bridge --stdio`'s throughput (bench/bridge-load.mjs): a
// Streamable HTTP MCP endpoint with the `echo` tool (server-everything's: `Echo: <message>`)
// answered in this process, run as a process of its own as the bridge is, so the same clients
// drive it and its CPU time is read the same way.
//
//   node bench/reference-server.mjs bare   Node's `http` alone: each POST's JSON-RPC body
//                                          parsed and answered directly, on an SSE response
//                                          stream as the SDK's transport answers (so the
//                                          clients' work is the same); `initialize` gets a
//                                          session id, notifications 202, GET 405 (the spec's
//                                          "no standalone stream"), DELETE 200. No checks, no
//                                          validation: the least an MCP endpoint on Node does.
//   node bench/reference-server.mjs sdk    the MCP SDK 1.x as its docs show it: node:http, a
//                                          StreamableHTTPServerTransport and an McpServer per
//                                          session, the tool in process; the body parsed here
//                                          and handed to `handleRequest` (as the bridge does).
//
// Writes "listening on http://127.0.0.1:<port>/mcp" to stderr (what `listening()` waits for).
import { randomUUID } from "node:crypto";
import http from "node:http";

const mode = process.argv[2];

/** The whole body of `req`, parsed as JSON (undefined when it is not). */
async function jsonBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}

const echoResult = (message) => ({ content: [{ type: "text", text: `Echo: ${message}` }] });

function bare() {
  const sessions = new Set();
  const sse = (res, headers, message) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
    res.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  };
  return http.createServer(async (req, res) => {
    if (req.method === "GET") return res.writeHead(405, { allow: "POST, DELETE" }).end();
    if (req.method === "DELETE") {
      sessions.delete(req.headers["mcp-session-id"]);
      return res.writeHead(200).end();
    }
    const body = await jsonBody(req);
    if (body === undefined || Array.isArray(body)) return res.writeHead(400).end();
    if (body.id === undefined) return res.writeHead(202).end();
    if (body.method === "initialize") {
      const id = randomUUID();
      sessions.add(id);
      return sse(res, { "mcp-session-id": id }, { jsonrpc: "2.0", id: body.id, result: { protocolVersion: body.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "reference-bare", version: "0.0.0" } } });
    }
    if (!sessions.has(req.headers["mcp-session-id"])) return res.writeHead(404).end();
    if (body.method === "tools/call" && body.params?.name === "echo") return sse(res, {}, { jsonrpc: "2.0", id: body.id, result: echoResult(body.params.arguments?.message) });
    sse(res, {}, { jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } });
  });
}

async function sdk() {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const { z } = await import("zod");
  const sessions = new Map();
  return http.createServer(async (req, res) => {
    const body = req.method === "POST" ? await jsonBody(req) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (transport === undefined) {
      if (body?.method !== "initialize") return res.writeHead(typeof sessionId === "string" ? 404 : 400).end();
      const created = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => sessions.set(id, created) });
      created.onclose = () => created.sessionId !== undefined && sessions.delete(created.sessionId);
      const server = new McpServer({ name: "reference-sdk", version: "0.0.0" });
      server.registerTool("echo", { description: "Echoes back the input string", inputSchema: { message: z.string() } }, async ({ message }) => echoResult(message));
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
}

const server = mode === "bare" ? bare() : mode === "sdk" ? await sdk() : undefined;
if (server === undefined) {
  process.stderr.write("usage: node bench/reference-server.mjs bare|sdk\n");
  process.exit(2);
}
server.keepAliveTimeout = 5000;
server.listen(0, "127.0.0.1", () => process.stderr.write(`reference-server ${mode}: listening on http://127.0.0.1:${server.address().port}/mcp\n`));
process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});

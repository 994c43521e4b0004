// A Worker that is an MCP client: the MCP TypeScript SDK's Client and Streamable HTTP
// transport (bundled in), through mcp-cancel's guardTransport, against the server at
// `?server=<url>`. It calls the server's `slow` tool, aborts the call after two progress
// notifications, waits for anything late, and answers with what it saw as JSON.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { guardTransport } from "mcp-cancel";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export default {
  async fetch(request) {
    const server = new URL(request.url).searchParams.get("server");
    const events = [];
    const errors = [];
    const out = []; // methods and ids the client sent (below the guard)
    let client;
    try {
      const http = new StreamableHTTPClientTransport(new URL(server));
      const send = http.send.bind(http);
      http.send = (message, options) => {
        out.push({ method: message.method, id: message.id, requestId: message.params?.requestId });
        return send(message, options);
      };
      const transport = guardTransport(http, { onEvent: (e) => events.push({ type: e.type, requestId: e.requestId }) });
      client = new Client({ name: "mcp-cancel-worker", version: "0.0.0" });
      client.onerror = (error) => errors.push(`${error?.name}: ${error?.message}`);
      await client.connect(transport);

      const ac = new AbortController();
      let progress = 0;
      let progressAtAbort;
      const started = Date.now();
      const outcome = await client
        .callTool({ name: "slow", arguments: { steps: 50 } }, undefined, {
          signal: ac.signal,
          onprogress: () => {
            progress++;
            if (progress === 2) {
              progressAtAbort = progress;
              ac.abort("the worker gave up");
            }
          },
        })
        .then(
          (result) => ({ settled: "resolved", result }),
          (error) => ({ settled: "rejected", name: error?.name, message: String(error?.message ?? error) }),
        );
      const abortedAfterMs = Date.now() - started;
      await sleep(400); // anything late (progress, the result) would arrive now
      await client.close();
      return Response.json({ ok: true, outcome, progress, progressAtAbort, abortedAfterMs, out, events, errors });
    } catch (error) {
      await client?.close().catch(() => {});
      return Response.json({ ok: false, error: `${error?.name}: ${error?.message}`, stack: error?.stack, out, events, errors });
    }
  },
};

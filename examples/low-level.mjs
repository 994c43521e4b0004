// The low-level API, our direction: a session driven by hand over a raw JSON-RPC pipe (here the
// SDK's stdio transport used as a plain message pipe, without the SDK Client).
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CancellationSession } from "mcp-cancel";

const wire = new StdioClientTransport({ command: "mcp-server-everything", args: ["stdio"] });
const session = new CancellationSession({
  send: (message) => wire.send(message), // every cancel the session makes goes here
  onEvent: (event) => console.log("[mcp-cancel]", event.type),
});
const waiting = new Map(); // what the application waits for, by request id
wire.onmessage = (message) => {
  if (session.shouldDropIncoming(message)) return; // late, or an invalid cancel: dropped
  if (message.id !== undefined && message.method === undefined) waiting.get(message.id)?.(message);
  else if (message.method === "notifications/progress") console.log("progress", message.params.progress);
};
await wire.start();

let nextId = 0;
function request(method, params, options) {
  const id = nextId++;
  const message = { jsonrpc: "2.0", id, method, params };
  session.track(id, method, { params, ...options }); // before it goes out
  const answer = new Promise((resolve) => waiting.set(id, resolve));
  return { id, answer, sent: wire.send(message) };
}

const init = request("initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "low-level", version: "1.0.0" },
});
const { result } = await init.answer;
session.setProtocolVersion(result.protocolVersion);
await wire.send({ jsonrpc: "2.0", method: "notifications/initialized" });

const ac = new AbortController();
const call = request(
  "tools/call",
  { name: "trigger-long-running-operation", arguments: { duration: 3, steps: 6 }, _meta: { progressToken: "p1" } },
  { signal: ac.signal },
);
const signal = session.signal(call.id); // the request's own signal, made when asked for
signal.addEventListener("abort", () => console.log("request", call.id, "aborted:", signal.reason));
setTimeout(() => ac.abort("user pressed stop"), 1200); // → notifications/cancelled through `send`
await new Promise((resolve) => setTimeout(resolve, 3500)); // late progress is dropped meanwhile
console.log("in flight:", session.inFlightCount, "remembered as cancelled:", session.tombstoneCount);
session.close();
await wire.close();

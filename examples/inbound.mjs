// The low-level API, the peer's direction: we answer the peer's requests, each under its own
// AbortSignal. The peer (here an SDK Client, over an in-memory pipe) cancels a call; the handler
// stops, and the response it would still have sent is suppressed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CancellationSession } from "mcp-cancel";

const [peerEnd, wire] = InMemoryTransport.createLinkedPair();
const session = new CancellationSession({
  role: "server", // we keep the books of the side that answers
  onEvent: (event) => console.log("[mcp-cancel]", event.type, event.requestId ?? ""),
});

/** What each request does; `signal` aborts when the peer cancels it. */
async function handle({ method, params }, signal) {
  if (method === "initialize") {
    return { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "inbound", version: "1.0.0" } };
  }
  if (method === "tools/call") {
    await new Promise((resolve) => {
      const done = setTimeout(resolve, 5000); // five seconds of work, unless cancelled
      signal.addEventListener("abort", () => (clearTimeout(done), resolve()), { once: true });
    });
    console.log(`handler for ${params.name}: ${signal.aborted ? `stopped (${signal.reason})` : "finished"}`);
    return { content: [{ type: "text", text: "done" }] };
  }
  return {};
}

wire.onmessage = async (message) => {
  if (session.shouldDropIncoming(message)) return; // an invalid cancel, or a late response: dropped
  if (message.method === undefined || message.id === undefined) return; // a notification: the session has read it
  const result = await handle(message, session.inboundSignal(message.id));
  const reply = session.beforeSend({ jsonrpc: "2.0", id: message.id, result }); // undefined once cancelled
  if (reply) await wire.send(reply);
  else console.log(`response to request ${message.id} suppressed`);
};
await wire.start();

const client = new Client({ name: "peer", version: "1.0.0" });
await client.connect(peerEnd);
const stop = new AbortController();
setTimeout(() => stop.abort("user pressed stop"), 300);
await client.callTool({ name: "slow" }, undefined, { signal: stop.signal }).catch((error) => console.log("peer's call rejected:", error.message));
await new Promise((resolve) => setTimeout(resolve, 100));
await client.close();
session.close();

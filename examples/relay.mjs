// docs/bridge.md, createRelay(): two clients share one server through the relay; their
// request ids are the same, and one cancel reaches the server for the right request only.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createRelay } from "mcp-cancel";

const relay = createRelay({
  upstream: new StdioClientTransport({ command: "mcp-server-everything", args: ["stdio"] }),
  onEvent: (event) => event.type === "cancel-sent" && console.log(`[relay] ${event.side} cancel of request ${event.requestId}`),
});
await relay.start();

// Each client's transport end goes to the relay (here in memory; in a gateway, one per connection).
async function client(name) {
  const [mine, relays] = InMemoryTransport.createLinkedPair();
  relay.connect(relays);
  await relays.start();
  const c = new Client({ name, version: "1.0.0" });
  await c.connect(mine);
  return c;
}
const alice = await client("alice");
const bob = await client("bob");

const stop = new AbortController();
const call = { name: "trigger-long-running-operation", arguments: { duration: 2, steps: 4 } };
const a = alice.callTool(call, undefined, { signal: stop.signal }).then(() => "done", () => "cancelled");
const b = bob.callTool(call).then(() => "done", () => "cancelled");
setTimeout(() => stop.abort("alice pressed stop"), 700);
console.log("alice:", await a, "bob:", await b); // alice: cancelled bob: done
await relay.close();

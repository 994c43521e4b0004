// Shared set-up of the pkg-tests: an SDK Client (optionally through guardTransport) wired
// to a peer over the SDK's InMemoryTransport, with a wire tap on each side.
import { setTimeout as sleep } from "node:timers/promises";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { guardTransport } from "mcp-cancel";

import { spawnEverything } from "../demo/everything.mjs";
import { tap } from "../demo/wiretap.mjs";

export { sleep };

/**
 * Connects an SDK Client to `serverSide(transport)` (which must connect or drive the
 * server end itself).
 *
 * @returns {Promise<{ client, transport, clientWire: any[], serverWire: any[], errors: Error[], events: any[] }>}
 *   `clientWire`: records on the client's wire (below the guard); `serverWire`: what the
 *   server end sent and received; `errors`: everything `client.onerror` got; `events`: the
 *   guard's onEvent events.
 */
export async function connect({ guard, guardOptions, serverSide, clientInfo, clientOptions, connectOptions, clientWire = [], serverWire = [], Client: ClientClass = Client }) {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const errors = [];
  const events = []; // cancellation events (the session's own, e.g. revision-negotiated, go to sessionEvents)
  const sessionEvents = [];
  const wireSide = tap(clientEnd, clientWire);
  const onEvent = (e) => (e.direction === "session" ? sessionEvents : events).push(e);
  const transport = guard ? guardTransport(wireSide, { onEvent, ...guardOptions }) : wireSide;
  await serverSide(tap(serverEnd, serverWire));
  const client = new ClientClass(clientInfo ?? { name: "pkg-tests", version: "0.0.0" }, clientOptions);
  client.onerror = (error) => errors.push(error);
  await client.connect(transport, connectOptions);
  return { client, transport, clientWire, serverWire, errors, events, sessionEvents };
}

/** Messages of a wire log, by direction. */
export function messages(log, dir) {
  return log.filter((r) => r.dir === dir).map((r) => r.message);
}

export const cancels = (log, dir) => messages(log, dir).filter((m) => m.method === "notifications/cancelled");

/** Waits until `pred()` is true (polling every 10 ms), or fails after `ms`. */
export async function until(pred, ms = 5000, what = "condition") {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * A raw MCP peer on a transport: answers `initialize` (unless `answerInitialize` is false)
 * and hands every other message to `onMessage(message, send)`.
 */
export function rawPeer(transport, { answerInitialize = true, protocolVersion = "2025-06-18", onMessage = () => {} } = {}) {
  const send = (m) => transport.send({ jsonrpc: "2.0", ...m });
  transport.onmessage = (message) => {
    if (message.method === "initialize") {
      if (answerInitialize) {
        send({
          id: message.id,
          result: { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "raw-peer", version: "0.0.0" } },
        });
      }
      return;
    }
    onMessage(message, send);
  };
  return transport.start();
}

/**
 * An SDK 1.x Client through guardTransport to a freshly spawned server-everything over stdio.
 * `wireLog` records the wire below the guard, `events` the guard's onEvent, `errors`
 * everything `client.onerror` got.
 */
export async function connectEverything(clientOptions) {
  const wireLog = [];
  const errors = [];
  const events = [];
  const transport = guardTransport(tap(spawnEverything(), wireLog), { onEvent: (e) => events.push(e) });
  const client = new Client({ name: "pkg-tests", version: "0.0.0" }, clientOptions);
  client.onerror = (e) => errors.push(e);
  await client.connect(transport, { timeout: 20000 });
  return { client, wireLog, errors, events };
}

/**
 * For a scripted wire (`wire.onmessage` its receiver): when `message` is an `initialize`
 * request, the server's answer (revision 2025-06-18, tools), delivered in a microtask.
 */
export function answerInitialize(wire, message, serverName) {
  if (message.method !== "initialize") return;
  queueMicrotask(() =>
    wire.onmessage?.({
      jsonrpc: "2.0",
      id: message.id,
      result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: serverName, version: "0" } },
    }),
  );
}

// Where guardTransport's cost in a round trip comes from (BENCHMARKS.md "Where the floors
// are", scenario 4): several SDK 1.x Client → InMemoryTransport → McpServer connections in
// one process, each with a different wrapper around the client's transport, timed in
// alternating blocks of 500 sequential `tools/call` round trips. Prints the median µs per
// round trip of each and its difference to `plain`.
//
//   node bench/guard-parts.mjs [blocks per connection = 40] [kinds, comma-separated]
//
// kinds: plain (no wrapper), forward (a do-nothing forwarding wrapper), getters (forward +
// two calls of a do-nothing wasm getter per response), session (forward + the session's
// beforeSend/filterIncoming, what the guard does), proxied (forward inside a Proxy like the
// guard's), guard (guardTransport itself). Fewer kinds per run disturb each other less.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import { CancellationSession, guardTransport } from "mcp-cancel";

import { median, roundTrips } from "./sdk.mjs";

const RESULT = "x".repeat(100);
const BLOCK = 500;

/** A forwarding wrapper; `onSend(message)` → message to send or undefined, `onMessage` alike. */
function forward(inner, { onSend = (m) => m, onMessage = (m) => m, setVersion = () => {} } = {}) {
  const self = {
    onmessage: undefined,
    onclose: undefined,
    onerror: undefined,
    start: (...args) => inner.start(...args),
    async send(message, options) {
      const out = onSend(message, options);
      if (out !== undefined) await inner.send(out, options);
    },
    close: (...args) => inner.close(...args),
    setProtocolVersion(version) {
      setVersion(version);
      inner.setProtocolVersion?.(version);
    },
  };
  inner.onmessage = (message, extra) => {
    const kept = onMessage(message);
    if (kept !== undefined) self.onmessage?.(kept, extra);
  };
  inner.onclose = () => self.onclose?.();
  inner.onerror = (error) => self.onerror?.(error);
  return self;
}

const OWN = new Set(["start", "send", "close", "setProtocolVersion", "onmessage", "onclose", "onerror"]);

const kinds = {
  plain: (t) => t,
  forward: (t) => forward(t),
  getters: (t) => {
    const session = new CancellationSession();
    return forward(t, {
      onMessage: (m) => {
        session.inFlightCount;
        session.inFlightCount;
        return m;
      },
    });
  },
  session: (t) => {
    const session = new CancellationSession({ send: (m) => t.send(m) });
    return forward(t, {
      onSend: (m, o) => session.beforeSend(m, o),
      onMessage: (m) => session.filterIncoming(m),
      setVersion: (v) => session.setProtocolVersion(v),
    });
  },
  proxied: (t) =>
    new Proxy(forward(t), {
      get(target, prop) {
        if (OWN.has(prop)) return target[prop];
        const value = Reflect.get(t, prop);
        return typeof value === "function" ? value.bind(t) : value;
      },
      set(target, prop, value) {
        if (OWN.has(prop)) target[prop] = value;
        else Reflect.set(t, prop, value);
        return true;
      },
    }),
  guard: (t) => guardTransport(t),
};

const blocks = Number(process.argv[2] ?? 40);
const chosen = (process.argv[3] ?? "plain,forward,session,guard").split(",");
for (const k of chosen) {
  if (!(k in kinds)) {
    console.error(`bench/guard-parts.mjs: unknown kind ${k} (${Object.keys(kinds).join(", ")})`);
    process.exit(2);
  }
}

const clients = {};
for (const k of chosen) {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const server = new McpServer({ name: "bench", version: "0.0.0" });
  server.registerTool("echo", {}, async () => ({ content: [{ type: "text", text: RESULT }] }));
  await server.connect(serverEnd);
  const client = new Client({ name: "bench", version: "0.0.0" });
  await client.connect(kinds[k](clientEnd));
  clients[k] = client;
}
// Warm-up, until every path runs optimized code.
for (let i = 0; i < 3; i++) for (const k of chosen) await roundTrips(clients[k], 2000);
const times = Object.fromEntries(chosen.map((k) => [k, []]));
for (let b = 0; b < blocks; b++) {
  // Alternate the order: neither end of the list always goes first.
  for (const k of b % 2 ? [...chosen].reverse() : chosen) times[k].push(await roundTrips(clients[k], BLOCK));
}
const base = chosen.includes("plain") ? median(times.plain) : undefined;
for (const k of chosen) {
  const us = median(times[k]);
  const diff = base === undefined ? "" : ` ${(((us - base) / base) * 100).toFixed(1).padStart(6)}% vs plain`;
  console.log(`${k.padEnd(8)} ${us.toFixed(2).padStart(7)} µs per round trip${diff}`);
}
for (const client of Object.values(clients)) await client.close();

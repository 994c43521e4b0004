// Scenario 4: guardTransport's overhead on real SDK traffic. An SDK 1.x Client calls
// `tools/call` on an in-process McpServer over the SDK's InMemoryTransport, sequentially,
// with and without the guard (runs alternate, so drift hits both alike), with a 100-byte
// and a 1 MB tool result. Then the guard's own work per round trip (beforeSend of the
// request + shouldDropIncoming of the response) is timed alone with tinybench, at both result sizes;
// and the guard around a do-nothing transport, with requests built as the SDK 1.x builds them
// and as object literals (`guardParts`).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Bench } from "tinybench";

import { CancellationSession, guardTransport } from "mcp-cancel";

const SMALL = "x".repeat(100);
const LARGE = "x".repeat(1024 * 1024);

async function connect(guard, payload) {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const server = new McpServer({ name: "bench", version: "0.0.0" });
  server.registerTool("echo", {}, async () => ({ content: [{ type: "text", text: payload }] }));
  await server.connect(serverEnd);
  const client = new Client({ name: "bench", version: "0.0.0" });
  await client.connect(guard ? guardTransport(clientEnd) : clientEnd);
  return { client, close: () => client.close() };
}

/** µs per `tools/call` round trip of `client` over `n` sequential calls. */
export async function roundTrips(client, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const result = await client.callTool({ name: "echo", arguments: {} });
    if (result.content.length !== 1) throw new Error("bench self-check failed: tool result");
  }
  return ((performance.now() - t0) * 1000) / n; // µs per call
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * µs per round trip, plain and guarded, at one result size: `calls` round trips on each
 * connection per round after 6 000 of warm-up, in blocks of 500 in ABBA/BAAB order (so a
 * drift over time hits both alike); the median block of all rounds.
 */
async function pair(payload, calls, rounds) {
  const plain = [];
  const guarded = [];
  const conns = { plain: await connect(false, payload), guarded: await connect(true, payload) };
  // Warm-up, until both paths run optimized code (wasm tiers up from Liftoff too).
  for (let i = 0; i < 3; i++) {
    await roundTrips(conns.guarded.client, 2000);
    await roundTrips(conns.plain.client, 2000);
  }
  const block = 500;
  const [a, b] = [["plain", plain], ["guarded", guarded]];
  for (let r = 0; r < rounds; r++) {
    for (let done = 0; done < calls; done += 2 * block) {
      // ABBA, then BAAB: neither connection always goes first.
      const [x, y] = (done / (2 * block)) % 2 ? [b, a] : [a, b];
      x[1].push(await roundTrips(conns[x[0]].client, block));
      y[1].push(await roundTrips(conns[y[0]].client, block));
      y[1].push(await roundTrips(conns[y[0]].client, block));
      x[1].push(await roundTrips(conns[x[0]].client, block));
    }
  }
  await conns.plain.close();
  await conns.guarded.close();
  const p = median(plain);
  const g = median(guarded);
  return { plainUs: p, guardedUs: g, overheadUs: g - p, overheadPct: ((g - p) / p) * 100, blocks: plain.length };
}

/**
 * The guard's own per-round-trip work (ns): session.beforeSend(request) +
 * session.shouldDropIncoming(response), at both result sizes; five rounds in alternating order,
 * the median of each size's five medians.
 */
async function guardWork() {
  const BATCH = 100;
  const runs = { "100 B": [], "1 MB": [] };
  for (let round = 0; round < 5; round++) {
    const bench = new Bench({ time: 500, warmupTime: 150 });
    const order = round % 2 ? [["1 MB", LARGE], ["100 B", SMALL]] : [["100 B", SMALL], ["1 MB", LARGE]];
    for (const [size, text] of order) {
      const session = new CancellationSession();
      const responses = Array.from({ length: 64 }, (_, i) => ({ jsonrpc: "2.0", id: i, result: { content: [{ type: "text", text }] } }));
      let id = 0;
      bench.add(size, () => {
        for (let i = 0; i < BATCH; i++) {
          const n = id++ % 64;
          session.beforeSend({ jsonrpc: "2.0", id: n, method: "tools/call", params: { name: "echo", arguments: {} } });
          if (session.shouldDropIncoming(responses[n])) throw new Error("bench self-check failed: guard delivers");
        }
      });
    }
    await bench.run();
    for (const t of bench.tasks) runs[t.name].push((t.result.latency.p50 * 1e6) / BATCH);
  }
  return { "100 B": median(runs["100 B"]), "1 MB": median(runs["1 MB"]) };
}

/**
 * The request `tools/call` message `id` as the SDK 1.x's `Protocol.request` builds it
 * (`{ ...request, jsonrpc: "2.0", id }`): in Node 20 each such object gets a hidden class of
 * its own, so the first read of each of its members misses V8's caches.
 */
const sdkRequest = (id) => {
  const request = { method: "tools/call", params: { name: "echo", arguments: {} } };
  return { ...request, jsonrpc: "2.0", id };
};
/** The same message as one object literal (one hidden class for all). */
const literalRequest = (id) => ({ method: "tools/call", params: { name: "echo", arguments: {} }, jsonrpc: "2.0", id });

/**
 * Where the guard's time goes, around a transport whose `send` does nothing (no SDK): ns per
 * round trip (a request sent, its response received) over a bare transport, inside an
 * `async` forwarding wrapper in a `Proxy` (the guard's shape, no session), and through
 * `guardTransport`; each with requests built as the SDK 1.x builds them and as object
 * literals. Best of 7 rounds of 100 000, the variants interleaved.
 */
async function guardParts() {
  const N = 100_000;
  const inner = () => ({ async send() {}, async start() {}, async close() {}, onmessage: undefined });
  const variants = {
    bare: () => {
      const t = inner();
      return { send: (m, o) => t.send(m, o), receive: () => {} };
    },
    wrapper: () => {
      const t = inner();
      const own = {
        async send(m, o) {
          await t.send(m, o);
        },
      };
      const proxy = new Proxy(own, { get: (target, prop) => (prop in target ? target[prop] : Reflect.get(t, prop)) });
      return { send: (m, o) => proxy.send(m, o), receive: () => {} };
    },
    guard: () => {
      const t = inner();
      const guarded = guardTransport(t);
      guarded.onmessage = () => {};
      return { send: (m, o) => guarded.send(m, o), receive: (r) => t.onmessage(r) };
    },
  };
  const best = {};
  const runs = [];
  for (const [shape, make] of [["sdk", sdkRequest], ["literal", literalRequest]]) {
    for (const [name, build] of Object.entries(variants)) runs.push({ key: `${shape}|${name}`, make, v: build() });
  }
  for (let round = 0; round < 7; round++) {
    for (const { key, make, v } of runs) {
      const t0 = performance.now();
      for (let i = 0; i < N; i++) {
        await v.send(make(i), { relatedRequestId: undefined });
        v.receive({ jsonrpc: "2.0", id: i, result: {} });
      }
      best[key] = Math.min(best[key] ?? Infinity, ((performance.now() - t0) * 1e6) / N);
    }
  }
  const of = (shape) => ({
    bareNs: best[`${shape}|bare`],
    wrapperNs: best[`${shape}|wrapper`] - best[`${shape}|bare`],
    guardNs: best[`${shape}|guard`] - best[`${shape}|bare`],
  });
  return { sdk: of("sdk"), literal: of("literal") };
}

export async function runSdk({ calls = 10_000, rounds = 3, log = console.log } = {}) {
  const small = await pair(SMALL, calls, rounds);
  log(`  4   100 B result: ${small.plainUs.toFixed(1)} µs/call plain, ${small.guardedUs.toFixed(1)} µs/call guarded: ${small.overheadPct.toFixed(1)}%`);
  const large = await pair(LARGE, calls, rounds);
  log(`  4   1 MB result:  ${large.plainUs.toFixed(1)} µs/call plain, ${large.guardedUs.toFixed(1)} µs/call guarded: ${large.overheadPct.toFixed(1)}%`);
  const work = await guardWork();
  log(`  4   the guard's own work per round trip: ${work["100 B"].toFixed(0)} ns (100 B result), ${work["1 MB"].toFixed(0)} ns (1 MB result)`);
  const parts = await guardParts();
  for (const [shape, p] of Object.entries(parts)) {
    log(`  4   around a do-nothing transport, ${shape} requests: bare ${p.bareNs.toFixed(0)} ns, +${p.wrapperNs.toFixed(0)} ns async wrapper in a Proxy, +${p.guardNs.toFixed(0)} ns guardTransport`);
  }
  return { calls, rounds, small, large, guardNs: { small: work["100 B"], large: work["1 MB"] }, parts };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runSdk({ calls: Number(process.argv[2] ?? 10_000) });
}

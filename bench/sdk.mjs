// Scenario 4: guardTransport's overhead on real SDK traffic. An SDK 1.x Client calls
// `tools/call` on an in-process McpServer over the SDK's InMemoryTransport, sequentially,
// with and without the guard (runs alternate, so drift hits both alike), with a 100-byte
// and a 1 MB tool result. Then the guard's own work per round trip (beforeSend of the
// request + shouldDropIncoming of the response) is timed alone with tinybench, at both result sizes.
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

export async function runSdk({ calls = 10_000, rounds = 3, log = console.log } = {}) {
  const small = await pair(SMALL, calls, rounds);
  log(`  4   100 B result: ${small.plainUs.toFixed(1)} µs/call plain, ${small.guardedUs.toFixed(1)} µs/call guarded: ${small.overheadPct.toFixed(1)}%`);
  const large = await pair(LARGE, calls, rounds);
  log(`  4   1 MB result:  ${large.plainUs.toFixed(1)} µs/call plain, ${large.guardedUs.toFixed(1)} µs/call guarded: ${large.overheadPct.toFixed(1)}%`);
  const work = await guardWork();
  log(`  4   the guard's own work per round trip: ${work["100 B"].toFixed(0)} ns (100 B result), ${work["1 MB"].toFixed(0)} ns (1 MB result)`);
  return { calls, rounds, small, large, guardNs: { small: work["100 B"], large: work["1 MB"] } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runSdk({ calls: Number(process.argv[2] ?? 10_000) });
}

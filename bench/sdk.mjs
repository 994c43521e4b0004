// Scenario 4: guardTransport's overhead (the bound: the guard's added time around a
// do-nothing forwarding transport ≤ 2% of an SDK 1.x round trip). Every comparison is paired:
// the guarded and the unguarded way run in the same process, in alternating batches, round
// after round, and what is reported is the median of the per-round differences / ratios with
// its spread (the 95% confidence interval of that median, and the interquartile range of the
// rounds). Two separately timed loops cannot resolve ~1% on a shared machine: their
// difference moves by several percent between runs of the same build.
//
// (i)  `forwarding()`: around a transport whose `send` does nothing, a round trip (a request
//      sent, its response received) bare, through an `async` forwarding wrapper in a `Proxy`
//      (the guard's shape without a session), and through `guardTransport`; with literal
//      JSON-RPC requests and responses (the budget row) and with requests built as the SDK
//      1.x builds them (`{ ...request, jsonrpc: "2.0", id }`).
// (ii) `sdkPairs()`: an SDK 1.x Client calls `tools/call` on an in-process McpServer over the
//      SDK's InMemoryTransport, sequentially, one connection plain and one through the guard,
//      with a 100-byte and a 1 MB tool result.
// (iii) `guardWork()`: the session's calls alone (beforeSend of the request +
//      shouldDropIncoming of the response) with tinybench, at both result sizes.
//
//   node bench/sdk.mjs [--quick] [--aa] [--json]   (--aa: both SDK connections plain, to
//   check the method: expect 0%; --json: the result on the last line)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { PerformanceObserver, performance } from "node:perf_hooks";
import os from "node:os";
import v8 from "node:v8";

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
 * The median of `xs` with its spread: `ci` the distribution-free 95% confidence interval of
 * the median (order statistics n/2 ∓ 0.98·√n), `iqr` the 25th and 75th percentiles.
 */
export function spread(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  const at = (i) => s[Math.min(n - 1, Math.max(0, i))];
  const half = 0.98 * Math.sqrt(n);
  return {
    median: median(s),
    ci: [at(Math.floor(n / 2 - half)), at(Math.ceil(n / 2 + half) - 1)],
    iqr: [at(Math.round(0.25 * (n - 1))), at(Math.round(0.75 * (n - 1)))],
    n,
  };
}

/** Literal JSON-RPC messages: one object shape for all. */
const literalRequest = (id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: {} } });
/**
 * The request as the SDK 1.x's `Protocol.request` builds it (`{ ...request, jsonrpc: "2.0",
 * id }`): in Node 20 each such object gets a hidden class of its own, so the first read of
 * each of its members misses V8's caches.
 */
const sdkRequest = (id) => {
  const request = { method: "tools/call", params: { name: "echo", arguments: {} } };
  return { ...request, jsonrpc: "2.0", id };
};

/** A transport that does nothing: `send` resolves at once, nothing ever arrives. */
const doNothing = () => ({ async send() {}, async start() {}, async close() {}, onmessage: undefined });

/** The three ways around a do-nothing transport: `send(request)`, then `receive(response)`. */
const WAYS = {
  bare: () => {
    const t = doNothing();
    return { send: (m, o) => t.send(m, o), receive: () => {} };
  },
  wrapper: () => {
    const t = doNothing();
    const own = {
      async send(m, o) {
        await t.send(m, o);
      },
    };
    const proxy = new Proxy(own, { get: (target, prop) => (prop in target ? target[prop] : Reflect.get(t, prop)) });
    return { send: (m, o) => proxy.send(m, o), receive: () => {} };
  },
  guard: () => {
    const t = doNothing();
    const guarded = guardTransport(t);
    let delivered = 0;
    guarded.onmessage = () => void delivered++;
    return { send: (m, o) => guarded.send(m, o), receive: (r) => t.onmessage(r), delivered: () => delivered };
  },
};

/**
 * (i) ns per round trip around a do-nothing transport: each round times a batch of `batch`
 * round trips of every way × request shape, in an order that rotates from round to round;
 * `rounds` rounds after `warmup` discarded ones. Per round and shape: the guard's and the
 * wrapper's added ns over bare, and guard / bare. Ids only grow, as an SDK client's do.
 */
export async function forwarding({ rounds = 400, warmup = 30, batch = 2000 } = {}) {
  const runs = [];
  for (const [shape, make] of [["literal", literalRequest], ["sdk", sdkRequest]]) {
    for (const [way, build] of Object.entries(WAYS)) runs.push({ shape, way, make, v: build(), next: 0, ns: [] });
  }
  const options = { relatedRequestId: undefined };
  for (let round = 0; round < warmup + rounds; round++) {
    // Rotate and alternate the order: no way always runs first or right after another.
    const k = round % runs.length;
    const order = [...runs.slice(k), ...runs.slice(0, k)];
    if (round % 2) order.reverse();
    for (const r of order) {
      const { v, make } = r;
      let id = r.next;
      const t0 = performance.now();
      for (let i = 0; i < batch; i++, id++) {
        await v.send(make(id), options);
        v.receive({ jsonrpc: "2.0", id, result: {} });
      }
      const ns = ((performance.now() - t0) * 1e6) / batch;
      r.next = id;
      if (round >= warmup) r.ns.push(ns);
    }
  }
  for (const r of runs) {
    if (r.way === "guard" && r.v.delivered() !== r.next) throw new Error("bench self-check failed: the guard dropped a response");
  }
  const of = (shape) => {
    const [bare, wrapper, guard] = ["bare", "wrapper", "guard"].map((w) => runs.find((r) => r.shape === shape && r.way === w).ns);
    return {
      bareNs: median(bare),
      wrapperNs: spread(wrapper.map((x, i) => x - bare[i])),
      guardNs: spread(guard.map((x, i) => x - bare[i])),
      guardRatio: spread(guard.map((x, i) => x / bare[i])),
    };
  };
  return { rounds, batch, literal: of("literal"), sdk: of("sdk") };
}

/** Resamples `rounds` (with replacement) `times` times: the 2.5th and 97.5th percentiles of `stat`. */
function bootstrap(rounds, stat, times = 2000) {
  let seed = 0x2545f491;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const out = [];
  for (let k = 0; k < times; k++) {
    const sample = Array.from(rounds, () => rounds[Math.floor(rand() * rounds.length)]);
    out.push(stat(sample));
  }
  out.sort((a, b) => a - b);
  return [out[Math.floor(0.025 * times)], out[Math.floor(0.975 * times)]];
}

/**
 * (ii) µs per SDK round trip, plain and guarded, at one result size: after 6 000 warm-up
 * calls each, `rounds` rounds of four blocks of `block` sequential calls, ABBA then BAAB.
 *
 * V8's young-generation collections here are few and long (one every ~700 calls, 2-5 ms
 * each: the SDK keeps enough alive per call that each scavenge copies megabytes), so a
 * block's time is bimodal (with a collection in it or not) and the median of blocks is
 * mostly "no collection". So each block's collection time (PerformanceObserver "gc" entries
 * inside the block) is taken out, and the rest (the code's own time) is compared per round;
 * what each way allocates (V8's used heap across blocks without a collection) is reported
 * beside it; and the whole cost, collections included, as the ratio of the two ways' total
 * times, with a bootstrap interval over rounds.
 */
async function sdkPair(payload, { rounds, block, aa = false }) {
  // `aa`: both connections plain (an A/A check of the method itself: expect 0%).
  const conns = { plain: await connect(false, payload), guarded: await connect(!aa, payload) };
  for (let i = 0; i < 3; i++) {
    await roundTrips(conns.guarded.client, 2000);
    await roundTrips(conns.plain.client, 2000);
  }
  const gcs = [];
  const observer = new PerformanceObserver((list) => gcs.push(...list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  const blocks = [];
  const timed = async (way) => {
    const heap0 = v8.getHeapStatistics().used_heap_size;
    const t0 = performance.now();
    await roundTrips(conns[way].client, block);
    const t1 = performance.now();
    blocks.push({ way, t0, t1, heap: v8.getHeapStatistics().used_heap_size - heap0, gc: 0, round: Math.floor(blocks.length / 4) });
  };
  for (let r = 0; r < rounds; r++) {
    const [x, y] = r % 2 ? ["guarded", "plain"] : ["plain", "guarded"];
    await timed(x);
    await timed(y);
    await timed(y);
    await timed(x);
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
  gcs.push(...observer.takeRecords());
  observer.disconnect();
  await conns.plain.close();
  await conns.guarded.close();
  // Each collection to the block it started in (none starts between blocks but by chance).
  let gcOutside = 0;
  for (const e of gcs) {
    const b = blocks.find((b) => e.startTime >= b.t0 && e.startTime < b.t1);
    if (b) b.gc += e.duration;
    else gcOutside += e.duration;
  }
  const perRound = Array.from({ length: rounds }, () => ({ plain: { ms: 0, gc: 0 }, guarded: { ms: 0, gc: 0 } }));
  for (const b of blocks) {
    perRound[b.round][b.way].ms += b.t1 - b.t0;
    perRound[b.round][b.way].gc += b.gc;
  }
  const calls = 2 * block; // per way and round
  const us = (ms) => (ms * 1000) / calls;
  const cpu = (w) => w.ms - w.gc;
  const pct = (x) => (x - 1) * 100;
  const ratio = spread(perRound.map((r) => cpu(r.guarded) / cpu(r.plain)));
  const total = (rs, way, f) => rs.reduce((sum, r) => sum + f(r[way]), 0);
  const wholeRatio = (rs) => total(rs, "guarded", (w) => w.ms) / total(rs, "plain", (w) => w.ms);
  const bytes = (way) => median(blocks.filter((b) => b.way === way && b.gc === 0 && b.heap > 0).map((b) => b.heap / block));
  const gcMs = (way) => total(perRound, way, (w) => w.gc);
  return {
    rounds,
    block,
    // Without collections (the code's own time): medians of the blocks, and per round.
    plainUs: median(perRound.map((r) => us(cpu(r.plain)))),
    guardedUs: median(perRound.map((r) => us(cpu(r.guarded)))),
    overheadUs: spread(perRound.map((r) => us(cpu(r.guarded)) - us(cpu(r.plain)))),
    overhead: { median: pct(ratio.median), ci: ratio.ci.map(pct), iqr: ratio.iqr.map(pct), n: ratio.n },
    // What each way allocates per call, and its collections.
    bytesPerCall: { plain: bytes("plain"), guarded: bytes("guarded") },
    gc: { plainUsPerCall: (gcMs("plain") * 1000) / (rounds * calls), guardedUsPerCall: (gcMs("guarded") * 1000) / (rounds * calls), count: gcs.length, outsideMs: gcOutside },
    // Everything included: µs per call over all rounds, and the ratio of the totals.
    whole: {
      plainUs: (total(perRound, "plain", (w) => w.ms) * 1000) / (rounds * calls),
      guardedUs: (total(perRound, "guarded", (w) => w.ms) * 1000) / (rounds * calls),
      overheadPct: pct(wholeRatio(perRound)),
      ci: bootstrap(perRound, wholeRatio).map(pct),
    },
  };
}

/**
 * (iii) The guard's own per-round-trip work (ns): session.beforeSend(request) +
 * session.shouldDropIncoming(response), at both result sizes; five rounds in alternating
 * order, the median of each size's five medians.
 */
async function guardWork({ time = 500 } = {}) {
  const BATCH = 100;
  const runs = { "100 B": [], "1 MB": [] };
  for (let round = 0; round < 5; round++) {
    const bench = new Bench({ time, warmupTime: 150 });
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

const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
const range = ([a, b], f) => `${f(a)}…${f(b)}`;

export async function runSdk({ quick = false, aa = false, log = console.log } = {}) {
  const load = { start: os.loadavg()[0] };
  const fwd = await forwarding(quick ? { rounds: 100, warmup: 20 } : {});
  for (const [shape, p] of [["literal", fwd.literal], ["sdk-built", fwd.sdk]]) {
    log(
      `  4   do-nothing transport, ${shape} requests: bare ${p.bareNs.toFixed(0)} ns; +${p.wrapperNs.median.toFixed(0)} ns async wrapper in a Proxy; ` +
        `+${p.guardNs.median.toFixed(0)} ns guardTransport (95% CI ${range(p.guardNs.ci, (x) => x.toFixed(0))}, ${f2(p.guardRatio.median)}× bare) [${fwd.rounds} paired rounds of ${fwd.batch}]`,
    );
  }
  const sizes = quick ? { rounds: 60, block: 100, aa } : { rounds: 400, block: 100, aa };
  if (aa) log("  4   --aa: both SDK connections plain (the method's own bias, expect 0%)");
  const small = await sdkPair(SMALL, sizes);
  const large = await sdkPair(LARGE, sizes);
  for (const [label, s] of [["100 B", small], ["1 MB ", large]]) {
    log(
      `  4   SDK round trip, ${label} result, collections taken out: plain ${f1(s.plainUs)} µs, guarded ${f1(s.guardedUs)} µs; paired overhead ${f2(s.overhead.median)}% ` +
        `(95% CI ${range(s.overhead.ci, f2)}%, IQR ${range(s.overhead.iqr, f1)}%), +${s.overheadUs.median.toFixed(3)} µs [${s.rounds} rounds of 4×${s.block}]`,
    );
    log(
      `  4       allocated per call: plain ${s.bytesPerCall.plain.toFixed(0)} B, guarded ${s.bytesPerCall.guarded.toFixed(0)} B; collections ${f2(s.gc.plainUsPerCall)} / ${f2(s.gc.guardedUsPerCall)} µs per call (${s.gc.count}); ` +
        `all included: ${f1(s.whole.plainUs)} / ${f1(s.whole.guardedUs)} µs, ${f2(s.whole.overheadPct)}% (95% bootstrap ${range(s.whole.ci, f2)}%)`,
    );
  }
  // The budget row: the guard's whole cost around the do-nothing transport (literal
  // messages), as a share of the SDK's own 100 B round trip measured in this run: its mean,
  // collections included (what a round trip costs), and, stricter, without collections.
  const share = (ns, us) => (ns / (us * 1000)) * 100;
  const ns = fwd.literal.guardNs;
  const budget = {
    pct: share(ns.median, small.whole.plainUs),
    ci: ns.ci.map((x) => share(x, small.whole.plainUs)),
    ofUs: small.whole.plainUs,
    pctNoGc: share(ns.median, small.plainUs),
    ofUsNoGc: small.plainUs,
  };
  log(
    `  4   budget row: +${ns.median.toFixed(0)} ns of a ${f1(budget.ofUs)} µs SDK round trip = ${f2(budget.pct)}% (95% CI ${range(budget.ci, f2)}%); ` +
      `of ${f1(budget.ofUsNoGc)} µs without collections: ${f2(budget.pctNoGc)}%`,
  );
  const work = await guardWork(quick ? { time: 200 } : {});
  log(`  4   the guard's own work per round trip: ${work["100 B"].toFixed(0)} ns (100 B result), ${work["1 MB"].toFixed(0)} ns (1 MB result)`);
  load.end = os.loadavg()[0];
  return { method: "paired", aa, load, forwarding: fwd, small, large, budget, guardNs: { small: work["100 B"], large: work["1 MB"] } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runSdk({ quick: process.argv.includes("--quick"), aa: process.argv.includes("--aa") });
  if (process.argv.includes("--json")) console.log(JSON.stringify(r));
}

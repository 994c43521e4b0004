// Scenarios 1-3: mcp-cancel's CancellationSession and the pure-JS baselines side by side,
// in one process, paired (`paired`: blocks of each timed in turn, round after round). Each
// task function runs BATCH operations, so the timer's own cost is spread over many. What
// Node's objects cost alone (`runAttribution`): tinybench.

import { Bench } from "tinybench";

import { CancellationSession } from "mcp-cancel";

import { DELIVER, LATE, LeakFreePending, SdkStylePending } from "./baseline.mjs";
import { median } from "./sdk.mjs";

const BATCH = 100;
const RING = 4096;
const METHOD = "tools/call";

/** Ids of the measured requests (never those of the requests kept in flight). */
export function idSource(kind) {
  if (kind === "number") {
    let k = 0;
    return () => 1_000_000 + (k++ % RING);
  }
  const ring = Array.from({ length: RING }, (_, i) => `req-${i}`);
  let k = 0;
  return () => ring[k++ % RING];
}

/** The ids of the requests kept in flight (`i`, or `fill-i`). */
export const fillerId = (kind, i) => (kind === "number" ? i : `fill-${i}`);

const noop = () => {};

function check(ok, what) {
  if (!ok) throw new Error(`bench self-check failed: ${what}`);
}

/**
 * A JS baseline (`Pending`: SdkStylePending or LeakFreePending) with `inFlight - 1` requests
 * in flight, each with its own signal; `keep` holds their controllers.
 */
function pendingWithSignals(Pending, ids, inFlight) {
  const b = new Pending({ send: noop });
  const keep = [];
  for (let i = 0; i < inFlight - 1; i++) {
    const ac = new AbortController();
    keep.push(ac);
    b.track(fillerId(ids, i), METHOD, ac.signal);
  }
  return { b, keep };
}

/**
 * Scenario 1 (`abort` false: track → response) or 2 (`abort` true: track → abort → late
 * response) with a JS baseline (`Pending`: SdkStylePending or LeakFreePending).
 */
function signalScenarioJs(Pending, ids, inFlight, abort) {
  const { b, keep } = pendingWithSignals(Pending, ids, inFlight);
  const next = idSource(ids);
  return () => {
    for (let i = 0; i < BATCH; i++) {
      const id = next();
      const ac = new AbortController();
      b.track(id, METHOD, ac.signal);
      if (abort) ac.abort("user pressed stop");
      if (b.onResponse(id) !== (abort ? LATE : DELIVER)) check(false, abort ? "js drops the late response" : "js delivers");
    }
    return keep;
  };
}

/**
 * The cases of scenarios 1-3: { scenario, label, ids, inFlight, mcp(), js(), jsLeakFree()? }
 * with fresh state each (`jsLeakFree` for scenarios 1 and 2); `mcp()` uses `Session` (this
 * package's, or another build's for bench/ab.mjs).
 */
export function cases({ quick, Session = CancellationSession }) {
  const out = [];
  const flights1 = quick ? [1, 100] : [1, 100, 10_000];
  for (const ids of ["number", "string"]) {
    // 1. track (with the caller's AbortController and signal) → response delivered.
    for (const inFlight of flights1) {
      out.push({
        scenario: "1",
        label: "track → response (with signal)",
        ids,
        inFlight,
        mcp() {
          const s = new Session({ send: noop });
          const keep = [];
          for (let i = 0; i < inFlight - 1; i++) {
            const ac = new AbortController();
            keep.push(ac);
            s.track(fillerId(ids, i), METHOD, { signal: ac.signal });
          }
          const next = idSource(ids);
          return () => {
            for (let i = 0; i < BATCH; i++) {
              const id = next();
              const ac = new AbortController();
              s.track(id, METHOD, { signal: ac.signal });
              if (s.shouldDropResponse(id)) check(false, "mcp delivers");
            }
            return keep;
          };
        },
        js: () => signalScenarioJs(SdkStylePending, ids, inFlight, false),
        // The baseline that also removes its listener at the response (see LeakFreePending).
        jsLeakFree: () => signalScenarioJs(LeakFreePending, ids, inFlight, false),
      });
    }
    // 1b. track → response, no signal: what guardTransport does for each SDK request.
    for (const inFlight of flights1) {
      out.push({
        scenario: "1b",
        label: "track → response (no signal)",
        ids,
        inFlight,
        mcp() {
          const s = new Session({ send: noop });
          for (let i = 0; i < inFlight - 1; i++) s.track(fillerId(ids, i), METHOD);
          const next = idSource(ids);
          return () => {
            for (let i = 0; i < BATCH; i++) {
              const id = next();
              s.track(id, METHOD);
              if (s.shouldDropResponse(id)) check(false, "mcp delivers");
            }
          };
        },
        js() {
          const b = new SdkStylePending({ send: noop });
          for (let i = 0; i < inFlight - 1; i++) b.track(fillerId(ids, i), METHOD);
          const next = idSource(ids);
          return () => {
            for (let i = 0; i < BATCH; i++) {
              const id = next();
              b.track(id, METHOD);
              if (b.onResponse(id) !== DELIVER) check(false, "js delivers");
            }
          };
        },
      });
    }
    // 2. track → abort → notifications/cancelled sent → late response dropped.
    for (const inFlight of [1, 100]) {
      out.push({
        scenario: "2",
        label: "track → cancel → late response dropped",
        ids,
        inFlight,
        mcp() {
          const s = new Session({ send: noop });
          const keep = [];
          for (let i = 0; i < inFlight - 1; i++) {
            const ac = new AbortController();
            keep.push(ac);
            s.track(fillerId(ids, i), METHOD, { signal: ac.signal });
          }
          const next = idSource(ids);
          return () => {
            for (let i = 0; i < BATCH; i++) {
              const id = next();
              const ac = new AbortController();
              s.track(id, METHOD, { signal: ac.signal });
              ac.abort("user pressed stop");
              if (!s.shouldDropResponse(id)) check(false, "mcp drops the late response");
            }
            return keep;
          };
        },
        js: () => signalScenarioJs(SdkStylePending, ids, inFlight, true),
        // The baseline that also removes its listener when the signal aborts (see LeakFreePending).
        jsLeakFree: () => signalScenarioJs(LeakFreePending, ids, inFlight, true),
      });
    }
    // 3. peer's request → peer's cancel → its signal aborted → our response suppressed.
    for (const inFlight of [1, 100]) {
      out.push({
        scenario: "3",
        label: "inbound request → peer cancel → response suppressed",
        ids,
        inFlight,
        mcp() {
          const s = new Session({ send: noop });
          for (let i = 0; i < inFlight - 1; i++) s.shouldDropIncoming({ jsonrpc: "2.0", id: fillerId(ids, i), method: METHOD, params: {} });
          const next = idSource(ids);
          return () => {
            for (let i = 0; i < BATCH; i++) {
              const id = next();
              s.shouldDropIncoming({ jsonrpc: "2.0", id, method: METHOD, params: { name: "slow" } });
              const signal = s.inboundSignal(id);
              s.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "stop" } });
              if (!signal.aborted) check(false, "mcp aborts the signal");
              if (s.beforeSend({ jsonrpc: "2.0", id, result: {} }) !== undefined) check(false, "mcp suppresses");
            }
          };
        },
        js() {
          const b = new SdkStylePending({ send: noop });
          for (let i = 0; i < inFlight - 1; i++) b.onRequest(fillerId(ids, i));
          const next = idSource(ids);
          return () => {
            for (let i = 0; i < BATCH; i++) {
              const id = next();
              const request = { jsonrpc: "2.0", id, method: METHOD, params: { name: "slow" } };
              const signal = b.onRequest(request.id);
              const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "stop" } };
              b.onCancelled(cancel.params);
              if (!signal.aborted) check(false, "js aborts the signal");
              const response = { jsonrpc: "2.0", id, result: {} };
              if (b.beforeResponse(response.id)) check(false, "js suppresses");
            }
          };
        },
      });
    }
  }
  return out;
}

/**
 * Times `tasks` (name → a function that runs BATCH operations) paired: round after round,
 * each task times a block of batches (~`blockMs` ms, sized in its warm-up) in an order that
 * rotates and alternates from round to round, for `time` ms in all. The machine is shared
 * and its speed changes by up to 2× within a second, for all tasks at once: a ratio of two
 * blocks timed side by side keeps what they cost against each other, where two tasks timed
 * hundreds of ms apart may each catch another speed. A block's own garbage collections count
 * (what a caller pays).
 * @returns {{ ns: Record<string, number>, ratio: (a: string, b: string) => number }}
 *   each task's median ns per operation, the median of the per-round ratios of `a` to `b`
 */
export function paired(tasks, { time = 1500, warmup = 150, blockMs = 1 } = {}) {
  const names = Object.keys(tasks);
  const fns = names.map((n) => tasks[n]);
  const reps = fns.map((fn) => {
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < warmup) {
      fn();
      n++;
    }
    return Math.max(1, Math.round((blockMs * n) / warmup));
  });
  const ns = names.map(() => []);
  const end = performance.now() + time;
  for (let round = 0; round < 20 || performance.now() < end; round++) {
    const k = round % names.length;
    const order = [...names.keys()].map((i) => (i + k) % names.length);
    if (round % 2) order.reverse();
    for (const i of order) {
      const fn = fns[i];
      const t0 = performance.now();
      for (let r = 0; r < reps[i]; r++) fn();
      ns[i].push(((performance.now() - t0) * 1e6) / (reps[i] * BATCH));
    }
  }
  const at = (name) => ns[names.indexOf(name)];
  return {
    ns: Object.fromEntries(names.map((n, i) => [n, median(ns[i])])),
    ratio: (a, b) => median(at(a).map((x, r) => x / at(b)[r])),
  };
}

/**
 * Runs every case, mcp-cancel and the baselines paired ([`paired`]): each case's figures,
 * ns per operation (medians) and the ratios (medians of the per-round ratios).
 * @returns {Promise<Array<{scenario, label, ids, inFlight, mcpNs, jsNs, ratio, leakFreeNs?, leakFreeRatio?}>>}
 */
export async function runOps({ quick = false, time = 1500, log = console.log } = {}) {
  const list = cases({ quick });
  const measured = new Map();
  for (const c of list) {
    const tasks = { mcp: c.mcp(), js: c.js() };
    if (c.jsLeakFree) tasks.jsLeakFree = c.jsLeakFree();
    measured.set(c, paired(tasks, { time }));
  }
  const rows = list.map((c) => {
    const m = measured.get(c);
    const row = { scenario: c.scenario, label: c.label, ids: c.ids, inFlight: c.inFlight, mcpNs: m.ns.mcp, jsNs: m.ns.js, ratio: m.ratio("mcp", "js") };
    if (c.jsLeakFree) Object.assign(row, { leakFreeNs: m.ns.jsLeakFree, leakFreeRatio: m.ratio("mcp", "jsLeakFree") });
    return row;
  });
  for (const r of rows) {
    log(
      `  ${r.scenario.padEnd(3)} ${r.label.padEnd(52)} ${r.ids.padEnd(6)} ${String(r.inFlight).padStart(6)} in flight: ` +
        `mcp-cancel ${r.mcpNs.toFixed(0).padStart(6)} ns/op, JS ${r.jsNs.toFixed(0).padStart(6)} ns/op, ×${r.ratio.toFixed(2)}` +
        (r.leakFreeNs === undefined ? "" : `; leak-free JS ${r.leakFreeNs.toFixed(0)} ns/op, ×${r.leakFreeRatio.toFixed(2)}`),
    );
  }
  return rows;
}

/**
 * What the JS objects that mcp-cancel's API promises cost by themselves, ns each (median
 * of batches of 100): the AbortSignal `signal(id)` makes (on first ask), the abort listener
 * `track()` puts on the caller's signal and removes when the request settles, aborting a
 * signal, and the `AbortError` DOMException an inbound request's signal aborts with.
 */
export async function runAttribution({ time = 400 } = {}) {
  const bench = new Bench({ time, warmupTime: 150, iterations: 32 });
  const keep = new AbortController();
  const listener = () => {};
  bench
    .add("new AbortController() + .signal", () => {
      for (let i = 0; i < BATCH; i++) keep.last = new AbortController().signal;
    })
    .add("signal.addEventListener + removeEventListener", () => {
      for (let i = 0; i < BATCH; i++) {
        keep.signal.addEventListener("abort", listener);
        keep.signal.removeEventListener("abort", listener);
      }
    })
    .add("new AbortController() + .signal + abort(reason)", () => {
      for (let i = 0; i < BATCH; i++) {
        const ac = new AbortController();
        ac.signal;
        ac.abort("user pressed stop");
      }
    })
    .add('new DOMException(reason, "AbortError")', () => {
      for (let i = 0; i < BATCH; i++) keep.last = new DOMException("stop", "AbortError");
    });
  await bench.run();
  const out = {};
  for (const t of bench.tasks) out[t.name] = (t.result.latency.p50 * 1e6) / BATCH;
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runOps({ quick: process.argv.includes("--quick") });
}

// Memory: wasm linear memory per request in flight (grown to 100 000, slope of a least-
// squares line through 20 points), and memory under floods: 1 000 000 cancels for unknown
// ids and 1 000 000 late responses must leave it flat (tombstones bounded).
//
// Runs in a child process of its own (`node --expose-gc bench/memory.mjs`), one fresh
// module instance per measurement, and prints one JSON line. The package does not export
// its WebAssembly.Memory: the instance is caught as the glue creates it.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const RealInstance = WebAssembly.Instance;

/** A fresh instance of the package's Node build, with its linear memory. */
function freshModule() {
  let instance;
  WebAssembly.Instance = function (module, imports) {
    instance = new RealInstance(module, imports);
    return instance;
  };
  for (const key of Object.keys(require.cache)) {
    if (key.includes("/dist/node/")) delete require.cache[key];
  }
  // The API the entries share in a process (js/node/entry.js's API_KEY).
  delete globalThis[Symbol.for(`mcp-cancel ${fileURLToPath(new URL("../dist/node", import.meta.url))}`)];
  const pkg = require("../dist/node/index.cjs");
  WebAssembly.Instance = RealInstance;
  return { pkg, memory: instance.exports.memory };
}

function slope(points) {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return num / den;
}

/** Bytes of linear memory per request in flight, tracked with `track(id, method[, { signal }])`. */
function perRequest(ids, withSignal) {
  const { pkg, memory } = freshModule();
  // A request with a signal needs `send` (where its cancel would go).
  const session = new pkg.CancellationSession({ send: () => {} });
  const N = 100_000;
  const step = N / 20;
  const keep = [];
  const base = memory.buffer.byteLength;
  const points = [[0, base]];
  for (let i = 0; i < N; i++) {
    const id = ids === "number" ? i : `req-${i}`;
    if (withSignal) {
      const ac = new AbortController();
      keep.push(ac);
      session.track(id, "tools/call", { signal: ac.signal });
    } else {
      session.track(id, "tools/call");
    }
    if ((i + 1) % step === 0) points.push([i + 1, memory.buffer.byteLength]);
  }
  const total = memory.buffer.byteLength - base;
  return { ids, withSignal, requests: N, slopeBytes: slope(points), averageBytes: total / N, idBytes: ids === "number" ? 8 : "req-99999".length };
}

/** Linear memory before and after floods of unknown cancels and late responses. */
function floods() {
  const { pkg, memory } = freshModule();
  const send = () => {};
  const session = new pkg.CancellationSession({ send });
  const samples = [];
  const sample = (label) => {
    globalThis.gc?.();
    samples.push({ label, wasmBytes: memory.buffer.byteLength, jsHeapBytes: process.memoryUsage().heapUsed });
  };
  // Warm-up: fill the tombstones once (capacity 1024).
  for (let i = 0; i < 2048; i++) {
    session.track(i, "tools/call");
    session.cancel(i, "stop");
  }
  sample("after warm-up (tombstones full)");
  const M = 1_000_000;
  for (let i = 0; i < M; i++) {
    // Our cancel of an id that was never sent, and the peer's cancel of one it never sent.
    session.cancel(10_000_000 + i, "stop");
    session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 20_000_000 + i, reason: "stop" } });
    if ((i + 1) % 250_000 === 0) sample(`${i + 1} unknown cancels (ours and the peer's)`);
  }
  for (let i = 0; i < M; i++) {
    // A request cancelled, then its late response; and a response for an id never sent.
    const id = 30_000_000 + i;
    session.track(id, "tools/call");
    session.cancel(id, "stop");
    if (!session.shouldDropIncoming({ jsonrpc: "2.0", id, result: {} })) throw new Error("bench self-check failed: late response dropped");
    session.shouldDropIncoming({ jsonrpc: "2.0", id: 40_000_000 + i, result: {} });
    if ((i + 1) % 250_000 === 0) sample(`${i + 1} late and unknown responses`);
  }
  return { samples, tombstones: session.tombstoneCount, inFlight: session.inFlightCount };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const perRequestRows = [];
  for (const ids of ["number", "string"]) for (const withSignal of [false, true]) perRequestRows.push(perRequest(ids, withSignal));
  console.log(JSON.stringify({ perRequest: perRequestRows, floods: floods() }));
}

// A/B of two builds in one process: scenarios 1-3 of bench/ops.mjs with this checkout's
// package ("new"), another build's ("old") and the pure-JS baseline, each case's three
// tasks in one tinybench run, rounds repeated. On a shared, noisy machine this is the
// comparison to trust: whole `npm run bench` runs of the same build differ by more than
// most changes do.
//
//   git worktree add /tmp/old <rev> && (cd /tmp/old && npm install && bash scripts/build.sh)
//   node bench/ab.mjs /tmp/old            # after `bash scripts/build.sh` here
//   node bench/ab.mjs /tmp/old --quick    # fewer cases (no 10,000 in flight)
//   node bench/ab.mjs /tmp/old --quick --scenarios 1b,3 --rounds 10   # only those scenarios
//   node bench/ab.mjs /tmp/old --quick --scenarios 3 --stub-abort      # the bookkeeping alone
//
// `--stub-abort`: Node's `AbortController` replaced by a plain stand-in (StubController
// below) for the whole run, baseline included. Scenarios 1-3 spend most of their time in
// Node's `AbortController` and its `abort` event (~4 µs of scenario 3's ~4.8), which both
// builds pay alike and whose cost moves by ±5% between runs with the process's state: a
// change of 50 ns in what mcp-cancel itself does (JS and wasm) is lost in that. With the
// stand-in, what is left is the bookkeeping, and such a change shows.
// The figures are not the scenarios' (nothing is compared with the baseline's real cost).
//
// The other build is loaded from `<dir>/dist/node/index.cjs` (its Node entry, with its
// own .wasm). Prints, per case, ns per operation and the ratios new/old and each/baseline.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

import { Bench } from "tinybench";

import { cases } from "./ops.mjs";

const BATCH = 100;

const dir = process.argv[2];
if (!dir || dir.startsWith("--")) {
  console.error("usage: node bench/ab.mjs <directory of another build of mcp-cancel> [--quick] [--rounds N] [--scenarios 1,1b,2,3]");
  process.exit(2);
}
const entry = resolve(dir, "dist/node/index.cjs");
if (!existsSync(entry)) {
  console.error(`bench/ab.mjs: ${entry} does not exist (build that checkout with bash scripts/build.sh)`);
  process.exit(2);
}
const quick = process.argv.includes("--quick");
const roundsAt = process.argv.indexOf("--rounds");
const rounds = roundsAt > 0 ? Number(process.argv[roundsAt + 1]) : 3;
const scenariosAt = process.argv.indexOf("--scenarios");
const only = scenariosAt > 0 ? new Set(process.argv[scenariosAt + 1].split(",")) : undefined;

/** `--stub-abort`'s `AbortSignal`: the members the session and the scenarios use. */
class StubSignal {
  aborted = false;
  reason = undefined;
  listeners = [];
  addEventListener(type, listener) {
    if (type === "abort") this.listeners.push(listener);
  }
  removeEventListener(type, listener) {
    const i = this.listeners.indexOf(listener);
    if (type === "abort" && i >= 0) this.listeners.splice(i, 1);
  }
}
/** `--stub-abort`'s `AbortController`: `abort(reason)` calls each listener once, in order. */
class StubController {
  signal = new StubSignal();
  abort(reason) {
    const signal = this.signal;
    if (signal.aborted) return;
    signal.aborted = true;
    signal.reason = reason;
    const listeners = signal.listeners;
    signal.listeners = [];
    for (const listener of listeners) listener.call(signal, { type: "abort", target: signal });
  }
}
if (process.argv.includes("--stub-abort")) globalThis.AbortController = StubController;

const Old = createRequire(import.meta.url)(entry).CancellationSession;
// The same filter on both lists keeps their cases at the same indexes.
const chosen = (c) => only === undefined || only.has(c.scenario);
const mine = cases({ quick }).filter(chosen);
const theirs = cases({ quick, Session: Old }).filter(chosen);

const best = new Map();
const keep = (name, ns) => best.set(name, Math.min(best.get(name) ?? Infinity, ns));
for (let round = 0; round < rounds; round++) {
  for (const [i, c] of mine.entries()) {
    const key = `${c.scenario}|${c.ids}|${c.inFlight}`;
    const bench = new Bench({ time: 300, warmupTime: 150, iterations: 32 });
    // Alternate the order per round: whatever runs first in a Bench has a colder cache.
    const tasks = [
      [`${key}|new`, c.mcp()],
      [`${key}|old`, theirs[i].mcp()],
      [`${key}|js`, c.js()],
    ];
    for (const [name, fn] of round % 2 ? tasks.reverse() : tasks) bench.add(name, fn, { async: false });
    await bench.run();
    for (const task of bench.tasks) {
      if (task.result.state !== "completed") throw new Error(`${task.name}: ${task.result.state} ${task.result.error ?? ""}`);
      keep(task.name, (task.result.latency.p50 * 1e6) / BATCH);
    }
  }
}

const rows = mine.map((c) => {
  const key = `${c.scenario}|${c.ids}|${c.inFlight}`;
  const [nw, old, js] = ["new", "old", "js"].map((k) => best.get(`${key}|${k}`));
  return {
    scenario: c.scenario,
    ids: c.ids,
    "in flight": c.inFlight,
    "new ns": Math.round(nw),
    "old ns": Math.round(old),
    "js ns": Math.round(js),
    "new/old": (nw / old).toFixed(2),
    "new/js": (nw / js).toFixed(2),
    "old/js": (old / js).toFixed(2),
  };
});
console.table(rows);

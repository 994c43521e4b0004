// Scenario 1b (track → response, no signal) on the two floors and the package, in one process
// with tinybench: ../shared/floor (bench/fixtures/node_modules/floor: `Floor1b`, the floor of the
// speed rows) and bench/floor-rules (`Rules1b`: every rule of the session written for size, the
// floor of the `.wasm` row). Issue #24 judges a row that is not met against "a prototype of the
// floor for that row (at least as fast as ../shared/floor/)": this says whether the size row's
// floor is. BATCH operations per task, ids as bench/ops.mjs makes them, rounds alternated.
// `npm run bench` (bench/run.mjs) runs it and reports it beside the size row.
//
//   node bench/floors-1b.mjs [--rounds N]
import { fileURLToPath } from "node:url";

import { Bench } from "tinybench";

import { CancellationSession } from "../dist/node/index.mjs";
import { Floor1b } from "./fixtures/node_modules/floor/index.js";
import { Rules1b } from "./fixtures/node_modules/floor-scenarios/index.js";
import { fillerId, idSource } from "./ops.mjs";

const BATCH = 100;

/** A task: `make()` gives an object with track(id) and a response(id) that must deliver. */
function task(make, delivers, ids, inFlight) {
  const t = make();
  for (let i = 0; i < inFlight - 1; i++) t.track(fillerId(ids, i));
  const next = idSource(ids);
  return () => {
    for (let i = 0; i < BATCH; i++) {
      const id = next();
      t.track(id);
      if (!delivers(t.response(id))) throw new Error("not delivered");
    }
  };
}

const subjects = {
  "mcp-cancel": [
    () => {
      const s = new CancellationSession({ send: () => {} });
      return { track: (id) => s.track(id, "tools/call"), response: (id) => s.shouldDropResponse(id) };
    },
    (dropped) => dropped === false,
  ],
  "../shared/floor": [() => new Floor1b(), (v) => v === 0],
  "bench/floor-rules": [() => new Rules1b(), (v) => v === 0],
};

/**
 * Scenario 1b on the package and both floors: one row per kind of id and number in flight,
 * `{ ids, inFlight, ours, sharedFloor, rulesFloor }` in ns per track → response (the best of
 * `rounds` rounds).
 *
 * @param {{ rounds?: number }} [options]
 */
export async function floors1b({ rounds = 3 } = {}) {
  const best = new Map();
  for (let round = 0; round < rounds; round++) {
    for (const ids of ["number", "string"]) {
      for (const inFlight of [1, 100]) {
        const bench = new Bench({ time: 300, warmupTime: 150, iterations: 32 });
        const names = Object.keys(subjects);
        for (const name of round % 2 ? names.reverse() : names) {
          const [make, delivers] = subjects[name];
          bench.add(`${ids}|${inFlight}|${name}`, task(make, delivers, ids, inFlight));
        }
        await bench.run();
        for (const t of bench.tasks) {
          if (t.result.state !== "completed") throw new Error(`${t.name}: ${t.result.state} ${t.result.error ?? ""}`);
          const ns = (t.result.latency.p50 * 1e6) / BATCH;
          best.set(t.name, Math.min(best.get(t.name) ?? Infinity, ns));
        }
      }
    }
  }
  const rows = [];
  for (const ids of ["number", "string"]) {
    for (const inFlight of [1, 100]) {
      const ns = (name) => best.get(`${ids}|${inFlight}|${name}`);
      rows.push({ ids, inFlight, ours: ns("mcp-cancel"), sharedFloor: ns("../shared/floor"), rulesFloor: ns("bench/floor-rules") });
    }
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const roundsAt = process.argv.indexOf("--rounds");
  const rows = await floors1b({ rounds: roundsAt > 0 ? Number(process.argv[roundsAt + 1]) : 3 });
  console.table(
    rows.map((r) => ({
      ids: r.ids,
      "in flight": r.inFlight,
      "mcp-cancel ns": r.ours.toFixed(0),
      "shared/floor ns": r.sharedFloor.toFixed(0),
      "floor-rules ns": r.rulesFloor.toFixed(0),
      "floor-rules / shared/floor": (r.rulesFloor / r.sharedFloor).toFixed(2),
      "mcp-cancel / shared/floor": (r.ours / r.sharedFloor).toFixed(2),
    })),
  );
}

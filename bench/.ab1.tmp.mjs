import { createRequire } from "node:module";
import path from "node:path";
import { Bench } from "tinybench";
import { cases } from "./ops.mjs";
const BATCH = 100;
const dir = process.argv[2]; const only = process.argv[3].split(","); const rounds = Number(process.argv[4] ?? 6);
const Old = createRequire(import.meta.url)(path.resolve(dir, "dist/node/index.cjs")).CancellationSession;
const mine = cases({ quick: true }); const theirs = cases({ quick: true, Session: Old });
const best = new Map(); const keep = (n, v) => best.set(n, Math.min(best.get(n) ?? Infinity, v));
for (let r = 0; r < rounds; r++) for (const [i, c] of mine.entries()) {
  if (!only.includes(c.scenario)) continue;
  const key = `${c.scenario}|${c.ids}|${c.inFlight}`;
  const bench = new Bench({ time: 300, warmupTime: 150, iterations: 32 });
  const tasks = [[`${key}|new`, c.mcp()], [`${key}|old`, theirs[i].mcp()]];
  for (const [n, f] of r % 2 ? tasks.reverse() : tasks) bench.add(n, f);
  await bench.run();
  for (const t of bench.tasks) keep(t.name, (t.result.latency.p50 * 1e6) / BATCH);
}
for (const c of mine) { if (!only.includes(c.scenario)) continue; const k = `${c.scenario}|${c.ids}|${c.inFlight}`; const n = best.get(k + "|new"), o = best.get(k + "|old"); console.log(k.padEnd(16), Math.round(n), Math.round(o), (n / o).toFixed(2)); }

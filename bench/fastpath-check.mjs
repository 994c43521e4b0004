// Differential check of js/fast.js: the same random operations on the wasm class as built
// (every call takes the full path) and on the package's class (the fast paths), compared
// call by call: return values, thrown errors, messages handed to `send`, logger events and
// the state getters. `npm run bench` runs it first; `node bench/fastpath-check.mjs [runs]`
// alone. Exits non-zero on the first difference.
import { createRequire } from "node:module";

import { withFastPaths } from "../js/fast.js";

const require = createRequire(import.meta.url);
const wasm = require("../pkg/node/mcp_cancel.js");
const Full = wasm.CancellationSession;
const Fast = withFastPaths(wasm.CancellationSession);

/** mulberry32: a small seeded PRNG, so a failing run can be replayed by its seed. */
function rng(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const IDS = [0, 1, 2, 3, 7, -0, -5, "1", "a", "", "req-1", 2 ** 53 - 1, 2 ** 53, 1.5, NaN, null, undefined, true, {}, [1]];
const METHODS = ["tools/call", "initialize", "tasks/get", "tasks/cancel", "subscriptions/listen", "resources/read"];
const REASONS = [undefined, "user pressed stop", "", 5, null, new Error("boom"), "McpError: MCP error -32001: Request timed out"];

function describe(value) {
  if (value === undefined) return "undefined";
  if (typeof value === "boolean" || typeof value === "number") return String(value);
  if (value instanceof Error || (value && typeof value === "object" && "code" in value && "message" in value)) {
    return `error ${value.name} ${value.code} ${value.message}`;
  }
  if (value && typeof value === "object" && typeof value.aborted === "boolean") return `signal aborted=${value.aborted}`;
  return JSON.stringify(value);
}

function call(session, op) {
  try {
    return describe(op(session));
  } catch (error) {
    return `throws ${describe(error)}`;
  }
}

function run(seed, steps) {
  const random = rng(seed);
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  const logs = { full: [], fast: [] };
  const make = (Class, log) =>
    new Class({ send: (m) => log.push(`send ${JSON.stringify(m)}`), logger: (e) => log.push(`event ${JSON.stringify(e)}`), tombstoneCapacity: 4 });
  const full = make(Full, logs.full);
  const fast = make(Fast, logs.fast);
  // One AbortController per (session, slot): aborting slot k aborts both sessions' k-th signal.
  const controllers = { full: [], fast: [] };
  const version = pick([undefined, "2024-11-05", "2025-06-18", "2025-11-25", "2026-07-28"]);
  if (version) {
    full.setProtocolVersion(version);
    fast.setProtocolVersion(version);
  }
  for (let step = 0; step < steps; step++) {
    const id = pick(IDS);
    const method = pick(METHODS);
    const kind = Math.floor(random() * 12);
    const params = pick([undefined, {}, { _meta: { progressToken: pick(IDS) } }, { task: {} }, { taskId: "t1" }, { _meta: 5 }, [1], "x"]);
    const slot = controllers.full.length;
    let op;
    let name;
    switch (kind) {
      case 0:
      case 1: {
        const withSignal = random() < 0.6;
        if (withSignal) {
          controllers.full.push(new AbortController());
          controllers.fast.push(new AbortController());
        }
        const opts = pick([undefined, null, {}, { params }, { timeoutMs: 5 }, { resetTimeoutOnProgress: "x" }]);
        name = `track(${describe(id)}, ${method}, ${describe(opts)}${withSignal ? " + signal" : ""})`;
        op = (s) => {
          const side = s === full ? "full" : "fast";
          const o = withSignal ? { ...(opts ?? {}), signal: controllers[side][slot].signal } : opts;
          return s.track(id, method, o);
        };
        break;
      }
      case 2: {
        const result = pick([{}, { task: { taskId: "t1" } }, { taskId: "t1", status: "completed" }, { protocolVersion: "2025-11-25" }, { resultType: "task", taskId: "t2" }]);
        const message = pick([id, { jsonrpc: "2.0", id, result }, { jsonrpc: "2.0", id, error: { code: pick([-32602, -32603, 1.5]) } }]);
        name = `shouldDropResponse(${describe(message)})`;
        op = (s) => s.shouldDropResponse(message);
        break;
      }
      case 3:
        name = `shouldDropProgress(${describe(id)})`;
        op = (s) => s.shouldDropProgress(id);
        break;
      case 4: {
        const message = pick([
          { jsonrpc: "2.0", id, method, params },
          { jsonrpc: "2.0", id, result: {} },
          { jsonrpc: "2.0", method: "notifications/cancelled", params: pick([{ requestId: id, reason: pick(REASONS) }, { requestId: id }, {}, [id], "x", undefined]) },
          { jsonrpc: "2.0", method: "notifications/progress", params: pick([{ progressToken: id }, {}, undefined]) },
          { jsonrpc: "2.0", method: "notifications/tasks/status", params: { taskId: "t1", status: pick(["working", "completed"]) } },
          { jsonrpc: "2.0", method: "notifications/message", params: {} },
          { jsonrpc: "2.0" },
          5,
          null,
        ]);
        name = `receive(${describe(message)})`;
        op = (s) => s.receive(message);
        break;
      }
      case 5: {
        const message = pick([
          { jsonrpc: "2.0", id, method, params },
          { jsonrpc: "2.0", id, result: {} },
          { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: pick(REASONS) } },
          { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: id } },
          { jsonrpc: "2.0" },
          undefined,
        ]);
        name = `beforeSend(${describe(message)})`;
        op = (s) => s.beforeSend(message);
        break;
      }
      case 6: {
        const reason = pick(REASONS);
        name = `cancel(${describe(id)}, ${describe(reason)})`;
        op = (s) => s.cancel(id, reason);
        break;
      }
      case 7: {
        if (controllers.full.length === 0) continue;
        const k = Math.floor(random() * controllers.full.length);
        const reason = pick(REASONS);
        name = `abort signal #${k} with ${describe(reason)}`;
        op = (s) => controllers[s === full ? "full" : "fast"][k].abort(reason);
        break;
      }
      case 8:
        name = `inboundSignal(${describe(id)})`;
        op = (s) => s.inboundSignal(id);
        break;
      case 9:
        name = `isInFlight(${describe(id)})`;
        op = (s) => s.isInFlight(id);
        break;
      case 10: {
        const v = pick(["2025-06-18", "2025-11-25", "2026-07-28"]);
        name = `setProtocolVersion(${v})`;
        op = (s) => s.setProtocolVersion(v);
        break;
      }
      default: {
        const doClose = random() < 0.1;
        name = doClose ? "close()" : "nothing";
        op = (s) => (doClose ? s.close() : undefined);
        break;
      }
    }
    const before = { full: logs.full.length, fast: logs.fast.length };
    // Both sessions get the same random draws: op() must not consume randomness per side.
    const state = random();
    const a = call(full, op);
    const b = call(fast, op);
    const sideA = logs.full.slice(before.full).join("\n");
    const sideB = logs.fast.slice(before.fast).join("\n");
    const getters = (s) => `${s.inFlightCount}/${s.tombstoneCount}/${s.revision}`;
    if (a !== b || sideA !== sideB || getters(full) !== getters(fast)) {
      throw new Error(
        `fast path differs (seed ${seed}, step ${step}, ${name}; draw ${state}):\n` +
          `  full: ${a} [${getters(full)}]\n${sideA}\n  fast: ${b} [${getters(fast)}]\n${sideB}`,
      );
    }
  }
}

export function checkFastPaths({ runs = 300, steps = 200, log = console.log } = {}) {
  for (let seed = 1; seed <= runs; seed++) run(seed, steps);
  log(`  fast paths = full paths on ${runs} random sequences of ${steps} operations`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  checkFastPaths({ runs: Number(process.argv[2] ?? 300) });
}

// `npm run bench`: every benchmark of bench/, then the whole of BENCHMARKS.md (at most 300
// lines: it refuses to write more), bench/results.json (every figure measured) and
// bench/chart.svg.
//
//   node bench/run.mjs [--quick] [--no-criterion]
//   node bench/run.mjs --render    BENCHMARKS.md and bench/chart.svg again from bench/results.json,
//                                  measuring nothing (after an edit of the text below)
//
// Expects the package built (`npm run bench` runs scripts/setup.sh and scripts/build.sh
// first). Not part of `npm test`: the bounds are reported here, met or not, never asserted.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";

import { scenarioOneChart } from "./chart.mjs";
import { runAttribution, runOps } from "./ops.mjs";
import { runRelay } from "./relay.mjs";
import { runRemote } from "./remote.mjs";
import { runSdk } from "./sdk.mjs";
import { sizes, startup } from "./size.mjs";
import { wasmBytes } from "./wasm-bytes.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const render = process.argv.includes("--render");
const quickArg = process.argv.includes("--quick");
const withCriterion = !process.argv.includes("--no-criterion");
const MAX_LINES = 300;
const say = (s) => console.log(`\x1b[1m[bench]\x1b[0m ${s}`);
const started = Date.now();
/** Seconds each part took in this run (for "How to reproduce"). */
const partSeconds = {};
async function part(name, what, fn) {
  say(what);
  const t0 = Date.now();
  const result = await fn();
  partSeconds[name] = Math.round((Date.now() - t0) / 1000);
  return result;
}

const version = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { cwd: root, encoding: "utf8", env: { ...process.env, PATH: `${root}/node_modules/.bin:${os.homedir()}/.cargo/bin:${process.env.PATH}` } }).trim();
  } catch {
    return "unknown";
  }
};
const pkgVersion = (name) => JSON.parse(readFileSync(`${root}/node_modules/${name}/package.json`, "utf8")).version;
const lockVersion = (name) => readFileSync(`${root}/Cargo.lock`, "utf8").match(new RegExp(`name = "${name}"\\nversion = "([^"]+)"`))?.[1] ?? "unknown";

/** Every measurement of this run, as bench/results.json keeps them. */
async function measure() {
  const quick = quickArg;
  const machine = {
    cpu: os.cpus()[0]?.model ?? "unknown",
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    rustc: version("rustc", ["--version"]),
    wasmBindgen: version("wasm-bindgen", ["--version"]),
    wasmOpt: version("wasm-opt", ["--version"]),
    sdk: pkgVersion("@modelcontextprotocol/sdk"),
    mcpRemote: pkgVersion("mcp-remote"),
    tinybench: pkgVersion("tinybench"),
    criterion: lockVersion("criterion"),
    date: new Date().toISOString().slice(0, 10),
  };

  // ----- the measurements -----

  const ops = await part("ops", "scenarios 1-3: mcp-cancel and the JS baselines side by side, paired blocks", async () => {
    const rows = await runOps({ quick, time: quick ? 600 : 1500 });
    return { rows, attribution: await runAttribution({ time: quick ? 200 : 400 }) };
  });
  for (const [what, v] of Object.entries(ops.attribution)) console.log(`  alone: ${what}: ${v.toFixed(0)} ns`);

  const sdk = await part("sdk", "scenario 4: guardTransport around a do-nothing transport and on SDK round trips, paired rounds", () => runSdk({ quick }));

  const relay = await part("relay", "relay: one hop, a plain pipe or createRelay (InMemoryTransport, in-process McpServer)", () => runRelay({ calls: quick ? 2000 : 10_000, rounds: quick ? 1 : 3 }));
  console.log(`  plain pipe ${relay.pipeUs.toFixed(1)} µs, relay ${relay.relayUs.toFixed(1)} µs per round trip: +${relay.perMessageUs.toFixed(2)} µs per forwarded message`);

  const remote = await part("remote", "the bridge against mcp-remote; one bridge --stdio under load beside the SDK's transport (bench/remote.mjs)", () => runRemote({ quick, log: (line) => console.log(`  ${line}`) }));

  const childPerSession = await part("childPerSession", "bridge --stdio --child-per-session: sessions per second and memory per child (bench/child-per-session.mjs)", () => {
    const args = [`${root}/bench/child-per-session.mjs`, ...(quick ? ["--sessions", "10", "--hold", "4"] : [])];
    const r = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8", maxBuffer: 1 << 24 });
    if (r.status !== 0) throw new Error(`bench/child-per-session.mjs failed: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split("\n").pop());
  });

  const memory = await part("memory", "memory (node --expose-gc bench/memory.mjs)", () => {
    const r = spawnSync(process.execPath, ["--expose-gc", `${root}/bench/memory.mjs`], { cwd: root, encoding: "utf8", maxBuffer: 1 << 24 });
    if (r.status !== 0) throw new Error(`bench/memory.mjs failed: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split("\n").pop());
  });
  for (const r of memory.perRequest) console.log(`  ${r.ids} ids${r.withSignal ? ", with signal" : ""}: ${r.averageBytes.toFixed(1)} bytes per request`);

  const files = sizes();
  for (const f of files) console.log(`  ${f.path}: ${f.raw} bytes, ${f.gzip} gzip`);
  const bytes = await part("wasmBytes", "where the .wasm's bytes are (twiggy)", () => wasmBytes());
  if (bytes.missing) console.log(`  not measured: ${bytes.missing}`);
  const start = await part("startup", "start-up: import + first track(), against importing a one-line package", () => startup(20));
  console.log(`  +${start.overOneLineMs.toFixed(1)} ms whole processes, +${start.inside.overOneLineMs.toFixed(1)} ms in process (${start.pairs} pairs)`);

  let criterion = [];
  if (withCriterion) {
    await part("criterion", "criterion: the core alone, native (cargo bench --bench core)", () => {
      const args = ["bench", "--quiet", "--bench", "core", "--", "--warm-up-time", "0.5", "--measurement-time", quick ? "0.5" : "1", "--noplot"];
      const r = spawnSync("cargo", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PATH: `${os.homedir()}/.cargo/bin:${process.env.PATH}` } });
      if (r.status !== 0) throw new Error(`cargo bench failed: ${r.stderr}`);
    });
    criterion = readCriterion();
  }
  return { quick, machine, ops: ops.rows, attribution: ops.attribution, sdk, relay, remote, childPerSession, memory, files, wasmBytes: bytes, startup: start, criterion, took: partSeconds, seconds: Math.round((Date.now() - started) / 1000) };
}

function readCriterion() {
  const dir = `${root}/target/criterion`;
  if (!existsSync(dir)) return [];
  const out = [];
  for (const group of readdirSync(dir)) {
    if (!/^[123] /.test(group)) continue;
    for (const param of readdirSync(`${dir}/${group}`)) {
      const file = `${dir}/${group}/${param}/new/estimates.json`;
      if (!existsSync(file)) continue;
      const est = JSON.parse(readFileSync(file, "utf8"));
      out.push({ group, inFlight: Number(param), ns: est.median.point_estimate });
    }
  }
  return out.sort((a, b) => a.group.localeCompare(b.group) || a.inFlight - b.inFlight);
}

const measured = render ? JSON.parse(readFileSync(`${root}/bench/results.json`, "utf8")) : await measure();
const { quick, machine, sdk, relay, remote, childPerSession, memory, files, criterion, took } = measured;
const ops = { rows: measured.ops, attribution: measured.attribution };
const bytes = measured.wasmBytes;
const start = measured.startup;

// ----- the bounds: ratios within this run -----

const KB = 1024;
const ns = (v) => (v >= 10_000 ? `${(v / 1000).toFixed(1)} µs` : v >= 1000 ? `${(v / 1000).toFixed(2)} µs` : `${v.toFixed(0)} ns`);
const rows = ops.rows;
const row = (scenario, ids, inFlight) => rows.find((r) => r.scenario === scenario && r.ids === ids && r.inFlight === inFlight);
const FLIGHTS = [1, 100];
const x = (v) => `${v.toFixed(2)}×`;
/** A bound on a ratio of scenario rows, at 1 and 100 in flight. */
function ratioBound(what, limit, scenario, idKinds, key, why) {
  const cases = idKinds.flatMap((ids) => FLIGHTS.map((n) => ({ ids, n, v: row(scenario, ids, n)[key] })));
  const byIds = idKinds.map((ids) => `${idKinds.length > 1 ? `${ids} ids ` : ""}${cases.filter((c) => c.ids === ids).map((c) => x(c.v)).join(" / ")}`);
  const over = cases.filter((c) => !(c.v <= limit)).map((c) => `${x(c.v)} with ${c.ids} ids at ${c.n} in flight`);
  return { what, limit: `≤ ${limit.toFixed(1)}×`, value: `${byIds.join(", ")} (1 / 100 in flight)`, met: over.length === 0, over: over.join(", "), why };
}
/** Why scenario 1 can miss, with this run's figures: Node's share, and how far the baseline moves. */
function signalWhy() {
  const node = ops.attribution["new AbortController() + .signal"] + ops.attribution["signal.addEventListener + removeEventListener"];
  const leakFree = rows.filter((r) => r.scenario === "1").map((r) => r.leakFreeNs);
  return `Node's own \`AbortController\` and listener take about ${ns(node)} of each operation on both sides (the "alone" line under the scenarios table), so what is compared is the difference left beside them; the leak-free JS itself measures ${ns(Math.min(...leakFree))} to ${ns(Math.max(...leakFree))} across the cases of this run.`;
}
const wasmFile = files.find((f) => f.path.endsWith(".wasm"));
const beyondId = memory.perRequest.map((r) => ({ ...r, beyond: r.averageBytes - r.idBytes }));
const worstMemory = beyondId.reduce((a, b) => (b.beyond > a.beyond ? b : a));
const guardPct = sdk.budget.pctNoGc;
const bounds = [
  ratioBound("Scenario 1b (no signal), number ids, against the SDK-style JS", 0.8, "1b", ["number"], "ratio"),
  ratioBound("Scenario 1b (no signal), string ids, against the SDK-style JS", 1.5, "1b", ["string"], "ratio", "each call reads the id's characters to pack them into numbers for the wasm core, which hashes them; a JS `Map` reuses the hash V8 keeps on each string."),
  ratioBound("Scenario 1 (the caller's signal) against the leak-free JS", 1.0, "1", ["number", "string"], "leakFreeRatio", signalWhy()),
  {
    what: "`guardTransport` around a do-nothing transport, as a share of an SDK 1.x round trip",
    limit: "≤ 2%",
    value: `${guardPct.toFixed(2)}% (+${sdk.forwarding.literal.guardNs.median.toFixed(0)} ns of ${sdk.budget.ofUsNoGc.toFixed(1)} µs)`,
    met: guardPct <= 2,
  },
  { what: "The `.wasm`, gzip -9", limit: "≤ 30 KiB", value: `${(wasmFile.gzip / KB).toFixed(2)} KiB (${wasmFile.gzip.toLocaleString("en-US")} B)`, met: wasmFile.gzip <= 30 * KB },
  {
    what: "Start-up: `import` + first `track()`, over importing a one-line package",
    limit: "≤ +5 ms",
    value: `+${start.overOneLineMs.toFixed(1)} ms (median of ${start.pairs} pairs of whole processes)`,
    met: start.overOneLineMs <= 5,
    why:
      start.inside.overOneLineMs > 5
        ? `inside the processes it reads +${start.inside.overOneLineMs.toFixed(1)} ms as well, so it is the package's own start-up (compiling the \`.wasm\` and the package's JavaScript, instantiating the module), not the machine's noise.`
        : `inside the processes it reads +${start.inside.overOneLineMs.toFixed(1)} ms: the whole-process figure carries process start and exit, which move by milliseconds with the machine's load.`,
  },
  {
    what: "Wasm memory per request in flight, beyond the id",
    limit: "≤ 48 B",
    value: beyondId.filter((r) => !r.withSignal).map((r) => `${r.ids} ids ${r.beyond.toFixed(0)} B`).join(", "),
    met: worstMemory.beyond <= 48,
  },
];
const missed = bounds.filter((b) => !b.met);

// ----- outputs -----

const results = { ...measured, bounds };
if (!render) writeFileSync(`${root}/bench/results.json`, `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(`${root}/bench/chart.svg`, scenarioOneChart(rows));

const n0 = (v) => Math.round(v).toLocaleString("en-US");
const ms2 = (v) => `${v.toFixed(2)} ms`;
const plus = (v) => `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(2)} ms`;
const pct = (v) => `${v.toFixed(2)}%`;
const range = ([a, b], f) => `${f(a)} to ${f(b)}`;
const th = remote.instance.summary;
const lat = remote.latency;
const one = (scenario, ids) => row(scenario, ids, 1);
const perRequest = (ids) => memory.perRequest.find((r) => r.ids === ids && !r.withSignal);

const md = [];
const p = (...lines) => md.push(...lines);
p("# Benchmarks", "");
p("<!-- Written by `npm run bench` (bench/run.mjs) from what it measured. Edit bench/run.mjs, not this file. -->", "");
p(
  "Each figure sets mcp-cancel beside what a user has without it, measured in the same run. The JS baseline ([bench/baseline.mjs](bench/baseline.mjs)) is what the MCP TypeScript SDK 1.x does in `shared/protocol.js`: a `Map` of response handlers by request id, an `abort` listener on the caller's `AbortSignal` that sends `notifications/cancelled` (and is never removed), and an `AbortController` per request from the peer, plus a bounded set of cancelled ids so that, like mcp-cancel, it tells a late response from an unknown one. The leak-free baseline is the same and also removes its listener when the request settles, as mcp-cancel does. The guard is measured against an SDK round trip, the bridge against mcp-remote and against the SDK's own Streamable HTTP server transport, start-up against importing a one-line package.",
  "",
);
p(
  `Measured ${machine.date} on ${machine.cpu} (${machine.cores} cores, ${machine.memoryGiB} GiB), ${machine.os}; Node ${machine.node}, ${machine.rustc}, ${machine.wasmBindgen}, ${machine.wasmOpt}; MCP TypeScript SDK ${machine.sdk}, mcp-remote ${machine.mcpRemote}, tinybench ${machine.tinybench}, criterion ${machine.criterion}. The run took ${Math.round(results.seconds / 60)} min.${quick ? " **A quick run (`--quick`): fewer rounds, shorter times.**" : ""} The machine is shared: compare the figures of one run with each other, not ns across runs.`,
  "",
);
p("| what | mcp-cancel | without it |", "|---|---:|---|");
p(`| \`guardTransport\`'s cost per SDK round trip | +${sdk.forwarding.literal.guardNs.median.toFixed(0)} ns, **${pct(guardPct)}** | an SDK ${machine.sdk} \`tools/call\` round trip: ${sdk.budget.ofUsNoGc.toFixed(1)} µs (in-process server, 100 B result) |`);
for (const ids of ["number", "string"]) {
  const r = one("1b", ids);
  p(`| a request's bookkeeping, no signal (what the guard does per request), ${ids} ids | ${ns(r.mcpNs)} | the SDK's JS: ${ns(r.jsNs)} (**${x(r.ratio)}**) |`);
}
for (const ids of ["number", "string"]) {
  const r = one("1", ids);
  p(`| the same with the caller's \`AbortSignal\` (its \`AbortController\` included), ${ids} ids | ${ns(r.mcpNs)} | the SDK's JS: ${ns(r.jsNs)} (${x(r.ratio)}); leak-free JS: ${ns(r.leakFreeNs)} (**${x(r.leakFreeRatio)}**) |`);
}
p(`| memory per request in flight (wasm linear memory) | ${perRequest("number").averageBytes.toFixed(0)} B with number ids, ${perRequest("string").averageBytes.toFixed(0)} B with string ids (\`req-12345\`) | — |`);
p(`| the \`.wasm\` a page loads | ${n0(wasmFile.raw)} B, **${n0(wasmFile.gzip)} B gzip -9** | — |`);
p(`| start-up: \`import\` + a session + its first \`track()\` | **+${start.overOneLineMs.toFixed(1)} ms** (whole process); ${start.inside.ms.toFixed(1)} ms from \`import\` to \`track()\` returning | importing a one-line package: ${start.inside.oneLineMs.toFixed(1)} ms |`);
p(`| \`bridge --http\`: latency added to a \`tools/call\` (p50) | **${plus(lat.bridge.addedP50Ms)}** | \`mcp-remote\` ${machine.mcpRemote}: ${plus(lat["mcp-remote"].addedP50Ms)} |`);
p(`| \`bridge --stdio\`: \`tools/call\` per second, 50 sessions | **${n0(th.bridge.perSecond.median)}/s** | the SDK's Streamable HTTP server transport, tool in process: ${n0(th.sdk.perSecond.median)}/s (${x(th.bridge.perSecond.median / th.sdk.perSecond.median)}) |`);
p("");
p("The request figures are at 1 request in flight; the scenarios table below has 100 and 10,000.", "");
p("![ns per request against requests in flight, mcp-cancel and the JS baseline](bench/chart.svg)", "");

p("## Bounds", "");
p("`npm run bench` reports each bound met or not; a test never asserts them (wall-clock figures on a shared machine).", "");
p("| bound | limit | measured | |", "|---|---|---|---|");
for (const b of bounds) p(`| ${b.what} | ${b.limit} | ${b.value} | ${b.met ? "met" : "**not met**"} |`);
p("");
p("## What is not met", "");
if (missed.length === 0) p("Every bound is met in this run.");
for (const b of missed) {
  const sentence = `${b.what}: ${b.over ?? b.value}, over the bound of ${b.limit}.`;
  p(`- ${sentence}${b.why ? ` Why: ${b.why}` : ""}`);
}
p("");

p("## Scenarios 1–3", "");
p(
  `ns per operation. Paired: mcp-cancel and the baselines run in one process, each case's in alternating blocks of ~1 ms (batches of 100 operations), round after round for ${quick ? "0.6" : "1.5"} s; each figure is the median block, each ratio the median of the per-round ratios, so that both sides of a ratio are timed at the same moment of a shared machine whose speed changes within a second ([bench/ops.mjs](bench/ops.mjs)). A block's garbage collections count. One operation is the whole sequence: **1** \`new AbortController()\` + \`track(id, "tools/call", { signal })\` + \`shouldDropResponse(id)\`; **1b** the same without a signal; **2** \`track\` + \`abort("user pressed stop")\` (the \`notifications/cancelled\` goes to \`send\`) + the late response dropped; **3** the peer's request through \`shouldDropIncoming()\` + \`inboundSignal(id)\` + the peer's \`notifications/cancelled\` (the signal aborts) + our response suppressed by \`beforeSend()\`. The last column is the Rust core's bookkeeping for the same sequence, natively, without JS, wasm or Node's objects (criterion, [bench/core.rs](bench/core.rs)).`,
  "",
);
const crit = (r) => {
  const group = { 1: "1 track-response", 2: "2 track-cancel-late", 3: "3 inbound-cancel-suppress" }[r.scenario];
  const c = criterion.find((c) => c.group === `${group} ${r.ids}` && c.inFlight === r.inFlight);
  return c ? ns(c.ns) : "";
};
p("| scenario | ids | in flight | mcp-cancel | SDK-style JS | ratio | leak-free JS | ratio | core alone |", "|---|---|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  const leak = r.leakFreeNs === undefined ? "| | |" : `| ${ns(r.leakFreeNs)} | ${x(r.leakFreeRatio)} |`;
  p(`| ${r.scenario} | ${r.ids} | ${n0(r.inFlight)} | ${ns(r.mcpNs)} | ${ns(r.jsNs)} | ${x(r.ratio)} ${leak} ${crit(r)} |`);
}
p("");
p(`What Node's objects cost alone, in the same process (ns each): ${Object.entries(ops.attribution).map(([w, v]) => `\`${w}\` ${v.toFixed(0)}`).join("; ")}.`, "");

p("## The guard", "");
const fwd = sdk.forwarding;
p(
  `Paired: the guarded and the unguarded way run in one process in alternating batches, round after round; each figure is the median of the per-round differences or ratios with its 95% confidence interval ([bench/sdk.mjs](bench/sdk.mjs); \`node bench/sdk.mjs --aa\` runs both SDK connections plain, a check of the method that should read 0%). Around a transport whose \`send\` does nothing, ${fwd.rounds} rounds of ${n0(fwd.batch)} round trips (a request sent, its response received), ns per round trip:`,
  "",
);
p("| requests | bare transport | + an `async` wrapper in a `Proxy` | + `guardTransport` (95% CI) |", "|---|---:|---:|---:|");
for (const [label, f] of [["object literals", fwd.literal], ["built as the SDK 1.x builds them", fwd.sdk]]) {
  p(`| ${label} | ${f.bareNs.toFixed(0)} | +${f.wrapperNs.median.toFixed(0)} | +${f.guardNs.median.toFixed(0)} (${f.guardNs.ci[0].toFixed(0)}–${f.guardNs.ci[1].toFixed(0)}) |`);
}
p("");
p(
  `On SDK round trips (SDK ${machine.sdk} \`Client\` → \`InMemoryTransport\` → in-process \`McpServer\`, sequential \`tools/call\`, ${sdk.small.rounds} rounds of four blocks of ${sdk.small.block} calls, ABBA then BAAB; each block's garbage collections taken out, since they come every few hundred calls and take milliseconds):`,
  "",
);
p("| tool result | plain | guarded | overhead (95% CI) | allocated per call, plain / guarded |", "|---|---:|---:|---:|---:|");
for (const [label, s] of [["100 bytes", sdk.small], ["1 MB", sdk.large]]) {
  p(`| ${label} | ${s.plainUs.toFixed(1)} µs | ${s.guardedUs.toFixed(1)} µs | ${pct(s.overhead.median)} (${range(s.overhead.ci, pct)}) | ${n0(s.bytesPerCall.plain)} / ${n0(s.bytesPerCall.guarded)} B |`);
}
p("");
p(`The guard's own work, \`beforeSend(request)\` + \`shouldDropIncoming(response)\` in a loop: ${sdk.guardNs.small.toFixed(0)} ns per round trip with a 100 B result, ${sdk.guardNs.large.toFixed(0)} ns with 1 MB (it does not read the result).`, "");

p("## The relay", "");
p(
  `${n0(relay.calls)} sequential \`tools/call\` round trips per round, ${relay.rounds} round${relay.rounds > 1 ? "s" : ""}, through one hop between two \`InMemoryTransport\` pairs (SDK \`Client\` → hop → in-process \`McpServer\`, 100 B result): a plain pipe that hands each message on, or \`createRelay\` (ids and progress tokens mapped, both sides' sessions kept; [bench/relay.mjs](bench/relay.mjs)). Blocks of 500 in ABBA/BAAB order, the median block.`,
  "",
);
p("| hop | per round trip | added per forwarded message |", "|---|---:|---:|");
p(`| plain pipe | ${relay.pipeUs.toFixed(1)} µs | — |`);
p(`| \`createRelay\` | ${relay.relayUs.toFixed(1)} µs | ${relay.perMessageUs.toFixed(2)} µs (${relay.overheadPct.toFixed(1)}% per round trip) |`);
p("");

p("## The bridge", "");
p(
  `One Streamable HTTP server on loopback (SDK \`McpServer\`, a session per client). An SDK stdio \`Client\` spawns \`mcp-cancel bridge --http <url>\` or \`mcp-remote <url> ${remote.mcpRemoteArgs.join(" ")}\` (its logging left on, as users run it); for reference, an SDK Streamable HTTP client calls the server directly ([bench/remote.mjs](bench/remote.mjs)). Latency: ${lat.direct.calls} sequential \`tools/call echo\` per way, blocks in rotating order; throughput: ${remote.throughput.inFlight} calls always in flight on one client.`,
  "",
);
const hop = { direct: "direct, no hop", bridge: "`bridge --http`", "mcp-remote": "`mcp-remote`" };
p("| way | p50 | p99 | added p50 | added p99 | calls/s, 20 in flight |", "|---|---:|---:|---:|---:|---:|");
for (const k of ["direct", "bridge", "mcp-remote"]) {
  const l = lat[k];
  p(`| ${hop[k]} | ${ms2(l.p50Ms)} | ${ms2(l.p99Ms)} | ${k === "direct" ? "—" : plus(l.addedP50Ms)} | ${k === "direct" ? "—" : plus(l.addedP99Ms)} | ${n0(remote.throughput.perSecond[k])} |`);
}
p("");
p(
  `A call aborted at its first progress, to a tool that ignores its signal and answers anyway (${remote.abort.steps} progress steps ${remote.abort.ms} ms apart): what reaches the server, and what reaches the client's transport after the abort (the SDK \`Client\` drops it; a client that does not is handed it).`,
  "",
);
p("| way | the server receives | the request's response stream | late at the client |", "|---|---|---|---|");
for (const c of remote.abort.cases) {
  const got = c.cancels.length === 0 ? "no `notifications/cancelled`" : c.cancels.map((k) => `\`notifications/cancelled\` for ${k.forThisCall ? "the call" : "**another id**"} at +${k.afterMs} ms`).join("; ");
  const stream = c.streamClosedAfterMs === undefined ? "left open" : `closed at +${c.streamClosedAfterMs} ms`;
  p(`| ${hop[c.hop]} | ${got} | ${stream} | ${c.lateProgressAtClient} progress, ${c.lateResponseAtClient} response |`);
}
p("");
p(
  `One \`bridge --stdio\` (server-everything as its child) and two servers of one process each under the same load: 50 sessions calling \`tools/call echo\` back to back as plain HTTP requests for ${remote.instance.seconds} s after ${remote.instance.warmupMs / 1000} s of warm-up, ${remote.instance.rounds} round${remote.instance.rounds > 1 ? "s, medians (min–max)" : ""}; CPU per call from Linux \`/proc\` ([bench/bridge-load.mjs](bench/bridge-load.mjs)). Load, bridge and servers share the machine's ${remote.instance.load.cores} cores.`,
  "",
);
const cell = (m) => (remote.instance.rounds > 1 ? `${n0(m.median)} (${n0(m.range[0])}–${n0(m.range[1])})` : n0(m.median));
p("| server | `tools/call` per second | p50 | CPU per call, server side |", "|---|---:|---:|---:|");
for (const s of Object.values(th)) p(`| ${s.label} | ${cell(s.perSecond)} | ${ms2(s.p50Ms.median)} | ${n0(s.serverUs.median)} µs${s.childUs.median > 0 ? ` (child ${n0(s.childUs.median)})` : ""} |`);
p("");

if (childPerSession) {
  const mib = (b) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  p(
    `\`bridge --stdio --child-per-session\`: each session's \`initialize\` starts a server process, its \`DELETE\` ends it. A session here is \`initialize\`, \`notifications/initialized\`, one \`tools/call\` and \`DELETE\` as plain HTTP, ${childPerSession.sessions} one after another and ${childPerSession.concurrency} at a time; memory with ${childPerSession.sessionsHeld} sessions held open, from Linux \`/proc\` (RSS, and PSS with shared pages split among processes) ([bench/child-per-session.mjs](bench/child-per-session.mjs)). The shared mode, one child for all sessions, for comparison.`,
    "",
  );
  p(`| child | sessions per second (one at a time / ${childPerSession.concurrency} at a time) | shared mode | RSS / PSS per child | the bridge's RSS per session | \`DELETE\` → child gone |`, "|---|---:|---:|---:|---:|---:|");
  for (const [label, c] of [["server-everything", childPerSession], ["an SDK 1.x `McpServer`", childPerSession.sdkServer]]) {
    p(`| ${label} | ${c.sessionsPerSecond.toFixed(1)} / ${c.sessionsPerSecondConcurrent.toFixed(1)} | ${c.sharedSessionsPerSecond.toFixed(0)} / ${c.sharedSessionsPerSecondConcurrent.toFixed(0)} | ${mib(c.rssPerSessionBytes)} / ${mib(c.pssPerSessionBytes)} | ${(c.bridgeRssPerSessionBytes / 2 ** 20).toFixed(2)} MiB | ${n0(c.deleteToExitMs)} ms |`);
  }
  p("", "Starting a Node process is the cost of a session in this mode (about 0.3 s of CPU); use it when a server keeps per-client state or sends requests of its own.", "");
}

p("## Memory", "");
p("Wasm linear memory per request in flight, 100,000 requests tracked with `track(id, \"tools/call\"[, { signal }])`, one fresh instance each ([bench/memory.mjs](bench/memory.mjs)); the memory grows in 64 KiB pages, so the slope of 20 points is given too.", "");
p("| requests | per request | slope | the id's own bytes |", "|---|---:|---:|---:|");
for (const r of memory.perRequest) p(`| ${r.ids} ids${r.withSignal ? ", with a signal" : ""} | ${r.averageBytes.toFixed(1)} B | ${r.slopeBytes.toFixed(1)} B | ${r.idBytes} |`);
p("");
const flood = memory.floods.samples;
const phase = (text) => flood.filter((s) => s.label.includes(text)).map((s) => `${s.wasmBytes / KB}`).join(" → ");
p(`Floods leave it flat (tombstones are bounded, ${memory.floods.tombstones} after the floods): after warm-up ${flood[0].wasmBytes / KB} KiB; over 1,000,000 unknown cancels (ours and the peer's) ${phase("unknown cancels")} KiB; over 1,000,000 late and 1,000,000 unknown responses ${phase("responses")} KiB.`, "");

p("## Size", "");
p("| file | what | bytes | gzip -9 |", "|---|---|---:|---:|");
for (const f of files) p(`| \`${f.path}\` | ${f.what} | ${n0(f.raw)} | ${n0(f.gzip)} |`);
p("");
if (bytes.missing) {
  p(`Where the \`.wasm\`'s bytes are: not measured in this run: ${bytes.missing}.`, "");
} else {
  const groups = Object.entries(bytes.groups).sort((a, b) => b[1] - a[1]);
  const top = groups.slice(0, 10);
  const rest = groups.slice(10).reduce((a, [, v]) => a + v, 0);
  p(`Where the \`.wasm\`'s bytes are, by module ([bench/wasm-bytes.mjs](bench/wasm-bytes.mjs): \`twiggy top\` of the release build with names kept, ${n0(bytes.total)} B in all): ${top.map(([g, v]) => `${g} ${n0(v)}`).join(", ")}, the other ${groups.length - top.length} modules ${n0(rest)}.`, "");
}

p("## Start-up", "");
p(
  `A fresh \`node\` running \`await import("mcp-cancel")\`, \`new CancellationSession()\` and its first \`track()\`, against the same probe importing a one-line ES module package (bench/fixtures/node_modules/one-line), ${start.pairs} pairs run alternately ([bench/size.mjs](bench/size.mjs)). Whole processes, the median of the pairs' differences: **+${start.overOneLineMs.toFixed(1)} ms** (the processes take ${start.wallMs.toFixed(0)} and ${start.oneLineWallMs.toFixed(0)} ms). Inside them, from before \`import\` to after \`track()\`: ${start.inside.ms.toFixed(1)} ms against ${start.inside.oneLineMs.toFixed(1)} ms, +${start.inside.overOneLineMs.toFixed(1)} ms paired.`,
  "",
);

p("## How to reproduce", "");
const about = (seconds) => (seconds < 90 ? `~${Math.max(10, Math.round(seconds / 10) * 10)} s` : `~${Math.round(seconds / 60)} min`);
const t = (name) => (took[name] === undefined || quick ? "" : ` (${about(took[name])})`);
p(
  "```sh",
  `npm run bench                    # build, then node bench/run.mjs: everything here (${quick ? "~5 min" : about(results.seconds)} after the build, ${machine.cores} cores)`,
  `node bench/run.mjs --quick       # after a build: fewer rounds, shorter times (${quick ? about(results.seconds) : "~3 min"})`,
  `node bench/ops.mjs [--quick]     # scenarios 1-3 against the JS baselines${t("ops")}`,
  `node bench/sdk.mjs [--quick]     # the guard; --aa: both connections plain, the method's check${t("sdk")}`,
  `node bench/relay.mjs [--quick]   # createRelay against a plain pipe${t("relay")}`,
  `node bench/remote.mjs [--quick]  # the bridge against mcp-remote, and under load${t("remote")}`,
  "node bench/bridge-load.mjs [--before <checkout>]  # the load part alone; --before: A/B of another checkout's bridge",
  "node --expose-gc bench/memory.mjs                 # memory per request and under floods",
  "node bench/size.mjs              # file sizes and start-up",
  "node bench/wasm-bytes.mjs        # where the .wasm's bytes are (needs twiggy: scripts/setup.sh --bench)",
  "cargo bench --bench core         # the core alone, native (criterion)",
  "node bench/ab.mjs <dir> [--quick] [--scenarios 1b,3] [--stub-abort]  # scenarios 1-3, this build against the build in <dir>",
  "node bench/run.mjs --render      # BENCHMARKS.md again from bench/results.json (after editing bench/run.mjs's text)",
  "```",
  "",
);
p("For an A/B against an earlier commit: `git worktree add /tmp/old <rev>`, then `npm install` and `bash scripts/build.sh` there, then `node bench/ab.mjs /tmp/old` here. It runs both builds and the baseline in one process, case by case, which is the comparison to trust on a shared machine: two whole runs of the same build differ by more than most changes do.");

const text = `${md.join("\n")}\n`;
const lines = text.split("\n").length - 1;
if (lines > MAX_LINES) throw new Error(`BENCHMARKS.md would have ${lines} lines, more than ${MAX_LINES}: shorten what bench/run.mjs writes (nothing written)`);
writeFileSync(`${root}/BENCHMARKS.md`, text);
say(render ? `wrote BENCHMARKS.md (${lines} lines) and bench/chart.svg from bench/results.json` : `wrote BENCHMARKS.md (${lines} lines), bench/results.json and bench/chart.svg in ${results.seconds} s`);
say(`bounds met: ${bounds.length - missed.length} of ${bounds.length}${missed.length ? ` (not met: ${missed.map((b) => `${b.what}: ${b.value}`).join("; ")})` : ""}`);

// `npm run bench`: every benchmark of issue #5, then BENCHMARKS.md (the part between its
// bench:begin and bench:end markers), bench/results.json and bench/chart.svg.
//
//   node bench/run.mjs [--quick] [--no-criterion]
//
// Expects the package built (`npm run bench` runs scripts/setup.sh and scripts/build.sh
// first). Not part of `npm test`: the targets are reported here, not asserted.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";

import { scenarioOneChart } from "./chart.mjs";
import { runAttribution, runOps } from "./ops.mjs";
import { runRelay } from "./relay.mjs";
import { describeAbort, remoteSection, runRemote } from "./remote.mjs";
import { runSdk, sdkSection, sdkTargets } from "./sdk.mjs";
import { floors1b } from "./floors-1b.mjs";
import { floorSizes, pairedStartup, sizes, startup } from "./size.mjs";
import { inlining } from "./inlining.mjs";
import { wasmBytes, wasmBytesBefore } from "./wasm-bytes.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const quick = process.argv.includes("--quick");
const withCriterion = !process.argv.includes("--no-criterion");
const say = (s) => console.log(`\x1b[1m[bench]\x1b[0m ${s}`);
const started = Date.now();

const version = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { cwd: root, encoding: "utf8", env: { ...process.env, PATH: `${root}/node_modules/.bin:${os.homedir()}/.cargo/bin:${process.env.PATH}` } }).trim();
  } catch {
    return "unknown";
  }
};
const pkgVersion = (name) => JSON.parse(readFileSync(`${root}/node_modules/${name}/package.json`, "utf8")).version;
const lockVersion = (name) => readFileSync(`${root}/Cargo.lock`, "utf8").match(new RegExp(`name = "${name}"\\nversion = "([^"]+)"`))?.[1] ?? "unknown";

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
  tinybench: pkgVersion("tinybench"),
  criterion: lockVersion("criterion"),
  date: new Date().toISOString().slice(0, 10),
};

say("scenarios 1-3: mcp-cancel and the pure-JS baseline, side by side (tinybench)");
const ops = await runOps({ quick, rounds: quick ? 1 : 2, time: quick ? 200 : 400 });

const inline = inlining();
console.log(`  V8 inlines functions of up to ${inline.limit} bytes of bytecode: ${inline.functions.map((f) => `${f.name} ${f.bytes}`).join(", ")}`);

const attribution = await runAttribution({ time: quick ? 200 : 400 });
for (const [what, v] of Object.entries(attribution)) console.log(`  alone: ${what}: ${v.toFixed(0)} ns`);

say("scenario 4: guardTransport around a do-nothing transport and on SDK traffic (InMemoryTransport, in-process McpServer), paired rounds");
const sdk = await runSdk({ quick });

say("relay: one hop, a plain pipe or createRelay (InMemoryTransport, in-process McpServer)");
const relay = await runRelay({ calls: quick ? 2000 : 10_000, rounds: quick ? 1 : 3 });
console.log(`  plain pipe ${relay.pipeUs.toFixed(1)} µs, relay ${relay.relayUs.toFixed(1)} µs per round trip: +${relay.perMessageUs.toFixed(2)} µs per forwarded message`);

say("bridge and mcp-remote to one Streamable HTTP server on loopback; one bridge --stdio with 50 clients (bench/remote.mjs)");
const remote = await runRemote({ quick, log: (line) => console.log(`  ${line}`) });

say("memory (node --expose-gc bench/memory.mjs)");
const mem = spawnSync(process.execPath, ["--expose-gc", `${root}/bench/memory.mjs`], { cwd: root, encoding: "utf8", maxBuffer: 1 << 24 });
if (mem.status !== 0) throw new Error(`bench/memory.mjs failed: ${mem.stderr}`);
const memory = JSON.parse(mem.stdout.trim().split("\n").pop());
for (const r of memory.perRequest) {
  console.log(`  ${r.ids} ids${r.withSignal ? ", with signal" : ""}: ${r.averageBytes.toFixed(0)} bytes per request (slope ${r.slopeBytes.toFixed(0)})`);
}
for (const s of memory.floods.samples) console.log(`  ${s.label}: ${s.wasmBytes} bytes of wasm memory, ${(s.jsHeapBytes / 2 ** 20).toFixed(1)} MiB JS heap`);

say("size and start-up");
const files = sizes();
for (const f of files) console.log(`  ${f.path}: ${f.raw} bytes, ${f.gzip} gzip`);
const floors = floorSizes();
for (const f of floors) console.log(`  floor, ${f.what}: ${f.raw} bytes, ${f.gzip} gzip`);
const rulesFloor = floors.find((f) => f.path.includes("floor-rules"));
// Is the size row's floor a floor in issue #24's sense, "at least as fast as ../shared/floor/"?
const floorSpeed = await floors1b({ rounds: quick ? 1 : 3 });
for (const r of floorSpeed) {
  console.log(`  1b, ${r.ids} ids, ${r.inFlight} in flight: bench/floor-rules ${r.rulesFloor.toFixed(0)} ns, ../shared/floor ${r.sharedFloor.toFixed(0)} ns, mcp-cancel ${r.ours.toFixed(0)} ns`);
}
const rulesFloorFast = floorSpeed.every((r) => r.rulesFloor <= r.sharedFloor * 1.05);
const bytes = wasmBytes();
const bytesBefore = wasmBytesBefore();
if (bytes.missing) console.log(`  where the .wasm's bytes are: ${bytes.missing}`);
else console.log(`  where the .wasm's bytes are (twiggy): ${bytes.total} bytes in all (7acc0d8: ${bytesBefore.total})`);
const start = startup(20);
console.log(`  import → first track(): median ${start.medianMs.toFixed(1)} ms of ${start.runs} processes (Node's floor ${start.floorMs.toFixed(1)} ms)`);
const paired = pairedStartup(20);
console.log(`  inside those processes: ours ${paired.inside.ms.toFixed(2)} ms, the floor's ${paired.inside.wasmFloorMs.toFixed(2)} ms, one-line ${paired.inside.oneLineMs.toFixed(2)} ms; ours over the floor's +${paired.inside.overWasmFloorMs.toFixed(2)} ms`);
console.log(`  import + first track() over a bare node process: +${paired.addedMs.toFixed(1)} ms (median of ${paired.runs} alternating pairs; bare node ${paired.bareMs.toFixed(1)} ms); over Node's floor: +${paired.overFloorMs.toFixed(1)} ms; over importing a one-line package: +${paired.overOneLineMs.toFixed(1)} ms; the floor of that row (../shared/floor's .wasm loaded the same way) +${paired.wasmFloorOverOneLineMs.toFixed(1)} ms, ours over it +${paired.overWasmFloorMs.toFixed(1)} ms; the rule set's floor (bench/floor-rules) +${paired.rulesFloorOverOneLineMs.toFixed(1)} ms, ours over it +${paired.overRulesFloorMs.toFixed(1)} ms`);

let criterion = [];
if (withCriterion) {
  say("criterion: the core alone, native (cargo bench --bench core)");
  const args = ["bench", "--quiet", "--bench", "core", "--", "--warm-up-time", "0.5", "--measurement-time", quick ? "0.5" : "1", "--noplot"];
  const r = spawnSync("cargo", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PATH: `${os.homedir()}/.cargo/bin:${process.env.PATH}` } });
  if (r.status !== 0) throw new Error(`cargo bench failed: ${r.stderr}`);
  criterion = readCriterion();
  for (const c of criterion) console.log(`  ${c.group} / ${c.inFlight} in flight: ${c.ns.toFixed(0)} ns`);
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

// ----- targets -----
const KB = 1024;
const targets = [];
const target = (what, goal, value, met) => targets.push({ what, goal, value, met });
// The budgets of issue #24 (core v2): against the SDK-style baseline, 1b (no signal) ≤ 0.8×
// with number ids and ≤ 1.5× with string ids, 3 (a peer's cancel) ≤ 1.2×; against the
// leak-free baseline (which also removes its listener), 1 (the caller's signal) ≤ 1.0× and 2
// (our cancel) ≤ 1.1×. 1 and 2 against the SDK-style baseline are reported for reference.
const sdkLimit = (r) => (r.scenario === "1b" ? (r.ids === "number" ? 0.8 : 1.5) : r.scenario === "3" ? 1.2 : undefined);
const leakFreeLimit = (r) => (r.scenario === "1" ? 1.0 : 1.1);
for (const r of ops.filter((r) => r.inFlight <= 100)) {
  const limit = sdkLimit(r);
  const goal = limit === undefined ? "(reference)" : `≤ ${limit.toFixed(1)}× baseline`;
  target(`scenario ${r.scenario} ${r.label}, ${r.ids} ids, ${r.inFlight} in flight`, goal, `${r.ratio.toFixed(2)}×`, limit === undefined || r.ratio <= limit);
}
// A row not met is judged against its floor measured in the same run (issue #24, "Done
// when"): scenario 1b beside ../shared/floor's window table (bench/floor/entry.js Floor1b),
// scenario 3 beside the rule set's (bench/floor-rules/scenarios.js Rules3).
const floorOf = { "1b": "../shared/floor's window table", "3": "the rule set's, bench/floor-rules Rules3" };
for (const r of ops.filter((r) => r.floorNs !== undefined && r.inFlight <= 100 && r.ratio > (sdkLimit(r) ?? Infinity))) {
  target(
    `scenario ${r.scenario}, ${r.ids} ids, ${r.inFlight} in flight, over its floor (${floorOf[r.scenario]}, same run: ${r.floorNs.toFixed(0)} ns, ×${r.floorRatio.toFixed(2)} the baseline)`,
    "≤ 1.1× the floor (issue #24, a row not met)",
    `${r.overFloor.toFixed(2)}×`,
    r.overFloor <= 1.1,
  );
}
// The JS of 1b's hot path small enough for V8 to inline (bench/inlining.mjs says why).
target(
  "the JS of 1b's hot path inlinable by V8 (bytes of bytecode: `track`, `shouldDropResponse`, `packWords`)",
  `each ≤ ${inline.limit} (V8's limit)`,
  inline.functions.map((f) => `${f.name} ${f.bytes}`).join(", "),
  inline.functions.every((f) => f.inlinable),
);
for (const r of ops.filter((r) => r.leakFreeRatio !== undefined && r.inFlight <= 100)) {
  const limit = leakFreeLimit(r);
  target(`scenario ${r.scenario} against the leak-free baseline, ${r.ids} ids, ${r.inFlight} in flight`, `≤ ${limit.toFixed(1)}× leak-free baseline`, `${r.leakFreeRatio.toFixed(2)}×`, r.leakFreeRatio <= limit);
}
// Issue #24's guard row, and the same guard on SDK round trips (bench/sdk.mjs).
for (const row of sdkTargets(sdk)) target(...row);
for (const r of memory.perRequest) {
  const beyond = r.averageBytes - r.idBytes;
  target(`wasm memory per request in flight, ${r.ids} ids${r.withSignal ? ", with signal" : ""}`, "≤ 48 bytes beyond the id", `${beyond.toFixed(0)} bytes`, beyond <= 48);
}
const flood = memory.floods.samples;
const phase = (prefix) => flood.filter((s) => s.label.includes(prefix));
const flat = (xs) => xs.length > 0 && xs.every((s) => s.wasmBytes === xs[0].wasmBytes);
target("wasm memory over 1 000 000 unknown cancels (ours and the peer's)", "flat", `${phase("unknown cancels").map((s) => s.wasmBytes / KB).join(" → ")} KiB`, flat(phase("unknown cancels")));
target("wasm memory over 1 000 000 late + 1 000 000 unknown responses", "flat", `${phase("responses").map((s) => s.wasmBytes / KB).join(" → ")} KiB`, flat(phase("responses")));
const wasmFile = files.find((f) => f.path.endsWith(".wasm"));
target(".wasm gzip -9", "≤ 30 KiB", `${(wasmFile.gzip / KB).toFixed(1)} KiB (the rule set's floor, bench/floor-rules: ${(rulesFloor.gzip / KB).toFixed(1)} KiB)`, wasmFile.gzip <= 30 * KB);
target("import + first track() over importing a one-line package from node_modules (20 alternating pairs, median)", "≤ +3 ms", `+${paired.overOneLineMs.toFixed(1)} ms (the floor's: +${paired.wasmFloorOverOneLineMs.toFixed(1)} ms; the rule set's floor: +${paired.rulesFloorOverOneLineMs.toFixed(1)} ms)`, paired.overOneLineMs <= 3);
const inside = paired.inside;
target("the same, inside those processes (`import` to the first `track()` returning; paired medians)", "(reference: steadier than whole processes)", `+${inside.overOneLineMs.toFixed(1)} ms (the floor's: +${inside.wasmFloorOverOneLineMs.toFixed(1)} ms; ours over the floor's +${inside.overWasmFloorMs.toFixed(1)} ms; the rule set's floor: +${inside.rulesFloorOverOneLineMs.toFixed(1)} ms)`, true);
// Reported: a first round trip as the README's low-level API makes it (a session with `send`,
// `track()` of `initialize` with its params, the response through `shouldDropIncoming()`), in
// the same alternation. Every documented use passes options; the row above's probe does not
// (the nineteenth session: making that probe cheaper by loading the rest on first use made
// this one 1 ms dearer, BENCHMARKS.md). Its floor (bench/floor-rules/documented.js: the rule
// set's .wasm behind a class that does only what that round trip needs) runs the same probe.
target(
  "import + a first round trip as the README's low-level API makes it, over the one-line package (reported, same alternation)",
  "(reference: what a documented use pays at start)",
  `+${paired.documentedOverOneLineMs.toFixed(1)} ms whole processes, +${inside.documentedOverOneLineMs.toFixed(1)} ms in process; its floor (bench/fixtures/node_modules/floor-documented) +${paired.documentedFloorOverOneLineMs.toFixed(1)} / +${inside.documentedFloorOverOneLineMs.toFixed(1)} ms: ${(paired.documentedOverOneLineMs / paired.documentedFloorOverOneLineMs).toFixed(2)}× / ${(inside.documentedOverOneLineMs / inside.documentedFloorOverOneLineMs).toFixed(2)}×`,
  true,
);
// Issue #24's "Done when" for a row not met: within 10% of a prototype of its floor measured in
// the same run. The start-up row's floor is the rule set's (bench/floor-rules, as fast as
// ../shared/floor on 1b: bench/floors-1b.mjs); ../shared/floor's, loaded the same way, beside it.
// Met only when in process too: 20 whole-process pairs moved the floors by 2.6 ms between two
// runs of the same code (+4.1 and +6.7 ms), the in-process figures by 0.2 ms.
if (paired.overOneLineMs > 3) {
  const over = (ours, floor) => ours / floor;
  const whole = over(paired.overOneLineMs, paired.rulesFloorOverOneLineMs);
  const inProcess = over(inside.overOneLineMs, inside.rulesFloorOverOneLineMs);
  target(
    `import + first track(), over its floor (the rule set's, bench/floor-rules: +${paired.rulesFloorOverOneLineMs.toFixed(1)} ms over the one-line package in the same alternation, +${inside.rulesFloorOverOneLineMs.toFixed(1)} ms in process; ../shared/floor's +${paired.wasmFloorOverOneLineMs.toFixed(1)} / +${inside.wasmFloorOverOneLineMs.toFixed(1)} ms)`,
    "≤ 1.1× the floor, whole processes and in process (issue #24, a row not met)",
    `${whole.toFixed(2)}× whole processes, ${inProcess.toFixed(2)}× in process (over ../shared/floor's: ${over(paired.overOneLineMs, paired.wasmFloorOverOneLineMs).toFixed(2)}× and ${over(inside.overOneLineMs, inside.wasmFloorOverOneLineMs).toFixed(2)}×)`,
    whole <= 1.1 && inProcess <= 1.1,
  );
}
// Where the start-up row's time over the rule set's floor goes, in process (bench/least-js.mjs,
// made from this build): this package's .wasm behind the least JavaScript the probe needs, the
// same with the package's bundle compiled and never run, and the package.
const overRules = (x) => (x / inside.rulesFloorOverOneLineMs).toFixed(2);
target(
  "import + first track() in process, taken apart against the rule set's floor (reported, same alternation)",
  "(reference: what the .wasm, compiling the JS, and running it each cost)",
  `the package's .wasm behind the least JS +${inside.leastJsOverOneLineMs.toFixed(2)} ms (${overRules(inside.leastJsOverOneLineMs)}× the floor's +${inside.rulesFloorOverOneLineMs.toFixed(2)}); with the package's bundle compiled, never run, +${inside.leastJsParsedOverOneLineMs.toFixed(2)} ms (${overRules(inside.leastJsParsedOverOneLineMs)}×); the package +${inside.overOneLineMs.toFixed(2)} ms (${overRules(inside.overOneLineMs)}×)`,
  true,
);
// Issue #26, part 5: the bridge against mcp-remote, and one bridge --stdio instance.
const added = (k) => remote.latency[k].addedP50Ms;
target("added latency of `bridge --http` over a direct client, p50 of sequential `tools/call`", `≤ mcp-remote's (+${added("mcp-remote").toFixed(2)} ms)`, `+${added("bridge").toFixed(2)} ms`, added("bridge") <= added("mcp-remote"));
const bridgeAbort = remote.abort.cases.find((c) => c.hop === "bridge");
const abortClean = bridgeAbort.cancels.length === 1 && bridgeAbort.cancels[0].forThisCall && bridgeAbort.lateProgressAtClient === 0 && bridgeAbort.lateResponseAtClient === 0;
target("a call aborted through `bridge --http`: one `notifications/cancelled` upstream for it, nothing late at the client", "yes", describeAbort(bridgeAbort), abortClean);
const rate = (w, floors = remote.floors) => {
  const x = floors.summary[w].perSecond;
  return floors.rounds > 1 ? `${x.median.toFixed(0)}/s (${x.range[0].toFixed(0)}–${x.range[1].toFixed(0)})` : `${x.median.toFixed(0)}/s`;
};
target("`tools/call` per second through one `bridge --stdio`, 50 SDK 1.x clients (clients, bridge and server on this machine)", "≥ 2,000/s", rate("bridge"), remote.instance.perSecond >= 2000);
target("the same, one bridge on a core of its own (1 / its CPU time per call)", "(reference: ≥ 2,000/s is ≤ 500 µs per call)", `${remote.instance.bridgeAloneCeiling.toFixed(0)}/s (${remote.instance.cpuPerCallUs.bridge.toFixed(0)} µs per call)`, true);
target("its floor, same run and clients: (b) the SDK 1.x Streamable HTTP server transport + McpServer, tool in process (no bridge, no child)", "(reference: what any bridge on the SDK's transport can reach here)", `${rate("sdk")}, ${remote.floors.summary.sdk.serverUs.median.toFixed(0)} µs per call`, true);
target("(a) Node's http alone answering the JSON-RPC, same clients", "(reference: what these clients can drive here)", `${rate("bare")}, ${remote.floors.summary.bare.serverUs.median.toFixed(0)} µs per call`, true);
const light = remote.floorsLight.summary;
target("`tools/call` per second through one `bridge --stdio`, 50 light clients (plain HTTP requests, same sessions and calls; all on this machine)", "≥ 2,000/s", `${rate("bridge", remote.floorsLight)}; (b) ${rate("sdk", remote.floorsLight)}, (a) ${rate("bare", remote.floorsLight)}`, light.bridge.perSecond.median >= 2000);

// ----- outputs -----
const results = { machine, ops, inlining: inline, attribution, sdk, relay, remote, memory, files, floorFiles: floors, wasmBytes: bytes, startup: start, pairedStartup: paired, criterion, targets, seconds: Math.round((Date.now() - started) / 1000) };
writeFileSync(`${root}/bench/results.json`, `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(`${root}/bench/chart.svg`, scenarioOneChart(ops));

const ns = (x) => (x >= 10_000 ? `${(x / 1000).toFixed(1)} µs` : `${x.toFixed(0)} ns`);
const md = [];
md.push(`Measured ${machine.date} on ${machine.cpu} (${machine.cores} cores, ${machine.memoryGiB} GiB), ${machine.os}; Node ${machine.node}, ${machine.rustc}, ${machine.wasmBindgen}, ${machine.wasmOpt}; MCP TypeScript SDK ${machine.sdk}, tinybench ${machine.tinybench}, criterion ${machine.criterion}.${quick ? " **Quick run (--quick): fewer rounds, shorter times.**" : ""} The whole run took ${results.seconds} s.`);
md.push("");
md.push("### Targets");
md.push("");
md.push("| target | goal | measured | met |");
md.push("|---|---|---|---|");
for (const t of targets) md.push(`| ${t.what} | ${t.goal} | ${t.value} | ${t.met ? "yes" : "**no**"} |`);
md.push("");
md.push("### Scenarios 1-3: ns per operation, mcp-cancel and the pure-JS baseline in one process");
md.push("");
md.push("Median of tinybench samples of 100 operations each, the lower of two rounds. One operation is the whole sequence: scenario 1 `new AbortController()` + `track(id, \"tools/call\", { signal })` + `shouldDropResponse(id)`; 1b the same without a signal (what `guardTransport` does per request); 2 `track` + `abort(\"user pressed stop\")` (the `notifications/cancelled` goes to `send`) + the late response dropped; 3 the peer's request through `shouldDropIncoming()` + `inboundSignal(id)` + the peer's `notifications/cancelled` through `shouldDropIncoming()` (the signal aborts) + our response `beforeSend()` suppressed. The baseline does the same with the TS SDK's structures (bench/baseline.mjs).");
md.push("");
md.push("| scenario | ids | in flight | mcp-cancel | JS baseline | ratio |");
md.push("|---|---|---:|---:|---:|---:|");
for (const r of ops) md.push(`| ${r.scenario} ${r.label} | ${r.ids} | ${r.inFlight.toLocaleString("en-US")} | ${ns(r.mcpNs)} | ${ns(r.jsNs)} | ${r.ratio.toFixed(2)}× |`);
md.push("");
md.push("Scenarios 1 and 2 against a leak-free baseline — the same bookkeeping plus removing the `abort` listener when the response arrives or the signal aborts, as mcp-cancel does and the SDK 1.x does not (`LeakFreePending` in bench/baseline.mjs; a listener left on a signal of `AbortSignal.any()` keeps ~1.2 KB for good in Node 20), measured in the same tinybench runs:");
md.push("");
md.push("| scenario | ids | in flight | mcp-cancel | leak-free JS | ratio |");
md.push("|---|---|---:|---:|---:|---:|");
for (const r of ops.filter((r) => r.leakFreeNs !== undefined)) {
  md.push(`| ${r.scenario} ${r.label} | ${r.ids} | ${r.inFlight.toLocaleString("en-US")} | ${ns(r.mcpNs)} | ${ns(r.leakFreeNs)} | ${r.leakFreeRatio.toFixed(2)}× |`);
}
md.push("");
md.push("What the JS objects the API promises cost alone, in the same process (ns each): " + Object.entries(attribution).map(([w, v]) => `${w}: ${v.toFixed(0)}`).join("; ") + ".");
md.push("");
md.push("![ns/op vs requests in flight](bench/chart.svg)");
md.push("");
md.push(...sdkSection(sdk, machine));
md.push("");
md.push("### The relay: added latency per forwarded message");
md.push("");
md.push(`${relay.calls.toLocaleString("en-US")} sequential \`tools/call\` round trips per connection and round, ${relay.rounds} rounds, through one hop between two \`InMemoryTransport\` pairs (SDK ${machine.sdk} \`Client\` → hop → in-process \`McpServer\`, 100-byte result): a plain pipe (each message handed on as it is) or \`createRelay\` (bench/relay.mjs). Blocks of 500 in ABBA/BAAB order, the median of ${relay.blocks} blocks each.`);
md.push("");
md.push("| hop | per round trip | added per forwarded message |");
md.push("|---|---:|---:|");
md.push(`| plain pipe | ${relay.pipeUs.toFixed(1)} µs | — |`);
md.push(`| createRelay | ${relay.relayUs.toFixed(1)} µs | ${relay.perMessageUs.toFixed(2)} µs (${relay.overheadPct.toFixed(1)}% per round trip) |`);
md.push("");
md.push(...remoteSection(remote));
md.push("### Memory");
md.push("");
md.push("| requests in flight (100 000, `track(id, \"tools/call\"[, { signal }])`) | wasm linear memory per request | slope | the id's own bytes |");
md.push("|---|---:|---:|---:|");
for (const r of memory.perRequest) md.push(`| ${r.ids} ids${r.withSignal ? ", with signal" : ""} | ${r.averageBytes.toFixed(0)} B | ${r.slopeBytes.toFixed(0)} B | ${r.idBytes} |`);
md.push("");
md.push("| after | wasm linear memory | JS heap (after gc) |");
md.push("|---|---:|---:|");
for (const s of flood) md.push(`| ${s.label} | ${(s.wasmBytes / KB).toFixed(0)} KiB | ${(s.jsHeapBytes / 2 ** 20).toFixed(1)} MiB |`);
md.push("");
md.push(`Tombstones after the floods: ${memory.floods.tombstones} (capacity 1024); requests in flight: ${memory.floods.inFlight}.`);
md.push("");
md.push("### Size and start-up");
md.push("");
md.push("| file | what | bytes | gzip -9 |");
md.push("|---|---|---:|---:|");
for (const f of files) md.push(`| \`${f.path}\` | ${f.what} | ${f.raw.toLocaleString("en-US")} | ${f.gzip.toLocaleString("en-US")} |`);
for (const f of floors) md.push(`| \`${f.path}\` | the floor's \`.wasm\` (${f.what}) | ${f.raw.toLocaleString("en-US")} | ${f.gzip.toLocaleString("en-US")} |`);
md.push("");
md.push(`The size row's floor (issue #24: a row not met is judged against a prototype of its floor, measured in the same run): bench/floor-rules, every rule the session's \`.wasm\` runs — our requests (track, response, cancel, the reason's policy and bound, \`initialize\`, progress, timeouts and the maximum total, tombstones and late progress), the peer's requests (its cancels and every reason to ignore one, our suppressed responses, \`subscriptions/listen\` in 2026-07-28), tasks both ways, the revisions and the transport's signal, the messages' classification, \`close\`, and the events and errors as numbers with their texts — written for size: \`no_std\` with panics as traps, one table for every kind of key, numbers-only exports, JS calling what the outputs say. It is **${(rulesFloor.gzip / KB).toFixed(1)} KiB** gzip -9; ours is ${(wasmFile.gzip / rulesFloor.gzip).toFixed(1)}× it. Its speed, scenario 1b in one process (bench/floors-1b.mjs, best of ${quick ? 1 : 3} rounds, ns per track → response; the issue asks a floor to be at least as fast as ../shared/floor): ${floorSpeed.map((r) => `${r.ids} ids at ${r.inFlight} in flight ${r.rulesFloor.toFixed(0)} ns against ${r.sharedFloor.toFixed(0)} (ours ${r.ours.toFixed(0)})`).join("; ")} — ${rulesFloorFast ? "as fast, within 5%" : "**slower than ../shared/floor**: it is a floor of the rules' size, not yet of the size row (a floor that also keeps the speed rows would be larger)"}.`);
md.push("");
md.push("Where the bytes of the session's `.wasm` are (bench/wasm-bytes.mjs: `twiggy top` of the release build through `wasm-opt -O3 -g`, names kept, each item under the module it belongs to), before core v2 (7acc0d8) and now:");
md.push("");
if (bytes.missing) {
  md.push(`(not measured in this run: ${bytes.missing})`);
} else {
  md.push("| module or library | 7acc0d8 bytes | now bytes |");
  md.push("|---|---:|---:|");
  const groups = [...new Set([...Object.keys(bytes.groups), ...Object.keys(bytesBefore.groups)])].sort((a, b) => (bytes.groups[b] ?? 0) - (bytes.groups[a] ?? 0));
  for (const g of groups) md.push(`| ${g} | ${(bytesBefore.groups[g] ?? 0).toLocaleString("en-US")} | ${(bytes.groups[g] ?? 0).toLocaleString("en-US")} |`);
  md.push(`| **all** | **${bytesBefore.total.toLocaleString("en-US")}** | **${bytes.total.toLocaleString("en-US")}** |`);
}
md.push("");
md.push(`Start-up over a bare process: \`node\` running \`import("mcp-cancel")\` + a session + its first \`track()\`, against \`node --input-type=module -e ""\` (a bare node process running an ES module), ${paired.runs} pairs run alternately, whole processes timed from outside: the median difference is **+${paired.addedMs.toFixed(1)} ms** (a bare \`node\` takes ${paired.bareMs.toFixed(1)} ms). Against the same probe importing a one-class CommonJS file instead (bench/fixtures/empty.cjs: Node's own cost of starting its module loader and a first dynamic import, which \`-e ""\` never pays), run in the same alternation: **+${paired.overFloorMs.toFixed(1)} ms**. Against the same probe importing a one-line ES module package from \`node_modules\` (bench/fixtures/node_modules/one-line: a user's honest alternative, issue #24's yardstick), in the same alternation: **+${paired.overOneLineMs.toFixed(1)} ms** (budget ≤ +3 ms). The floor of that row, in the same alternation (issue #24's "prototype of the floor"): the same probe importing bench/fixtures/node_modules/floor — the 32.5 KB \`.wasm\` of ../shared/floor (the least a wasm core can be for track → response) loaded exactly as this package's Node build is for \`import\` (one ES module bundle with the web glue, the \`.wasm\` read in one call, \`new WebAssembly.Module\` + \`initSync\`), a constructor that makes its table and a \`track()\` of one numbers-only call (bench/floor/build.sh) — takes **+${paired.wasmFloorOverOneLineMs.toFixed(1)} ms** over the one-line package; mcp-cancel takes **+${paired.overWasmFloorMs.toFixed(1)} ms** over the floor. The floor of the session's whole rule set (bench/fixtures/node_modules/floor-rules, the .wasm above loaded the same way, bench/floor-rules/build.sh), in the same alternation: **+${paired.rulesFloorOverOneLineMs.toFixed(1)} ms** over the one-line package; mcp-cancel **+${paired.overRulesFloorMs.toFixed(1)} ms** over it.`);
md.push("");
md.push(`Inside the same processes (each probe's own \`performance.now()\` from before \`import\` to after the first \`track()\`: no process start or exit in it, so it moves less from run to run): mcp-cancel **${inside.ms.toFixed(2)} ms**, the floor's fixture ${inside.wasmFloorMs.toFixed(2)} ms, the one-line package ${inside.oneLineMs.toFixed(2)} ms; paired medians: ours over the one-line package **+${inside.overOneLineMs.toFixed(2)} ms**, the floor's +${inside.wasmFloorOverOneLineMs.toFixed(2)} ms, ours over the floor's **+${inside.overWasmFloorMs.toFixed(2)} ms**; the rule set's floor ${inside.rulesFloorMs.toFixed(2)} ms, +${inside.rulesFloorOverOneLineMs.toFixed(2)} ms over the one-line package, ours over it **+${inside.overRulesFloorMs.toFixed(2)} ms**.`);
md.push("");
md.push(`Start-up, \`await import("mcp-cancel")\` to the first \`track()\` returning, in ${start.runs} fresh \`node\` processes: median **${start.medianMs.toFixed(1)} ms** (min ${start.minMs.toFixed(1)}, max ${start.maxMs.toFixed(1)}). The same probe importing a one-class CommonJS file (bench/fixtures/empty.cjs) takes ${start.floorMs.toFixed(1)} ms: Node's own floor for a first dynamic import.`);
md.push("");
if (criterion.length > 0) {
  md.push("### The core alone (criterion, native)");
  md.push("");
  md.push("The same sequences on `mcp_cancel::core::Session` in Rust, without JS or wasm (median, `cargo bench --bench core`):");
  md.push("");
  md.push("| scenario | in flight | ns/op |");
  md.push("|---|---:|---:|");
  for (const c of criterion) md.push(`| ${c.group} | ${c.inFlight.toLocaleString("en-US")} | ${c.ns.toFixed(0)} |`);
  md.push("");
}
// Before and after: the same benchmarks run against the package at an earlier commit
// (bench/compare.sh writes bench/results-<commit>.json).
for (const name of readdirSync(`${root}/bench`).filter((f) => /^results-[0-9a-f]+\.json$/.test(f))) {
  const before = JSON.parse(readFileSync(`${root}/bench/${name}`, "utf8"));
  const commit = name.slice("results-".length, -".json".length);
  const key = (r) => `${r.scenario}|${r.ids}|${r.inFlight}`;
  const old = new Map(before.ops.map((r) => [key(r), r]));
  md.push(`### Before and after: the package at ${commit} and now`);
  md.push("");
  md.push(`The package at commit ${commit} as \`npm run bench\` measured it on ${(before.date ?? before.machine?.date ?? "").slice(0, 10)} on a machine of the same kind (file bench/${name}: that commit's bench/results.json, or \`bash bench/compare.sh ${commit}\`), and now. Ratios are to the JS baseline of the same run.`);
  md.push("");
  md.push("| measure | before | now |");
  md.push("|---|---:|---:|");
  for (const r of ops.filter((r) => r.inFlight <= 100)) {
    const b = old.get(key(r));
    if (b) md.push(`| scenario ${r.scenario}, ${r.ids} ids, ${r.inFlight} in flight | ${ns(b.mcpNs)} (×${b.ratio.toFixed(2)}) | ${ns(r.mcpNs)} (×${r.ratio.toFixed(2)}) |`);
  }
  md.push(`| scenario 4: the guard's own work per round trip (100 B result) | ${before.sdk.guardNs.small.toFixed(0)} ns | ${sdk.guardNs.small.toFixed(0)} ns |`);
  md.push(`| scenario 4: guarded round trip overhead (100 B result; before: two separately timed medians, now: paired, collections taken out) | ${before.sdk.small.overheadPct.toFixed(1)}% | ${sdk.small.overheadPct.toFixed(1)}% |`);
  const perReq = (m) => m.perRequest.find((r) => r.ids === "number" && !r.withSignal).averageBytes.toFixed(0);
  md.push(`| wasm memory per request in flight (number ids, no signal) | ${perReq(before.memory)} B | ${perReq(memory)} B |`);
  const bw = before.files.find((f) => f.path.endsWith(".wasm"));
  md.push(`| .wasm raw / gzip -9 | ${bw.raw.toLocaleString("en-US")} / ${bw.gzip.toLocaleString("en-US")} B | ${wasmFile.raw.toLocaleString("en-US")} / ${wasmFile.gzip.toLocaleString("en-US")} B |`);
  md.push(`| import → first track(), median (Node's floor) | ${before.startup.medianMs.toFixed(1)} ms (${before.startup.floorMs.toFixed(1)}) | ${start.medianMs.toFixed(1)} ms (${start.floorMs.toFixed(1)}) |`);
  md.push("");
}
const block = md.join("\n");

const file = `${root}/BENCHMARKS.md`;
const BEGIN = "<!-- bench:begin (written by bench/run.mjs) -->";
const END = "<!-- bench:end -->";
let text = existsSync(file) ? readFileSync(file, "utf8") : `# Benchmarks\n\n${BEGIN}\n${END}\n`;
if (!text.includes(BEGIN) || !text.includes(END)) text += `\n${BEGIN}\n${END}\n`;
text = `${text.slice(0, text.indexOf(BEGIN) + BEGIN.length)}\n${block}\n${text.slice(text.indexOf(END))}`;
writeFileSync(file, text);
say(`wrote BENCHMARKS.md, bench/results.json and bench/chart.svg in ${results.seconds} s`);
const missed = targets.filter((t) => !t.met);
say(`targets met: ${targets.length - missed.length} of ${targets.length}${missed.length ? ` (missed: ${missed.map((t) => t.what).join("; ")})` : ""}`);

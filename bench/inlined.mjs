// What the compiler copied where in the session's .wasm (issue #24, size): twiggy
// (bench/wasm-bytes.mjs) names the functions that are left after inlining, so a helper that
// LLVM copied into sixty callers shows up nowhere. This report reads the .wasm's DWARF
// instead: every inlined copy of a function is a `DW_TAG_inlined_subroutine` with the code
// ranges it became, so it can say how many copies of each function there are and how many
// bytes they take in all (a helper worth writing once: `#[inline(never)]`), and, byte by
// byte, which of our functions the code came from (with what it inlined from the standard
// library and the crates counted to it).
//
//   node bench/inlined.mjs [--top N]
//
// It builds the session's .wasm as scripts/build.sh does (release, `--no-default-features`,
// the flags of .cargo/config.toml) with line tables and inlining records
// (`CARGO_PROFILE_RELEASE_DEBUG=1`, into target/inlined/ so the release build is not
// touched), and reads it with `llvm-dwarfdump` (LLVM's; Debian: `apt install llvm`; any
// `llvm-dwarfdump-<version>` on the PATH will do). What it measures is the module as the
// linker leaves it — before wasm-bindgen (which removes its `describe` functions) and
// `wasm-opt -O3` (which inlines a little more and shrinks the rest): the shipped module is
// ~10% smaller, and only it decides (bench/size.mjs). A measurement for whoever looks for
// bytes, not part of `npm run bench`.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const topAt = args.indexOf("--top");
const TOP = topAt >= 0 ? Number(args[topAt + 1]) : 40;
if (!Number.isInteger(TOP) || TOP <= 0) {
  console.error("usage: node bench/inlined.mjs [--top N]");
  process.exit(2);
}

/** The first `llvm-dwarfdump` (or `llvm-dwarfdump-<n>`, the newest) on the PATH. */
function dwarfdump() {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    let names;
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    const found = names.filter((n) => /^llvm-dwarfdump(-\d+)?$/.test(n)).sort((a, b) => b.length - a.length || b.localeCompare(a));
    if (found.length > 0) return path.join(dir, found[0]);
  }
  return undefined;
}

function run(cmd, argv, env) {
  const r = spawnSync(cmd, argv, { cwd: root, encoding: "utf8", maxBuffer: 1 << 30, env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(" ")} failed: ${r.stderr || r.error}`);
  return r.stdout;
}

/** A Rust symbol (legacy `_ZN…E` mangling) as a path without its hash; others as they are. */
export function demangle(symbol) {
  const m = /^_ZN(.*)E$/.exec(symbol);
  if (!m) return symbol;
  let rest = m[1];
  const parts = [];
  while (/^\d/.test(rest)) {
    const n = /^\d+/.exec(rest)[0];
    rest = rest.slice(n.length);
    parts.push(rest.slice(0, Number(n)));
    rest = rest.slice(Number(n));
  }
  if (parts.length > 0 && /^h[0-9a-f]{16}$/.test(parts.at(-1))) parts.pop();
  const escapes = { $LT$: "<", $GT$: ">", $u20$: " ", $RF$: "&", $C$: ",", $u7b$: "{", $u7d$: "}", $BP$: "*", $u5b$: "[", $u5d$: "]", $u27$: "'", $LP$: "(", $RP$: ")" };
  return parts.join("::").replace(/\$(LT|GT|u20|RF|C|u7b|u7d|BP|u5b|u5d|u27|LP|RP)\$/g, (e) => escapes[e]).replaceAll("..", "::");
}

/** Code ranges `[from, to)` by `.debug_ranges` offset; a dead function's (address 0 or a tombstone) left out. */
export function parseRanges(text) {
  const ranges = new Map();
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]{8}) ([0-9a-f]{8}) ([0-9a-f]{8})$/.exec(line.trim());
    if (!m) continue;
    const [offset, from, to] = [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)];
    if (from > 0 && from < 0xfff00000) ranges.set(offset, [...(ranges.get(offset) ?? []), [from, to]]);
  }
  return ranges;
}

/**
 * The functions and their inlined copies of a `llvm-dwarfdump --debug-info` text: `{ depth,
 * inlined, name, ranges }` in the order of the tree (`depth`: an inlined copy is deeper than
 * the function it is in). Entries of code the linker dropped have no ranges.
 */
export function parseEntries(text, ranges) {
  const entries = [];
  for (const block of text.split(/\n(?=0x[0-9a-f]+: )/)) {
    const head = /^0x[0-9a-f]+:( +)(DW_TAG_\w+|NULL)/.exec(block);
    if (!head) continue;
    const depth = head[1].length;
    const tag = head[2];
    if (tag !== "DW_TAG_subprogram" && tag !== "DW_TAG_inlined_subroutine") continue;
    const named = /DW_AT_(?:abstract_origin|specification)\t\(0x[0-9a-f]+ "([^"]+)"\)|DW_AT_linkage_name\t\("([^"]+)"\)|DW_AT_name\t\("([^"]+)"\)/.exec(block);
    const name = named ? demangle(named[1] ?? named[2] ?? named[3]) : "?";
    let code = [];
    const low = /DW_AT_low_pc\t\(0x([0-9a-f]+)\)/.exec(block);
    const high = /DW_AT_high_pc\t\(0x([0-9a-f]+)\)/.exec(block);
    if (low && high) {
      const from = parseInt(low[1], 16);
      if (from > 0 && from < 0xfff00000) code = [[from, parseInt(high[1], 16)]];
    } else {
      const at = /DW_AT_ranges\t\(0x([0-9a-f]+)/.exec(block);
      if (at) code = ranges.get(parseInt(at[1], 16)) ?? [];
    }
    entries.push({ depth, inlined: tag === "DW_TAG_inlined_subroutine", name, ranges: code });
  }
  return entries;
}

const bytesOf = (ranges) => ranges.reduce((n, [from, to]) => n + (to - from), 0);

/** `[{ name, copies, bytes }]`: each function inlined somewhere, its copies and their bytes in all. */
export function copies(entries) {
  const by = new Map();
  for (const e of entries) {
    if (!e.inlined || e.ranges.length === 0) continue;
    const row = by.get(e.name) ?? { name: e.name, copies: 0, bytes: 0 };
    row.copies += 1;
    row.bytes += bytesOf(e.ranges);
    by.set(e.name, row);
  }
  return [...by.values()];
}

/** `[{ name, bytes }]`: each byte of code counted to the innermost function of ours it came from. */
export function ownBytes(entries, ours = (name) => name.startsWith("mcp_cancel::")) {
  const owner = new Map();
  // Outer entries first, so an inner one (a deeper copy) overwrites them.
  const sorted = entries.filter((e) => e.ranges.length > 0 && ours(e.name)).sort((a, b) => a.depth - b.depth);
  for (const e of sorted) for (const [from, to] of e.ranges) for (let at = from; at < to; at++) owner.set(at, e.name);
  const by = new Map();
  for (const name of owner.values()) by.set(name, (by.get(name) ?? 0) + 1);
  return [...by].map(([name, bytes]) => ({ name, bytes }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tool = dwarfdump();
  if (!tool) {
    console.error("bench/inlined.mjs: llvm-dwarfdump is not on the PATH (LLVM's tools; Debian: apt install llvm)");
    process.exit(1);
  }
  const target = path.join(root, "target", "inlined");
  run("cargo", ["build", "--quiet", "--release", "--target", "wasm32-unknown-unknown", "--lib", "--no-default-features"], {
    CARGO_PROFILE_RELEASE_DEBUG: "1",
    CARGO_TARGET_DIR: target,
  });
  const wasm = path.join(target, "wasm32-unknown-unknown", "release", "mcp_cancel.wasm");
  const entries = parseEntries(run(tool, ["--debug-info", wasm]), parseRanges(run(tool, ["--debug-ranges", wasm])));
  const code = entries.filter((e) => !e.inlined).reduce((n, e) => n + bytesOf(e.ranges), 0);
  const short = (name) => (name.length > 110 ? `${name.slice(0, 107)}...` : name);

  console.log(`The session's .wasm as linked (before wasm-bindgen and wasm-opt): ${code} bytes of code in functions.\n`);
  console.log(`Inlined in 3 places or more, by the bytes of all copies (top ${TOP}):`);
  console.log("| bytes | copies | each | function |\n|---:|---:|---:|---|");
  const many = copies(entries).filter((r) => r.copies >= 3).sort((a, b) => b.bytes - a.bytes);
  for (const r of many.slice(0, TOP)) console.log(`| ${r.bytes} | ${r.copies} | ${Math.round(r.bytes / r.copies)} | \`${short(r.name)}\` |`);
  console.log(`\nBytes by the innermost function of ours they came from (top ${TOP}):`);
  console.log("| bytes | function |\n|---:|---|");
  for (const r of ownBytes(entries).sort((a, b) => b.bytes - a.bytes).slice(0, TOP)) console.log(`| ${r.bytes} | \`${short(r.name)}\` |`);
}

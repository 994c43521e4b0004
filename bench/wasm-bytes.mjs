// Where the bytes of the session's .wasm are: the release build (`cargo build --release
// --target wasm32-unknown-unknown --no-default-features`: what `import "mcp-cancel"` loads)
// through `wasm-bindgen --keep-debug` and `wasm-opt -Oz -g`, then `twiggy top` (names kept, so
// the total is a little above the shipped, stripped file), each function or data item counted
// once under the module it belongs to. Needs `twiggy` (`scripts/setup.sh --bench` installs
// it); without it the report says so and the bench goes on.
//
//   node bench/wasm-bytes.mjs
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The group of a twiggy item's name: a module of ours, or the library it comes from. */
export function groupOf(name) {
  if (name.startsWith('"function names"')) return undefined;
  const ours = /mcp_cancel::(core|wasm)::(\w+)/.exec(name);
  if (ours) return `${ours[1]}::${ours[2]}`;
  if (/^(sessioncore|relaycore)_/.test(name)) return "exports (their bodies inlined) and shims";
  if (name.includes("serde_json")) return "serde_json";
  if (name.includes("hashbrown")) return "hashbrown";
  if (/rlsf|talc|__rust_(alloc|realloc|dealloc)|dlmalloc/.test(name)) return "allocator";
  if (name.includes("fmt")) return "core::fmt";
  if (name.startsWith("data segment")) return "data";
  if (/wasm_bindgen|js_sys|__wbg|__wbindgen|externref/.test(name)) return "wasm-bindgen, js-sys";
  return "std and other";
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr || r.error}`);
  return r.stdout;
}

/** `{ groups: { [group]: bytes }, total }` of the session's .wasm now, or `{ missing }`. */
export function wasmBytes() {
  if (spawnSync("twiggy", ["--version"]).status !== 0) return { missing: "twiggy is not installed (cargo install twiggy)" };
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-cancel-twiggy-"));
  try {
    // The project's own target folder: only the crate itself is rebuilt (the dependencies
    // are cached by scripts/build.sh's builds).
    const target = path.join(root, "target");
    run("cargo", ["build", "--quiet", "--release", "--target", "wasm32-unknown-unknown", "--no-default-features"]);
    run("wasm-bindgen", ["--keep-debug", "--target", "nodejs", "--out-dir", dir, path.join(target, "wasm32-unknown-unknown/release/mcp_cancel.wasm")]);
    const named = path.join(dir, "named.wasm");
    run(path.join(root, "node_modules/.bin/wasm-opt"), ["-Oz", "-g", path.join(dir, "mcp_cancel_bg.wasm"), "-o", named]);
    const csv = run("twiggy", ["top", "-n", "100000", "--format", "csv", named]);
    const groups = {};
    for (const line of csv.split("\n").slice(1)) {
      // Name,ShallowSize,ShallowSizePercent,RetainedSize,RetainedSizePercent (the name
      // quoted, quotes doubled, when it has a comma or a quote; the retained columns empty).
      const m = /^(.*),(\d+),[\d.e-]+,[\d.]*,[\d.e-]*$/.exec(line);
      if (!m) continue;
      const name = m[1].startsWith('"') ? m[1].slice(1, -1).replaceAll('""', '"') : m[1];
      const group = groupOf(name);
      if (group !== undefined) groups[group] = (groups[group] ?? 0) + Number(m[2]);
    }
    return { groups, total: Object.values(groups).reduce((a, b) => a + b, 0) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(wasmBytes(), null, 2));

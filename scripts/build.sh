#!/usr/bin/env bash
# Builds the npm package's wasm (release: cargo build, scripts/no-multivalue.mjs, wasm-bindgen,
# wasm-opt; what `wasm-pack build` runs, with the step between):
#   pkg/web/   wasm-bindgen --target web: ES module glue, init() fetches the .wasm (browsers,
#              bundlers) or initSync() takes a compiled module; the Node entry bundles this
#              glue too (dist/node/index.cjs) and reads this .wasm
#   pkg/relay-node/  wasm-bindgen --target nodejs with the relay (feature `relay`): CommonJS glue
#              that loads its .wasm synchronously; createRelay() and `mcp-cancel bridge` load
#              it, so the session's .wasm does not carry the relay
# and the browser demo page's bundle, www/dist/ (www/build.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
# Start from empty output folders: files of an earlier build must not ship (pkg/node/ too: no
# step builds it, and a checkout may still hold a nodejs glue and .wasm there from an older layout).
rm -rf pkg/node pkg/web pkg/relay-node
# One .wasm: `wasm_build <out-dir> <out-name> <wasm-bindgen target> [cargo args...]`. The steps
# of `wasm-pack build` (its output was byte for byte the same) with two steps of our own, both
# for start-up (each script says why): scripts/no-multivalue.mjs between cargo and
# wasm-bindgen (no export returns multi-value, so V8 compiles no wrapper per signature when the
# module is compiled), and scripts/import-arity.mjs on the JS glue (no second wrapper per
# import signature when it is instantiated).
wasm_build() {
  local out=$1 name=$2 target=$3
  shift 3
  printf '\033[1m[build]\033[0m %s\n' "cargo build --release $* + wasm-bindgen --target $target + wasm-opt -> $out"
  # Without the feature `std`: the package's .wasm is `no_std` (Cargo.toml says why).
  cargo build --quiet --release --target wasm32-unknown-unknown --lib --no-default-features "$@"
  local release="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release"
  local linked="$release/bindgen-input.wasm"
  cp "$release/mcp_cancel.wasm" "$linked"
  node scripts/no-multivalue.mjs "$linked"
  wasm-bindgen --target "$target" --out-dir "$out" --out-name "$name" "$linked"
  # Each `catch` import declared with its parameters: no second wasm-to-JS wrapper per
  # signature when the module is instantiated (start-up; the script says why).
  node scripts/import-arity.mjs "$out/$name.js"
  # -Oz, for both .wasm: the Rust side (opt-level 3) has already inlined the hot path, so
  # Binaryen's size passes leave it as it is (the session's: bench scenario 1b under callgrind
  # runs the same instructions per request as with -O3) and the session's .wasm is 287 B gzip
  # smaller. Repeated until it no longer shrinks the module (`--converge`: ~0.1% raw, 0.25%
  # gzip); no producers, debug or target-features sections (nothing reads them once the module
  # is built; BENCHMARKS.md: what is in the .wasm).
  # `--low-memory-unused`: the first 1 KiB of linear memory is never addressed (Rust's data
  # starts at 1 MiB and its stack grows down from there: reaching the low 1 KiB would take a
  # stack of ~1 MiB, an overflow already), so a constant added to an address can be folded into
  # the load's or store's offset (Binaryen's OptimizeAddedConstants; what Emscripten does when
  # its data starts above 1 KiB): the session's .wasm 187 B gzip smaller.
  wasm-opt -Oz --low-memory-unused --converge --strip-producers --strip-debug --strip-target-features "$out/${name}_bg.wasm" -o "$out/${name}_bg.wasm"
}
# wasm-bindgen's own switch back to multi-value (an environment variable) must not undo it.
unset WASM_BINDGEN_MULTI_VALUE
wasm_build pkg/web mcp_cancel web
# The web glue makes its TextDecoder at first use, not at import (scripts/glue-decoder.mjs).
node scripts/glue-decoder.mjs pkg/web/mcp_cancel.js
wasm_build pkg/relay-node mcp_cancel_relay nodejs --features relay
echo '{ "type": "commonjs" }' > pkg/relay-node/package.json
# The core's tables (`SessionCore.constantsJson()`: methods, members to read, verdicts, tags) as
# a module of pkg/web/ that js/session.js imports, their text and each of their numbers as a
# constant (scripts/write-tables.mjs): the session's .wasm does not carry them (size and
# start-up), the relay's build gives them (`RelayCore.sessionConstantsJson()`).
node scripts/write-tables.mjs
# The JS caller of each export of the session's .wasm, from src/wasm/exports.rs's list (their
# argument order and types), as pkg/web/mcp_cancel_calls.js: the JS layer calls the exports
# only through it (scripts/write-calls.mjs; an exports.rs it does not understand stops here).
node scripts/write-calls.mjs
# dist/node/index.cjs, the Node entry, and dist/node/relay.cjs, createRelay()'s JavaScript
# (scripts/bundle-node.mjs).
printf '\033[1m[build]\033[0m %s\n' "esbuild js/node/entry.js -> dist/node/index.cjs, js/relay.js -> dist/node/relay.cjs"
rm -rf dist/node
node scripts/bundle-node.mjs
# The glue's typings declare `[Symbol.dispose]()`, which needs TypeScript's `esnext.disposable`
# lib: drop that line so users on an ES2022 lib type-check without skipLibCheck (the method
# itself stays at runtime).
sed -i '/\[Symbol\.dispose\]()/d' pkg/web/mcp_cancel.d.ts pkg/relay-node/mcp_cancel_relay.d.ts
# Its typings: js/index.d.ts as a CommonJS declaration file (it imports no relative path).
cp js/index.d.ts dist/node/index.d.cts
wasm_bytes=$(wc -c < pkg/web/mcp_cancel_bg.wasm)
gz_bytes=$(gzip -9 -c pkg/web/mcp_cancel_bg.wasm | wc -c)
printf '\033[1m[build]\033[0m %s\n' "pkg/web/mcp_cancel_bg.wasm: $wasm_bytes bytes, $gz_bytes gzip"
# www/dist/: the browser demo page's bundle (www/app.js with the MCP SDK client and the
# browser build above, by esbuild) and the .wasm next to it (npm run demo:web, pkg-tests).
node www/build.mjs

#!/usr/bin/env bash
# Rebuilds bench/fixtures/node_modules/floor/, the start-up floor that bench/size.mjs measures
# beside mcp-cancel (issue #24): the .wasm of ../shared/floor (the least a wasm core can be
# for track → response: 32.5 KB) wrapped in a package loaded exactly as mcp-cancel's Node
# build is for `import` — one minified ES module bundle (the web wasm-bindgen glue + a
# one-method CancellationSession, by esbuild), which reads the .wasm in one call and
# instantiates it with `initSync`. The outputs are checked in (38 KB), so
# `npm run bench` needs neither ../shared/floor nor its crate; run this after either changes:
#   bash bench/floor/build.sh        (from the project root; FLOOR_SRC=path/to/floor to override)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
src=${FLOOR_SRC:-../shared/floor}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=bench/fixtures/node_modules/floor
CARGO_TARGET_DIR="$tmp/target" cargo build --quiet --release --target wasm32-unknown-unknown --manifest-path "$src/Cargo.toml"
wasm-bindgen --target web --out-dir "$tmp/pkg" "$tmp/target/wasm32-unknown-unknown/release/floor.wasm"
wasm-opt -O3 "$tmp/pkg/floor_bg.wasm" -o "$out/floor_bg.wasm"
cp "$tmp/pkg/floor.js" "$tmp/glue.js"
# Its decoder made at first use, as the package's glue (scripts/glue-decoder.mjs).
node scripts/glue-decoder.mjs "$tmp/glue.js"
esbuild bench/floor/entry.js --bundle --minify --platform=node --format=esm --target=node20 --log-level=warning \
  --alias:floor-glue="$tmp/glue.js" --outfile="$out/index.js"
# esbuild names each bundled file in a comment: the glue's temp path would change every build.
sed -i "s#^// .*/glue\.js\$#// wasm-bindgen --target web glue of the floor#" "$out/index.js"
echo "floor fixture: $(wc -c <"$out/floor_bg.wasm") B .wasm, $(wc -c <"$out/index.js") B index.js ($out)"

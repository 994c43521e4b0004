#!/usr/bin/env bash
# Rebuilds bench/fixtures/node_modules/floor-rules/, the size floor of the session's rule set
# (issue #24, the `.wasm` and start-up rows): bench/floor-rules/lib.rs, every rule of the
# session's .wasm written for size (no_std, one table, numbers-only exports), built
# opt-level 3 (its Cargo.toml says why) → wasm-bindgen --target web → `wasm-opt -O3
# --low-memory-unused` (as scripts/build.sh), and wrapped as
# bench/floor/build.sh wraps ../shared/floor's: one minified ES module bundle (as the package's
# dist/node/index.mjs), which reads the .wasm in one call and instantiates it with `initSync`. The
# outputs are checked in, so `npm run bench` needs no second crate build; run this after
# lib.rs changes:
#   bash bench/floor-rules/build.sh        (from the project root)
# It also bundles bench/floor-rules/documented.js into bench/fixtures/node_modules/floor-documented/
# (the floor of the reported row "a first round trip as the README's low-level API makes it").
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=bench/fixtures/node_modules/floor-rules
CARGO_TARGET_DIR=${FLOOR_RULES_TARGET:-$tmp/target} cargo build --quiet --release --target wasm32-unknown-unknown \
  --manifest-path bench/floor-rules/Cargo.toml
wasm-bindgen --target web --out-dir "$tmp/pkg" "${FLOOR_RULES_TARGET:-$tmp/target}/wasm32-unknown-unknown/release/floor_rules.wasm"
wasm-opt -O3 --low-memory-unused --strip-producers --strip-debug "$tmp/pkg/floor_rules_bg.wasm" -o "$out/floor_rules_bg.wasm"
cp "$tmp/pkg/floor_rules.js" "$tmp/glue.js"
# Its decoder made at first use, as the package's glue (scripts/glue-decoder.mjs).
node scripts/glue-decoder.mjs "$tmp/glue.js"
esbuild bench/floor-rules/entry.js --bundle --minify --platform=node --format=esm --target=node20 --log-level=warning \
  --alias:floor-rules-glue="$tmp/glue.js" --outfile="$out/index.js"
sed -i "s#^// .*/glue\.js\$#// wasm-bindgen --target web glue of bench/floor-rules#" "$out/index.js"
# The floor of a documented first round trip (bench/floor-rules/documented.js): the same glue
# and .wasm (read from the floor-rules fixture), its own bundle.
doc=bench/fixtures/node_modules/floor-documented
esbuild bench/floor-rules/documented.js --bundle --minify --platform=node --format=esm --target=node20 --log-level=warning \
  --alias:floor-rules-glue="$tmp/glue.js" --outfile="$doc/index.js"
sed -i "s#^// .*/glue\.js\$#// wasm-bindgen --target web glue of bench/floor-rules#" "$doc/index.js"
# The floors of scenarios 1b and 3 (bench/floor-rules/scenarios.js): the same glue and .wasm,
# their own bundle (bench/floors-1b.mjs and bench/ops.mjs import it).
scen=bench/fixtures/node_modules/floor-scenarios
esbuild bench/floor-rules/scenarios.js --bundle --minify --platform=node --format=esm --target=node20 --log-level=warning \
  --alias:floor-rules-glue="$tmp/glue.js" --outfile="$scen/index.js"
sed -i "s#^// .*/glue\.js\$#// wasm-bindgen --target web glue of bench/floor-rules#" "$scen/index.js"
echo "floor-rules fixture: $(wc -c <"$out/floor_rules_bg.wasm") B .wasm ($(gzip -9 -c "$out/floor_rules_bg.wasm" | wc -c) B gzip -9), $(wc -c <"$out/index.js") B index.js ($out)"

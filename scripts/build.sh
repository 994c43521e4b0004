#!/usr/bin/env bash
# Builds the npm package's wasm: pkg/node/ (wasm-pack --target nodejs, release, wasm-opt -Oz).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
printf '\033[1m[build]\033[0m %s\n' "wasm-pack build --release --target nodejs -> pkg/node"
wasm-pack --quiet build --release --target nodejs --out-dir pkg/node --out-name mcp_cancel --no-pack
# The glue is CommonJS; the package's own entry (js/index.js) is ESM.
echo '{ "type": "commonjs" }' > pkg/node/package.json
rm -f pkg/node/.gitignore
wasm_bytes=$(wc -c < pkg/node/mcp_cancel_bg.wasm)
gz_bytes=$(gzip -9 -c pkg/node/mcp_cancel_bg.wasm | wc -c)
printf '\033[1m[build]\033[0m %s\n' "pkg/node/mcp_cancel_bg.wasm: $wasm_bytes bytes, $gz_bytes gzip"

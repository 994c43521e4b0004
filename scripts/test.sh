#!/usr/bin/env bash
# npm test: every test of mcp-cancel, after setting up what a fresh machine lacks.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
step() { printf '\n\033[1m[test] %s\033[0m\n' "$*"; }

bash scripts/setup.sh --test

step "1/7 core: cargo clippy (no unwrap/expect/panic/indexing in src/) and cargo test (native)"
cargo clippy --quiet --all-targets -- -D warnings
cargo clippy --quiet --target wasm32-unknown-unknown --all-targets -- -D warnings
cargo clippy --quiet --target wasm32-unknown-unknown --all-targets --features relay -- -D warnings
cargo test --quiet

step "2/7 wasm: wasm-pack test --node"
wasm-pack test --node

step "3/7 wasm: wasm-pack test --headless --chrome"
WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless --chrome

step "4/7 build the package"
bash scripts/build.sh

step "5/7 docs: cargo doc and typedoc, warnings are errors"
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps --target wasm32-unknown-unknown --features relay
# The private items' docs too: their links are checked as the public ones' are.
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps --document-private-items --target wasm32-unknown-unknown --features relay
typedoc --treatWarningsAsErrors --emit none --logLevel Warn

step "6/7 fuzz smoke: cargo fuzz, 20 s per target"
bash scripts/fuzz.sh 20

step "7/7 pkg-tests: node:test on the built package (SDK peers, server-everything, packaging, release checks, browsers)"
# Bounded: each test has its own timeout, and the whole run stops after 15 minutes.
timeout 900 node --test --test-concurrency=1 --test-timeout=120000 pkg-tests/

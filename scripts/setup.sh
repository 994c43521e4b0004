#!/usr/bin/env bash
# Installs what mcp-cancel's build, tests and demo need on a fresh Debian 12 machine with
# rustup Rust and Node 20 (see README). Idempotent: takes seconds when all is there.
#
#   scripts/setup.sh         Rust wasm32 target, wasm-pack, wasm-bindgen-cli, npm packages
#   scripts/setup.sh --bench the same, plus twiggy (npm run bench's report of the .wasm's bytes)
#   scripts/setup.sh --test  the same, plus what the tests need: Chromium, chromedriver and
#                            nginx (Debian packages), cargo-fuzz, and the Python MCP peers' venvs
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

want_test=0
want_bench=0
case "${1:-}" in --test | --browser) want_test=1 ;; --bench) want_bench=1 ;; esac

command -v cargo >/dev/null || { echo "[setup] cargo not found: install Rust with rustup first" >&2; exit 1; }
command -v node >/dev/null || { echo "[setup] node not found: install Node.js 20 or later first" >&2; exit 1; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the Rust target wasm32-unknown-unknown (downloads; 1-2 minutes, may look stuck)"
  rustup target add wasm32-unknown-unknown
fi

# The wasm-bindgen CLI must be the exact version of the wasm-bindgen crate (pinned with
# "=" in Cargo.toml), or wasm-pack tries to download one and fails offline.
# (`wasm-bindgen = "=X"` or `wasm-bindgen = { version = "=X", … }`).
wb_version=$(grep -m1 '^wasm-bindgen = ' Cargo.toml | grep -o '"=[0-9.]*"' | tr -d '"=')
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wb_version" ]; then
  say "installing wasm-bindgen-cli $wb_version from crates.io (compiles; about 5 minutes on 2 cores)"
  # Without --locked: one locked dependency is missing from the registry mirror.
  cargo install wasm-bindgen-cli --version "$wb_version" --force
fi

if ! command -v wasm-pack >/dev/null; then
  say "installing wasm-pack 0.15.1 from crates.io (compiles; about 5 minutes on 2 cores)"
  cargo install wasm-pack --version 0.15.1 --locked
fi

# npm packages (the SDK, server-everything, binaryen's wasm-opt, playwright-core, ...).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install`, not `npm ci`: the registry mirror lacks the other platforms' optional
  # binaries (@tailwindcss/oxide-darwin-arm64, ..., pulled in by mcp-use), so the lock file
  # cannot list them and `npm ci` refuses it as out of sync. With an up-to-date lock file
  # `npm install` installs the same versions and leaves the lock file unchanged.
  say "installing npm packages (npm install, from package-lock.json)"
  npm install --no-audit --no-fund
fi

# The JS hosts the tests run the package under (pkg-tests/workers.test.mjs, hosts.test.mjs):
# workerd, deno and bun, dev dependencies from npm. Each binary ships in a per-platform package
# (@cloudflare/workerd-<platform>, @deno/<platform>, @oven/bun-<platform>) that npm installs as
# an optional dependency, and each package's postinstall script puts it in place (bun's
# `bin/bun.exe` is a stub until then). After an install without scripts (`npm ci
# --ignore-scripts`), `npm rebuild <name>` runs the script; nothing is downloaded from GitHub.
if [ "$want_test" = 1 ]; then
  for host in workerd deno bun; do
    if ! "node_modules/.bin/$host" --version >/dev/null 2>&1; then
      say "putting the $host binary in place (npm rebuild $host: its postinstall script)"
      npm rebuild "$host" >/dev/null
    fi
  done
fi

# The commands' package (cli/, npm `mcp-cancel-cli`) imports the library as "mcp-cancel", its
# dependency: in this repository that is the repository itself, linked where Node looks
# (cli/node_modules/mcp-cancel -> ../..). Its other dependencies (the MCP SDKs, cors,
# raw-body) are the repository's dev dependencies, found in ./node_modules above it.
if [ "$(readlink cli/node_modules/mcp-cancel 2>/dev/null)" != "../.." ]; then
  mkdir -p cli/node_modules
  ln -sfn ../.. cli/node_modules/mcp-cancel
fi

# twiggy, for the bench's report of where the .wasm's bytes are (bench/wasm-bytes.mjs).
if [ "$want_bench" = 1 ] && ! twiggy --version >/dev/null 2>&1; then
  say "installing twiggy 0.8.0 from crates.io (compiles; about 2 minutes)"
  cargo install twiggy --version 0.8.0 --locked
fi

if [ "$want_test" = 1 ] && ! cargo fuzz --version >/dev/null 2>&1; then
  say "installing cargo-fuzz 0.13.2 from crates.io (compiles; about 2 minutes)"
  cargo install cargo-fuzz --version 0.13.2 --locked
fi

# Python MCP peers for the real-peer matrix (pkg-tests/peers.test.mjs), one venv per version.
if [ "$want_test" = 1 ]; then
  for v in 2.3.0 1.30.0; do
    if ! .venv/mcp-$v/bin/python -c "import mcp" >/dev/null 2>&1; then
      say "creating .venv/mcp-$v with Python mcp==$v (pip; about a minute)"
      rm -rf ".venv/mcp-$v"
      python3 -m venv ".venv/mcp-$v"
      ".venv/mcp-$v/bin/pip" install --quiet --disable-pip-version-check "mcp==$v"
    fi
  done
fi

if [ "$want_test" = 1 ] && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; }; then
  if [ "$(id -u)" = 0 ]; then
    say "installing Chromium and chromedriver (Debian packages; about a minute)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  else
    echo "[setup] chromium and chromedriver are missing; as root run: apt-get install -y chromium chromium-driver" >&2
    exit 1
  fi
fi
# nginx, the load balancer in front of two bridges in pkg-tests/bridge-nginx.test.mjs (run in
# the foreground with its own configuration; the package's service is not needed).
if [ "$want_test" = 1 ] && ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  if [ "$(id -u)" = 0 ]; then
    say "installing nginx (Debian package nginx-light; seconds)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
    # The test runs its own nginx; the package's service (port 80), where systemd started it, is not wanted.
    systemctl disable --now nginx >/dev/null 2>&1 || true
  else
    echo "[setup] nginx is missing; as root run: apt-get install -y nginx-light" >&2
    exit 1
  fi
fi
say "ready: $(rustc --version | cut -d' ' -f1-2), wasm-pack $(wasm-pack --version | awk '{print $2}'), wasm-bindgen $(wasm-bindgen --version | awk '{print $2}'), node $(node --version)"

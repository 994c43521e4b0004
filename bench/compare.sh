#!/usr/bin/env bash
# Runs this tree's benchmarks (bench/snapshot.mjs) against the package as built at another
# commit — by default 67c759d, the last one before the benchmarks and optimizations of
# issue #5 — and writes bench/results-<commit>.json: the "before" of BENCHMARKS.md.
#
#   bash bench/compare.sh [commit]
#
# The other commit is checked out in a temporary git worktree (removed at the end) and
# built there with its own scripts/build.sh and target directory (a few minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
commit="${1:-67c759d}"
dir="$(mktemp -d)"
git worktree add --detach -q "$dir" "$commit"
trap 'git worktree remove --force "$dir"' EXIT
ln -s "$PWD/node_modules" "$dir/node_modules"
(cd "$dir" && CARGO_TARGET_DIR="$dir/target" bash scripts/build.sh)
mkdir -p "$dir/bench"
cp bench/*.mjs "$dir/bench/"
cp -r bench/fixtures "$dir/bench/"
node "$dir/bench/snapshot.mjs" > "bench/results-$commit.json"
echo "[compare] wrote bench/results-$commit.json"

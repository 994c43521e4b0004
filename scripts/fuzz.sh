#!/usr/bin/env bash
# Fuzzes the core with cargo fuzz (libFuzzer): each target for SECONDS (default 60).
#   classify  raw bytes from a peer → JSON → message classification (fuzz/fuzz_targets/classify.rs)
#   ops       an Arbitrary sequence of operations replayed against the core (fuzz/fuzz_targets/ops.rs)
#   relay     lines of traffic from three clients and a server through the relay (fuzz/fuzz_targets/relay.rs)
# cargo fuzz wants nightly flags; RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them.
# New inputs go to fuzz/corpus/<target>/ (not committed); fuzz/seeds/ holds the checked-in seeds.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
export PATH="$HOME/.cargo/bin:$PATH"
seconds="${1:-60}"
for target in classify ops relay; do
  mkdir -p "corpus/$target"
  seeds=()
  [ -d "seeds/$target" ] && seeds=("seeds/$target")
  printf '\033[1m[fuzz]\033[0m %s\n' "$target for ${seconds}s"
  RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" "corpus/$target" "${seeds[@]}" -- \
    -max_total_time="$seconds" -print_final_stats=1 2>&1 | grep -E "^Done|stat::number_of_executed_units|ERROR|panicked|SUMMARY" || true
  # libFuzzer exits non-zero on a crash: make that fatal even through the pipe.
  if [ -n "$(ls artifacts/"$target" 2>/dev/null)" ]; then
    echo "[fuzz] $target found a crash: fuzz/artifacts/$target/" >&2
    exit 1
  fi
done

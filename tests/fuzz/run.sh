#!/usr/bin/env bash
# Builds the libFuzzer targets in build-fuzz/ (clang, ASan+UBSan) and runs each for SECONDS
# (default 60), seeded from scenarios/ and tests/scenarios/invalid/. Findings (crash-*, leak-*,
# timeout-*, oom-*) land in build-fuzz/fuzz/findings/.
#
#   tests/fuzz/run.sh [SECONDS] [JOBS]
set -euo pipefail
seconds=${1:-60}
jobs=${2:-2}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$src/build-fuzz
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 -DEKSIM_FUZZ=ON \
      -DEKSIM_BUILD_TESTS=OFF -DEKSIM_BUILD_BENCH=OFF ${CCACHE:+-DCMAKE_CXX_COMPILER_LAUNCHER=ccache} >/dev/null
cmake --build "$build" -j "$jobs" --target fuzz_scenario fuzz_trace_csv

out=$build/fuzz
mkdir -p "$out/findings"
seed() {  # NAME PATTERN...: a copy of the matching files, so libFuzzer grows it, not the tree
  local dir=$out/corpus-$1 f
  shift
  mkdir -p "$dir"
  for pattern in "$@"; do
    while IFS= read -r -d '' f; do cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-16)"; done \
      < <(find "$src/scenarios" "$src/tests/scenarios/invalid" -type f -name "$pattern" -print0)
  done
  echo "$dir"
}
scen=$(seed scenario '*.yaml' '*.json')
csv=$(seed csv '*.csv')
# A run is slow when it should be refused: 10 s per input and 2 GB are findings, not waits.
common=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$out/findings/" -print_final_stats=1)
"$out/fuzz_scenario" "${common[@]}" -max_len=65536 "$scen"
"$out/fuzz_trace_csv" "${common[@]}" -max_len=16384 "$csv"

#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for SECONDS each (default 60), JOBS targets at a time
# (default 2), seeded from scenarios/, tests/scenarios/invalid/ and tests/fuzz/seeds/. A finding
# (crash-*, leak-*, timeout-*, oom-*) lands in BUILD_DIR/fuzz/findings/ and fails the script;
# reproduce one with `BUILD_DIR/fuzz/TARGET FINDING`.
#
#   tests/fuzz/run.sh [SECONDS|short] [BUILD_DIR]      (BUILD_DIR default: build-fuzz)
#
# `short` is what the test command runs: the seed corpus, then a fixed number of mutated inputs
# per target (about a minute each on one core of the CI machine kind, under ASan/UBSan). A count,
# not a time: with the seed fixed, the same commit tries the same inputs on every run and every
# machine, however loaded, so a landing is decided by the code, not by how fast the search went.
#
# The search starts from a fixed seed (FUZZ_SEED, default 1): for a deterministic target the
# inputs libFuzzer tries come in the same order on every machine, so a finding is reproduced by
# running the same seed again (and the search is deterministic: see "The process image" below).
# SECONDS=0 replays the seed corpus once through every target without mutating it.
#
# BUILD_DIR is configured with clang, ASan, UBSan and -DEKSIM_FUZZ=ON, and built, unless it
# already holds that configuration (scripts/dev test builds its sanitizer stage that way and
# passes build-asan). The long campaign in the README runs an hour per target:
# FUZZ_SEED=0 tests/fuzz/run.sh 3600 (0: libFuzzer picks a seed).
set -euo pipefail
seconds=${1:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${2:-$src/build-fuzz}")
jobs=${JOBS:-2}
targets=(fuzz_scenario fuzz_manifest fuzz_sweep_plan fuzz_sweep_merge fuzz_trace_csv fuzz_protobuf_body)

if ! grep -q '^EKSIM_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
        -DCMAKE_CXX_COMPILER=clang++-14 -DEKSIM_FUZZ=ON -DEKSIM_BUILD_TESTS=OFF -DEKSIM_BUILD_BENCH=OFF \
        ${CCACHE:+-DCMAKE_CXX_COMPILER_LAUNCHER=ccache} >/dev/null
fi
cmake --build "$build" -j "$jobs" --target fuzz_targets

out=$build/fuzz
rm -rf "$out/findings" "$out/corpus-"* "$out/seeds-"* "$out/log-"* "$out/status-"* "$out/fuzz-sweep-plan-work" "$out/fuzz-trace-csv-input.csv"
mkdir -p "$out/findings"

# seed NAME FILE...: a fresh copy of the files, so libFuzzer grows the copy, not the tree, and the
# list of them in a fixed order for -seed_inputs. libFuzzer reads a corpus directory in readdir
# order, which differs between file systems (ext4 hashes names with a per-file-system seed), and
# sorts it by size only, so equal sizes kept the file system's order: the same seed then mutated
# other inputs on another machine (issue 46). The seeds go in as a sorted list instead, named by
# their path inside the clone, listed relative to $out (see `fuzz` below), and the corpus
# directory starts empty.
seed() {
  local name=$1 dir=seeds-$1 f rel list=()
  shift
  mkdir -p "$out/$dir" "$out/corpus-$name"
  for f in "$@"; do
    rel=${f#"$out"/}; rel=$(echo "${rel#"$src"/}" | md5sum | cut -c1-16)
    cp "$f" "$out/$dir/$rel"
    list+=("$dir/$rel")
  done
  printf '%s\n' "${list[@]}" | LC_ALL=C sort | paste -sd, > "$out/seeds-$name.list"
}
mapfile -d '' yaml < <(find "$src/scenarios" "$src/tests/scenarios/invalid" -type f \( -name '*.yaml' -o -name '*.json' \) -print0 | sort -z)
mapfile -d '' csv < <(find "$src/scenarios" "$src/tests/scenarios/invalid" -type f -name '*.csv' -print0 | sort -z)
mapfile -t plans < <(grep -rl --include='*.yaml' '^kind: SweepPlan' "$src/scenarios" "$src/tests" | sort)
seed scenario "${yaml[@]}"
seed manifest "${yaml[@]}"
seed sweep_merge "$src"/tests/fuzz/seeds/*.jsonl
seed trace_csv "${csv[@]}"
seed protobuf_body "$src"/tests/fuzz/seeds/protobuf/*.pb
# fuzz_sweep_plan runs in a directory whose base.yaml is the planning base scenario.
mkdir -p "$out/plans"
plan_copies=()
for f in "${plans[@]}"; do
  rel=${f#"$src"/}
  sed 's|^scenario: .*|scenario: base.yaml|' "$f" > "$out/plans/$(echo "$rel" | md5sum | cut -c1-16)"
  plan_copies+=("$out/plans/$(echo "$rel" | md5sum | cut -c1-16)")
done
seed sweep_plan "${plan_copies[@]}"
rm -rf "$out/plans"

# Inputs per target in `short` mode (seed corpus included): about 60 s each, measured on a quiet
# 2-core machine of the CI kind with the ASan/UBSan build (the README's Fuzzing section).
declare -A short_runs=([fuzz_scenario]=10000 [fuzz_manifest]=120000 [fuzz_sweep_plan]=40000 [fuzz_sweep_merge]=400000 [fuzz_trace_csv]=15000 [fuzz_protobuf_body]=300000)
declare -A max_len=([fuzz_scenario]=65536 [fuzz_manifest]=65536 [fuzz_sweep_plan]=16384 [fuzz_sweep_merge]=16384 [fuzz_trace_csv]=16384 [fuzz_protobuf_body]=4096)
# The process image is the same on every machine of the kind and from every clone, because
# coverage is: without it the seed corpus alone gave 2,542 to 2,545 edges run to run, and the same
# seed then grew different corpora (issue 46). Some instrumented code paths depend on addresses
# (hit counts differ with the stack's alignment), so each target runs with address-space
# randomisation off (setarch -R), from $out with relative paths and a fixed environment (argv and
# environment sit at the top of the stack and shift it); and with -reload=0, since re-reading the
# corpus directory each second ran an extra input at a time-dependent point. With that, two runs
# of a target try the same inputs and grow byte-identical corpora.
norandom=(setarch "$(uname -m)" -R)
if ! "${norandom[@]}" true 2>/dev/null; then
  echo "fuzz: setarch -R is not permitted here; coverage, and so the inputs tried, may differ run to run" >&2
  norandom=()
fi
fuzz_env=(PATH=/usr/bin:/bin ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}")
# (an empty ASAN_SYMBOLIZER_PATH would turn symbolization off, so it is passed only when set)
[ -z "${ASAN_SYMBOLIZER_PATH:-}" ] || fuzz_env+=(ASAN_SYMBOLIZER_PATH="$ASAN_SYMBOLIZER_PATH")
# A run is slow when it should be refused: 10 s per input and 2 GB are findings, not waits.
fuzz() {  # TARGET: runs one target; its output goes to log-TARGET and its exit status to status-TARGET
  local t=$1 rc=0
  local budget=(-max_total_time="$seconds")
  if [ "$seconds" = 0 ]; then budget=(-runs=0); fi  # replay the seed corpus once, no mutation: deterministic
  if [ "$seconds" = short ]; then budget=(-runs="${short_runs[$t]}"); fi
  (cd "$out" && env -i "${fuzz_env[@]}" "${norandom[@]}" "./$t" "${budget[@]}" -seed="${FUZZ_SEED:-1}" -reload=0 -timeout=10 -rss_limit_mb=2048 \
     -max_len="${max_len[$t]}" -artifact_prefix="findings/$t-" -print_final_stats=1 \
     -seed_inputs=@"seeds-${t#fuzz_}.list" "corpus-${t#fuzz_}") > "$out/log-$t" 2>&1 || rc=$?
  echo $rc > "$out/status-$t"
}
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  fuzz "$t" &
done
wait
failed=0
for t in "${targets[@]}"; do
  status=ok
  [ "$(cat "$out/status-$t")" = 0 ] || { status=FAILED; failed=1; }
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/log-$t" | grep -o '[0-9]*$' || echo 0)
  corpus=$(( $(find "$out/corpus-${t#fuzz_}" -type f | wc -l) + $(tr , "\n" < "$out/seeds-${t#fuzz_}.list" | wc -l) ))
  echo "fuzz: $t: $status, $runs inputs ($([ "$seconds" = short ] && echo short run || echo "$seconds s")), corpus $corpus files"
  if [ $status = FAILED ]; then
    tail -n 40 "$out/log-$t"
    ls "$out/findings/$t-"* 2>/dev/null | sed 's/^/fuzz: finding: /'
  fi
done
exit $failed

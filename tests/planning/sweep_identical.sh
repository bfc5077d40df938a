#!/usr/bin/env bash
# A sweep gives byte-identical result files with --jobs 1, --jobs 2, as two shards merged, and
# when a run is interrupted (torn last line) and resumed.
set -euo pipefail
eksim=$1 plan=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$eksim" sweep "$plan" --out j1.jsonl --jobs 1 --quiet
"$eksim" sweep "$plan" --out j2.jsonl --jobs 2 --quiet
"$eksim" sweep "$plan" --out s0.jsonl --shard 0/2 --quiet
"$eksim" sweep "$plan" --out s1.jsonl --shard 1/2 --quiet
"$eksim" sweep merge s1.jsonl s0.jsonl --out merged.jsonl --quiet
cmp j1.jsonl j2.jsonl
cmp j1.jsonl merged.jsonl
# Interrupted: keep two whole lines and half of the third, then resume.
head -n 2 j1.jsonl > resumed.jsonl
sed -n 3p j1.jsonl | head -c 60 >> resumed.jsonl
"$eksim" sweep "$plan" --out resumed.jsonl --resume --jobs 2 --quiet
cmp j1.jsonl resumed.jsonl
test "$(wc -l < j1.jsonl)" -eq 6
echo "sweep results identical: jobs 1, jobs 2, merged shards, resumed"

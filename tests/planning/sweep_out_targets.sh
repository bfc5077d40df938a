#!/usr/bin/env bash
# `sweep --out` never replaces what is not a regular file: /dev/null stays a device, a FIFO gets
# the sorted results once and stays a FIFO, a symlink keeps pointing at the rewritten file, and
# a directory is refused with exit 2.
set -euo pipefail
eksim=$1 plan=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$eksim" sweep "$plan" --out ref.jsonl --jobs 2 --quiet 2>/dev/null

"$eksim" sweep "$plan" --out /dev/null --jobs 2 --quiet 2>/dev/null
test -c /dev/null

mkfifo results.fifo
cat results.fifo > from-fifo.jsonl &
reader=$!
timeout 60 "$eksim" sweep "$plan" --out results.fifo --jobs 2 --quiet 2>/dev/null
wait "$reader"
test -p results.fifo
cmp ref.jsonl from-fifo.jsonl
timeout 60 "$eksim" sweep merge ref.jsonl --out /dev/null --quiet 2>/dev/null
test -c /dev/null

echo stale > target.jsonl
ln -s target.jsonl latest.jsonl
"$eksim" sweep "$plan" --out latest.jsonl --jobs 2 --quiet 2>/dev/null
test -L latest.jsonl
cmp ref.jsonl target.jsonl
"$eksim" sweep merge ref.jsonl --out latest.jsonl --quiet 2>/dev/null
test -L latest.jsonl
cmp ref.jsonl target.jsonl

mkdir results.d
set +e
err=$("$eksim" sweep "$plan" --out results.d --quiet 2>&1 >/dev/null)
rc=$?
set -e
test "$rc" -eq 2
test "$err" = "eksim: error: cannot write \"results.d\": is a directory"
test -d results.d
echo "sweep --out: /dev/null, FIFO, symlink kept; directory refused"

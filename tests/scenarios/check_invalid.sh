#!/usr/bin/env bash
# Every file in tests/scenarios/invalid must make `eksim run` print exactly the expected located
# error on stderr, nothing on stdout, and exit 2 (CONTRACT.md: invalid input).
set -u
eksim=$1
dir=$2
fail=0
while IFS='|' read -r file expected; do
  file=$(echo "$file" | xargs)
  [ -z "$file" ] || [ "${file#\#}" != "$file" ] && continue
  expected=$(echo "$expected" | sed -e 's/^ //')
  expected=${expected//FILE/$dir/$file}
  expected=${expected//DIR/$dir}
  stderr=$("$eksim" run "$dir/$file" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ] || [ "$stderr" != "$expected" ]; then
    echo "FAIL $file (exit $rc)"
    echo "  expected: $expected"
    echo "  got:      $stderr"
    fail=1
  else
    echo "ok   $file"
  fi
done < "$dir/expected-errors.txt"
# Flag and file errors: the exact line of expected-flag-errors.txt, exit 2.
scenario="$dir/../../../scenarios/examples/two-nodegroups.yaml"
while IFS='|' read -r argline expected; do
  argline=$(echo "$argline" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
  [ -z "$argline" ] || [ "${argline#\#}" != "$argline" ] && continue
  expected=$(echo "$expected" | sed -e 's/^ //')
  expected=${expected//DIR/$dir}
  args=()
  for word in $argline; do
    case "$word" in
      "''") args+=("") ;;
      *) word=${word//SCENARIO/$scenario}; args+=("${word//DIR/$dir}") ;;
    esac
  done
  stderr=$("$eksim" "${args[@]}" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ] || [ "$stderr" != "$expected" ]; then
    echo "FAIL eksim $argline (exit $rc)"
    echo "  expected: $expected"
    echo "  got:      $stderr"
    fail=1
  else
    echo "ok   eksim $argline"
  fi
done < "$dir/expected-flag-errors.txt"
# Inputs that are FIFOs (which cannot live in git): refused at once, never waited on.
fifos=$(mktemp -d)
mkfifo "$fifos/scenario.yaml" "$fifos/trace.csv" "$fifos/runs.jsonl"
printf 'apiVersion: eksim/v1\nkind: Scenario\ncluster: {region: ap-northeast-2}\nworkloads:\n  replay: {arrival: trace, file: trace.csv}\n' >"$fifos/trace.yaml"
for case in "run $fifos/scenario.yaml|eksim: error: cannot open \"$fifos/scenario.yaml\": is a FIFO, not a regular file" \
            "run $fifos/trace.yaml|$fifos/trace.yaml:5:34: error: cannot open \"$fifos/trace.csv\": is a FIFO, not a regular file" \
            "sweep merge --out $fifos/merged.jsonl $fifos/runs.jsonl|eksim: error: cannot open \"$fifos/runs.jsonl\": is a FIFO, not a regular file"; do
  args=${case%%|*}
  expected=${case#*|}
  stderr=$(timeout 10 "$eksim" $args 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ] || [ "$stderr" != "$expected" ]; then
    echo "FAIL eksim $args (exit $rc)"
    echo "  expected: $expected"
    echo "  got:      $stderr"
    fail=1
  else
    echo "ok   eksim $args"
  fi
done
# $KUBECONFIG naming a FIFO: eksim ctl refuses it instead of waiting for a writer for ever.
mkfifo "$fifos/kubeconfig"
expected="eksim: error: cannot open \"$fifos/kubeconfig\": is a FIFO, not a regular file"
stderr=$(env -u EKSIM_SERVER KUBECONFIG="$fifos/kubeconfig" timeout 10 "$eksim" ctl status 2>&1 >/dev/null)
rc=$?
if [ "$rc" -ne 2 ] || [ "$stderr" != "$expected" ]; then
  echo "FAIL KUBECONFIG=FIFO eksim ctl status (exit $rc)"
  echo "  expected: $expected"
  echo "  got:      $stderr"
  fail=1
else
  echo "ok   KUBECONFIG=FIFO eksim ctl status"
fi
rm -rf "$fifos"
# Flag errors: exit 2 with an "error:" line.
for args in "run" "run $dir/../../../scenarios/examples/two-nodegroups.yaml --until forever" "nccl --instance g5.xlarg --nodes 2" "frobnicate"; do
  out=$("$eksim" $args 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q "error" <<<"$out"; then
    echo "FAIL eksim $args: exit $rc: $out"
    fail=1
  else
    echo "ok   eksim $args -> $out"
  fi
done
exit $fail

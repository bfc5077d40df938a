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

#!/usr/bin/env bash
# Issue 42 item 4: every output either is written whole or fails with the system's reason and a
# non-zero exit (a write that fails at the flush or the close included: /dev/full takes the bytes
# into the stream's buffer and refuses them only then); no output replaces one of the run's
# inputs; an empty flag value is an error, not "flag not given".
set -u
eksim=$1 root=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
check() {  # check NAME OUTPUT PATTERN
  if grep -qE -- "$3" <<<"$2"; then echo "ok   $1"; else echo "FAIL $1: no /$3/ in:"; echo "$2" | head -20; fail=1; fi
}
scenario=$root/scenarios/examples/two-nodegroups.yaml
full='cannot write "/dev/full": No space left on device'

out=$("$eksim" run "$scenario" --quiet --metrics /dev/full 2>&1; echo "rc=$?")
check "run --metrics /dev/full" "$out" "$full"
check "run --metrics /dev/full: exit 2" "$out" '^rc=2$'
out=$("$eksim" run "$scenario" --quiet --json /dev/full 2>&1; echo "rc=$?")
check "run --json /dev/full: exit 2" "$out" '^rc=2$'
out=$("$eksim" run "$scenario" > /dev/full 2>&1; echo "rc=$?")
check "run's timeline to a full stdout: exit 2" "$out" '^rc=2$'
out=$("$eksim" check "$scenario" --junit /dev/full 2>&1; echo "rc=$?")
check "check --junit /dev/full" "$out" "$full"
check "check --junit /dev/full: exit 2" "$out" '^rc=2$'
out=$("$eksim" sweep "$root/tests/planning/small-sweep.yaml" --shard 0/6 --out /dev/full --quiet 2>&1; echo "rc=$?")
check "one-run sweep --out /dev/full" "$out" "$full"
check "one-run sweep --out /dev/full: exit 2" "$out" '^rc=2$'
out=$(timeout 60 "$eksim" serve "$scenario" --port 0 --kubeconfig /dev/full 2>&1; echo "rc=$?")
check "serve --kubeconfig /dev/full" "$out" "$full"
check "serve --kubeconfig /dev/full: exit 2" "$out" '^rc=2$'

# Outputs never replace inputs, however the path is spelled.
cp "$scenario" s.yaml
ln -s s.yaml link.yaml
for target in s.yaml ./s.yaml link.yaml; do
  out=$("$eksim" run s.yaml --quiet --json "$target" 2>&1; echo "rc=$?")
  check "run s.yaml --json $target refused" "$out" "cannot write \"$target\": it is an input of this run"
  check "run s.yaml --json $target: exit 2" "$out" '^rc=2$'
done
cmp -s s.yaml "$scenario" || { echo "FAIL the scenario was overwritten"; fail=1; }
mkdir -p plan && cp "$root/tests/planning/small-sweep.yaml" plan/p.yaml
sed -i "s|^scenario: .*|scenario: $root/scenarios/planning/gpu-cluster-base.yaml|" plan/p.yaml
cp plan/p.yaml p.orig
out=$("$eksim" sweep plan/p.yaml --shard 0/6 --out plan/p.yaml --quiet 2>&1; echo "rc=$?")
check "sweep P --out P refused" "$out" 'cannot write "plan/p.yaml": it is an input of this run'
check "sweep P --out P: exit 2" "$out" '^rc=2$'
cmp -s plan/p.yaml p.orig || { echo "FAIL the sweep plan was overwritten"; fail=1; }
out=$("$eksim" sweep plan/p.yaml --shard 0/6 --out "$root/scenarios/planning/gpu-cluster-base.yaml" --quiet 2>&1; echo "rc=$?")
check "sweep --out its scenario refused" "$out" 'it is an input of this run'
"$eksim" sweep plan/p.yaml --shard 0/6 --out r.jsonl --quiet 2>/dev/null &&
  "$eksim" sweep plan/p.yaml --shard 0/6 --out r.jsonl --resume --quiet 2>/dev/null ||
  { echo "FAIL sweep --resume may rewrite its own --out"; fail=1; }

# An empty value (an unset variable) is an error.
out=$("$eksim" run "$scenario" --quiet --json "" 2>&1; echo "rc=$?")
check "--json \"\"" "$out" '^error: --json: expected a value, got an empty string$'
check "--json \"\": exit 2" "$out" '^rc=2$'
out=$("$eksim" check "$scenario" --junit= 2>&1; echo "rc=$?")
check "--junit=" "$out" '^rc=2$'
out=$("$eksim" run "" 2>&1; echo "rc=$?")
check "empty scenario argument" "$out" '^rc=2$'
exit $fail

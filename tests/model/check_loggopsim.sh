#!/bin/sh
# `sidecore simulate` against LogGOPSim's own output (issue 16): for every data/loggopsim/NAME.PSET.expected
# (the "Host N: T" or "Maximum finishing time ..." lines LogGOPSim printed; data/loggopsim/README.md says how
# they were made), simulates NAME.goal (from data/loggopsim/, else data/sim/) with the options of parameter set
# PSET (data/loggopsim/params: one set a line, its name then its options) and compares those lines exactly.
# LogGOPSim itself is never built or run here.
# Usage: check_loggopsim.sh SIDECORE_EXE DATA_DIR
set -u
exe=$1 data=$2
dir=$data/loggopsim
fails=0 n=0
for want in "$dir"/*.expected; do
  [ -e "$want" ] || { echo "FAIL: no fixtures in $dir"; exit 1; }
  base=$(basename "$want" .expected)
  name=${base%.*} pset=${base##*.}
  goal=$dir/$name.goal
  [ -f "$goal" ] || goal=$data/sim/$name.goal
  if [ ! -f "$goal" ]; then
    echo "FAIL: $base: no $name.goal in $dir or $data/sim"; fails=$((fails + 1)); continue
  fi
  if ! grep -q "^$pset\( \|\$\)" "$dir/params"; then
    echo "FAIL: $base: parameter set $pset is not in $dir/params"; fails=$((fails + 1)); continue
  fi
  args=$(sed -n "s/^$pset\( \|\$\)//p" "$dir/params")
  # shellcheck disable=SC2086  # the options are words
  out=$(timeout 30 "$exe" simulate "$goal" $args 2>&1)
  rc=$?
  got=$(printf '%s\n' "$out" | grep -E '^(Host [0-9]+: |Maximum finishing time at host )')
  n=$((n + 1))
  if [ $rc -ne 0 ] || [ "$got" != "$(cat "$want")" ]; then
    fails=$((fails + 1))
    echo "FAIL (exit $rc): sidecore simulate $name.goal $args"
    printf '%s\n' "$got" > "${TMPDIR:-/tmp}/check_loggopsim.$$.got"
    diff "$want" "${TMPDIR:-/tmp}/check_loggopsim.$$.got" | sed 's/^/  /'
    rm -f "${TMPDIR:-/tmp}/check_loggopsim.$$.got"
    [ $rc -ne 0 ] && printf '%s\n' "$out" | head -5 | sed 's/^/  | /'
  fi
done
if [ $fails -ne 0 ]; then
  echo "FAILED: $fails of $n fixtures differ from LogGOPSim's output"
  exit 1
fi
echo "PASS: $n fixtures equal LogGOPSim's output"

#!/bin/sh
# Every subcommand whose results go to standard output, run with it on /dev/full (a full disk): each must exit
# non-zero and say on stderr that its output could not be written, never end with status 0 as if the results
# had been delivered.
# Usage: check_stdout_full.sh SIDECORE_EXE DATA_DIR WORK_DIR
set -u
exe=$1 data=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
[ -w /dev/full ] || { echo "PASS: skipped, this system has no writable /dev/full"; exit 0; }
fails=0
check() {  # check ARGS...: runs `sidecore ARGS >/dev/full` and matches its status and message
  err=$(timeout 30 "$exe" "$@" 2>&1 >/dev/full)
  rc=$?
  case "$err" in
    *"error: standard output: the results could not be written"*) ;;
    *) rc=0 ;;
  esac
  if [ $rc -ne 2 ]; then
    echo "FAIL (exit $rc): sidecore $* >/dev/full"; echo "  $err"; fails=$((fails + 1))
  fi
}
check predict "$data/kripke_case1_off.json"
check predict --format json "$data/kripke_case1_off.json"
check predict --format csv "$data/kripke_case1_off.json"
check report "$data/kripke_case1_off.json" -o "$work/report.html"
check simulate "$data/sim/pingpong.goal"
check simulate --format json "$data/sim/pingpong.goal"
check simulate --timeline "$work/timeline.json" "$data/sim/pingpong.goal"
check loggp "$data/loggp/synthetic_prtt.json"
check whatif "$data/sim/pingpong.0.json" "$data/sim/pingpong.1.json"
check whatif --format json "$data/sim/pingpong.0.json" "$data/sim/pingpong.1.json"
check --help
check simulate --help
[ $fails -eq 0 ] && echo "PASS: every subcommand reported its unwritable standard output"
[ $fails -eq 0 ]

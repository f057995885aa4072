#!/bin/sh
# Longer fuzzing runs (`make fuzz`): each harness SECONDS seconds, one after the other, new inputs kept in the build
# folder, crashes saved as BUILD/artifacts/<harness>-crash-*. Usage: fuzz/run.sh BUILD SECONDS [HARNESS...]
# (harnesses: profile mpip scaling_table xfer_table goal trace loggp_measurement loggp_params study_record; default
# all). Exit status 1 when a harness found a crash.
set -u
build=$1 seconds=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- profile mpip scaling_table xfer_table goal trace loggp_measurement loggp_params study_record
status=0
for h in "$@"; do
  exe=$build/fuzz_$h
  [ -x "$exe" ] || { echo "fuzz/run.sh: $exe is missing; build it with make fuzz-build"; exit 2; }
  mkdir -p "$build/corpus/$h" "$build/artifacts"
  dict=""; [ -f "$here/$h.dict" ] && dict="-dict=$here/$h.dict"
  echo "== fuzz_$h for $seconds s"
  if ! "$exe" $dict -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" -print_final_stats=1 \
      "-artifact_prefix=$build/artifacts/$h-" "$build/corpus/$h" "$here/corpus/$h"; then
    echo "!! fuzz_$h found a failure: the input is in $build/artifacts/ (minimise it with -minimize_crash=1, add it" \
         "to fuzz/corpus/$h/ and fix the bug with a regression test)"
    status=1
  fi
done
exit $status

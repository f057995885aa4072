#!/bin/sh
# libsidecore-pmpi.so with the profile on some ranks only, or (no profile) the trace, or SIDECORE_COLL_SAMPLES
# differing: the job stops at MPI_Init with every rank naming the setting (the profiler's set-up and its exchanges at
# MPI_Finalize join every rank; the ranks sample the same collective instances only with the same capacity), never
# hangs; a trace on one rank while every rank profiles is fine.
# Usage: run_pmpi_differs_test.sh <mpiexec> <preload> <pmpi_app> <work dir>
set -u
mpiexec=$1 preload=$2 app=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir"
fail=0
run() {  # run NAME MESSAGE MPIEXEC_ARGS...: at most 30 s; the job must stop, a rank saying MESSAGE
  name=$1 want=$2
  shift 2
  timeout 30 "$mpiexec" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
  rc=$?
  cat "$dir/$name.err"
  if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then echo "FAILED: $name: exit $rc, expected the job stopped"; fail=1; fi
  if grep -qF -- "$want" "$dir/$name.err"; then echo "ok: $name"; else echo "FAILED: $name: no \"$want\""; fail=1; fi
}
run profile "profiling is on for some ranks only (this rank: SIDECORE_PROFILE=" \
  -n 1 -env LD_PRELOAD "$preload" -env SIDECORE_PROFILE off "$app" \
  : -n 1 -env LD_PRELOAD "$preload" -env SIDECORE_PROFILE "$dir/p.%r.json" "$app"
run trace "tracing is on for some ranks only (this rank: SIDECORE_TRACE " \
  -n 1 -env LD_PRELOAD "$preload" -env SIDECORE_PROFILE off "$app" \
  : -n 1 -env LD_PRELOAD "$preload" -env SIDECORE_PROFILE off -env SIDECORE_TRACE "$dir/t.%r.trace" "$app"
run coll_samples "SIDECORE_COLL_SAMPLES differs between ranks (this rank: 16;" \
  -n 1 -env LD_PRELOAD "$preload" -env SIDECORE_PROFILE "$dir/s.%r.json" -env SIDECORE_COLL_SAMPLES 16 "$app" \
  : -n 1 -env LD_PRELOAD "$preload" -env SIDECORE_PROFILE "$dir/s.%r.json" "$app"
# Every rank profiles, one traces: nothing collective differs, the run completes.
if timeout 30 "$mpiexec" -n 1 -env LD_PRELOAD "$preload" -env SIDECORE_PROFILE "$dir/o.%r.json" "$app" \
     : -n 1 -env LD_PRELOAD "$preload" -env SIDECORE_PROFILE "$dir/o.%r.json" -env SIDECORE_TRACE "$dir/o.%r.trace" \
     "$app" >"$dir/one_trace.out" 2>"$dir/one_trace.err" && [ -s "$dir/o.1.trace" ] && [ -s "$dir/o.job.json" ]; then
  echo "ok: one_trace"
else
  cat "$dir/one_trace.err"; echo "FAILED: one_trace: the run with a trace on rank 1 only did not complete"; fail=1
fi
exit $fail

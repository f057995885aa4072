#!/bin/sh
# libsidecore-pmpi.so's dedicated core on an unmodified MPI+OpenMP program (pmpi_omp_app.c), 2 ranks: mode off, then
# SIDECORE_PROGRESS=core with each engine (SIDECORE_PMPI_PROGRESS=sidecore, mpich), each run checked by pmpi_core_check
# (OpenMP fence, progress thread's core, background progress, profile mode and exact counts); then `sidecore predict`
# takes the off and a core profile of the same program, when the sidecore command is built.
# Usage: run_pmpi_core_test.sh <mpiexec> <preload> <pmpi_omp_app> <pmpi_core_check> <work dir> [<sidecore command>]
# <preload> is the LD_PRELOAD value: libsidecore-pmpi.so, preceded by the ASan runtime in the Asan build.
set -eu
mpiexec=$1 preload=$2 app=$3 check=$4 dir=$5 cli=${6:-}
rm -rf "$dir" && mkdir -p "$dir"
# The fence's defaults are under test: no OpenMP settings from the caller's environment.
unset OMP_NUM_THREADS OMP_PLACES OMP_PROC_BIND SIDECORE_PROGRESS_CORE MPIR_CVAR_ASYNC_PROGRESS
fail=0
for case in off:sidecore core:sidecore core:mpich; do
  mode=${case%%:*} engine=${case##*:}
  name=$mode-$engine
  case "$preload" in
    *libasan*|*libtsan*)
      # A sanitizer runtime preloaded first defines pthread_create before us: MPICH's thread cannot be caught (the
      # library then says so and runs in mode off).
      [ "$engine" = mpich ] && { echo "skipped: $name (the sanitizer's pthread_create comes first)"; continue; } ;;
  esac
  # The idle peer sleeps between its tests (--peer sleep): in core mode its own progress thread answers rank 0. With the
  # core, rank 0 watches its buffer up to 5 s after each computation (--await-us): every reception must be complete
  # before its MPI_Wait, however loaded the machine; without, only 5 ms (MPICH alone does not move the data).
  await=5000; [ "$mode" = core ] && await=5000000
  if ! SIDECORE_PROGRESS=$mode SIDECORE_PMPI_PROGRESS=$engine SIDECORE_VERBOSE=2 SIDECORE_PROFILE="$dir/$name.%r.json" \
      "$mpiexec" -n 2 -genv LD_PRELOAD "$preload" "$app" --iters 10 --compute-us 20000 --peer sleep --await-us $await \
      >"$dir/$name.out" 2>"$dir/$name.err"; then
    echo "FAILED: $name: the program failed"; cat "$dir/$name.err"; fail=1; continue
  fi
  cat "$dir/$name.err"
  grep "overlap bytes" "$dir/$name.out" || true
  "$check" "$mode" "$engine" "$dir/$name.out" "$dir/$name.%r.json" || fail=1
done
if [ -n "$cli" ]; then
  # The model takes the unmodified program's calibration run (off) and its dedicated run (core) together.
  if "$cli" predict "$dir/off-sidecore.job.json" "$dir/core-sidecore.job.json" >"$dir/predict.out" 2>&1; then
    echo "ok: sidecore predict accepts an off and a core PMPI profile"
  else
    echo "FAILED: sidecore predict off + core profiles:"; cat "$dir/predict.out"; fail=1
  fi
fi
exit $fail

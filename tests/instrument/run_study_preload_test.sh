#!/bin/sh
# `sidecore study --preload` whose dedicated run's progress core cannot start: each rank bound to one core while
# SIDECORE_NCORE says 2, so the calibration asks for a dedicated run and the PMPI library falls back to mode off.
# The study must fail that run, naming the mode, not compare a run without progress with the prediction.
# Usage: run_study_preload_test.sh SIDECORE PMPI_LIBRARY MPIEXEC APP WORKDIR
set -u
sidecore=$1 lib=$2 mpiexec=$3 app=$4 work=$5
rm -rf "$work"
SIDECORE_NCORE=2 "$sidecore" study -n 2 --reps 1 --host-cores 2 --preload --pmpi-library "$lib" \
  --mpiexec "$mpiexec -bind-to core" --out "$work" -- "$app" --iters 2 --compute-us 1000 > "$work.txt" 2>&1
st=$?
cat "$work.txt"
[ $st -eq 1 ] || { echo "FAIL: exit status $st, expected 1 (a failed run)"; exit 1; }
grep -q "run c0.dedicated.r0 failed: rank [01]'s profile says mode \"off\" where this run set SIDECORE_PROGRESS=core" \
  "$work.txt" || { echo "FAIL: the dedicated run in mode off was not refused"; exit 1; }
grep -q "no dedicated (core mode) run finished" "$work.txt" || { echo "FAIL: a dedicated run was compared"; exit 1; }
echo "study preload checks passed"

#!/bin/sh
# Runs pmpi_app under mpiexec with libsidecore-pmpi.so preloaded, then checks the profiles it wrote, and that
# `sidecore whatif` refuses its traces (they have no operation records to replay).
# Usage: run_pmpi_test.sh <mpiexec> <nranks> <preload> <pmpi_app> <pmpi_check> <work dir> <sidecore>
# <preload> is the LD_PRELOAD value: libsidecore-pmpi.so, preceded by the ASan runtime in the Asan build.
set -eu
mpiexec=$1 n=$2 preload=$3 app=$4 check=$5 dir=$6 cli=$7
rm -rf "$dir" && mkdir -p "$dir"
SIDECORE_PROFILE="$dir/profile.%r.json" SIDECORE_TRACE="$dir/trace.%r.json" SIDECORE_NCORE=3 \
  "$mpiexec" -n "$n" -genv LD_PRELOAD "$preload" "$app"
"$check" "$dir/profile.%r.json" "$n" "$dir/trace.%r.json"
rc=0
"$cli" whatif --cores 2 "$dir"/trace.*.json > "$dir/whatif.txt" 2>&1 || rc=$?
cat "$dir/whatif.txt"
if [ $rc -ne 2 ] || ! grep -q "otherData.ops: missing: the trace has no operation records" "$dir/whatif.txt"; then
  echo "FAILED: whatif on the PMPI profiler's traces: exit status $rc, expected 2 and the refusal"
  exit 1
fi

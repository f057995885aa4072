#!/bin/sh
# Runs pmpi_app under mpiexec with libsidecore-pmpi.so preloaded, then checks the profiles it wrote.
# Usage: run_pmpi_test.sh <mpiexec> <nranks> <preload> <pmpi_app> <pmpi_check> <work dir>
# <preload> is the LD_PRELOAD value: libsidecore-pmpi.so, preceded by the ASan runtime in the Asan build.
set -eu
mpiexec=$1 n=$2 preload=$3 app=$4 check=$5 dir=$6
rm -rf "$dir" && mkdir -p "$dir"
SIDECORE_PROFILE="$dir/profile.%r.json" SIDECORE_TRACE="$dir/trace.%r.json" SIDECORE_NCORE=3 \
  "$mpiexec" -n "$n" -genv LD_PRELOAD "$preload" "$app"
exec "$check" "$dir/profile.%r.json" "$n" "$dir/trace.%r.json"

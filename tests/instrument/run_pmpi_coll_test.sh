#!/bin/sh
# Runs pmpi_coll_app under mpiexec with libsidecore-pmpi.so preloaded, one rank late; checks the job profile's
# collectives section (pmpi_coll_check), and that `sidecore report` and `sidecore predict` name the late rank.
# Usage: run_pmpi_coll_test.sh <mpiexec> <nranks> <late rank> <preload> <pmpi_coll_app> <pmpi_coll_check> <sidecore>
#        <work dir>
set -eu
mpiexec=$1 n=$2 late=$3 preload=$4 app=$5 check=$6 cli=$7 dir=$8
sleep_ms=20 iters=5
rm -rf "$dir" && mkdir -p "$dir"
SIDECORE_PROFILE="$dir/profile.%r.json" SIDECORE_NCORE=4 \
  "$mpiexec" -n "$n" -genv LD_PRELOAD "$preload" "$app" "$late" "$sleep_ms" "$iters"
"$check" "$dir/profile.job.json" "$n" "$late" "$sleep_ms" "$iters"
"$cli" report -o "$dir/report.html" "$dir/profile.job.json"
grep -q "rank $late arrived last at" "$dir/report.html" || \
  { echo "FAILED: the report does not name rank $late"; exit 1; }
"$cli" predict "$dir/profile.job.json" >"$dir/predict.txt"
grep -q "imbalance: rank $late arrived last at" "$dir/predict.txt" || \
  { echo "FAILED: predict does not name rank $late"; cat "$dir/predict.txt"; exit 1; }
echo "ok: report and predict name rank $late as the last to arrive"

#!/bin/sh
# The collectives executor reports to the instrumentation: a profiled run of collectives writes the monitoring
# section (instances per kind) and the overlap broken down by collective kind (transfers carry their kind).
#   check_coll_profile.sh MPIEXEC TEST_RUNTIME_COLL DIR
set -u
mpiexec=$1 bin=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" || exit 1
SIDECORE_PROVIDER=shm SIDECORE_PROFILE="$dir/p.%r.json" "$mpiexec" -n 2 "$bin" \
  --gtest_filter='*DataMovementOfEveryAlgorithm*:*ReductionsOfEveryAlgorithm*' >"$dir/log" 2>&1 ||
  { echo "FAIL: the profiled run failed:"; tail -20 "$dir/log"; exit 1; }
job="$dir/p.job.json"
[ -f "$job" ] || { echo "FAIL: no job profile $job"; exit 1; }
grep -q '"by_kind"' "$job" || { echo "FAIL: $job has no collectives.by_kind section"; exit 1; }
for k in allreduce bcast allgather alltoall; do
  grep -q "\"kind\": *\"$k\"" "$job" || { echo "FAIL: no monitored $k instance in $job"; exit 1; }
  grep -q "\"op\": *\"$k\"" "$job" || { echo "FAIL: no $k transfers in overlap.by_op of $job"; exit 1; }
done
echo "PASS: collectives monitored and their transfers counted per kind"

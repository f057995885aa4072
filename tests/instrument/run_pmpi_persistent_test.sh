#!/bin/sh
# Runs pmpi_persistent_app (persistent collectives, partitioned communication) on <n> ranks under libsidecore-pmpi.so
# and checks each rank's profile: the calls of every category and the instances of every collective kind, exactly;
# the tests and waits of the program's polling loops as the program counted them.
# Usage: run_pmpi_persistent_test.sh <mpiexec> <n> <preload> <pmpi_persistent_app> <pmpi_edge_check> <work dir>
set -u
mpiexec=$1 n=$2 preload=$3 app=$4 check=$5 dir=$6
rm -rf "$dir" && mkdir -p "$dir"
timeout 60 "$mpiexec" -n "$n" -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/p.%r.json" "$app" \
  >"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/out" "$dir/err"
[ $rc -eq 0 ] || { echo "FAILED: exit status $rc"; exit 1; }
grep -qF "pmpi_persistent_app: done" "$dir/out" || { echo "FAILED: the program did not end right"; exit 1; }
fail=0
r=0
while [ $r -lt "$n" ]; do
  polls=$(sed -n "s/^pmpi_persistent_app: rank $r polls: test=\([0-9]*\) waitsome=\([0-9]*\)$/\1 \2/p" "$dir/out")
  [ -n "$polls" ] || { echo "FAILED: rank $r printed no polls"; exit 1; }
  set -- $polls
  "$check" "$dir/p.$r.json" blocking=5 init=31 test="$1" wait=$((21 + $2)) other=28 coll:allreduce=7 coll:bcast=5 \
    coll:barrier=11 coll:reduce=2 coll:allgather=2 coll:alltoall=1 unmatched=0 || fail=1
  r=$((r + 1))
done
[ $fail -eq 0 ] && echo "ok: every rank's calls and collective instances counted exactly"
exit $fail

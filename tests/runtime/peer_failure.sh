#!/bin/sh
# A rank killed mid-run (peer_failure.cpp): hydra's -disable-auto-cleanup keeps the other ranks running, and mpiexec
# then exits with the dead rank's status whatever the survivors did, so success is read from their output: every
# survivor prints "peer_failure: rank R: passed", and no line says FAILED. A run that hangs is cut after PER_RUN
# seconds (the survivors bound each wait themselves; this is the backstop).
# usage: peer_failure.sh <mpiexec> <peer_failure> <ranks>
set -u
mpiexec=$1 prog=$2 n=$3
PER_RUN=${PER_RUN:-90}
# Each rank runs under a shell that outlives it: hydra 4.0.2, seeing a rank die by a signal even with
# -disable-auto-cleanup, exits within a second and its proxy takes the survivors down with it (measured); a rank
# whose shell exits normally leaves the others running to their end. The shell ignores the SIGUSR1 hydra sends.
out=$(timeout "$PER_RUN" "$mpiexec" -disable-auto-cleanup -n "$n" sh -c 'trap "" USR1; "$0"' "$prog" 2>&1)
rc=$?
printf '%s\n' "$out"
passed=$(printf '%s\n' "$out" | grep -c '^peer_failure: rank [0-9]*: passed$')
if [ "$rc" -eq 124 ]; then
  echo "peer_failure.sh: the run did not end within ${PER_RUN} s" >&2
  exit 1
fi
if printf '%s\n' "$out" | grep -q FAILED || [ "$passed" -ne $((n - 1)) ]; then
  echo "peer_failure.sh: $passed of $((n - 1)) survivors passed (mpiexec exit $rc)" >&2
  exit 1
fi
echo "peer_failure.sh: all $passed survivors passed"

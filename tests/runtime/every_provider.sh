#!/bin/sh
# Init and a ping-pong at 2 ranks on every provider libfabric offers for sidecore's endpoint (list_providers):
# each either works or is refused at init with its reason (provider_pingpong). A run that hangs fails here, after
# PER_RUN seconds, instead of stalling the suite.
# usage: every_provider.sh <mpiexec> <list_providers> <provider_pingpong>
set -u
mpiexec=$1 lister=$2 pingpong=$3
PER_RUN=${PER_RUN:-60}
providers=$("$lister") || exit 1
failed=0
tab=$(printf '\t')
# The ip-based providers on loopback: traffic stays on this machine.
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
while IFS="$tab" read -r name expect; do
  [ -n "$name" ] || continue
  if SIDECORE_PROVIDER="$name" timeout -k 5 "$PER_RUN" "$mpiexec" -n 2 "$pingpong" "$expect"; then
    :
  else
    echo "every_provider: provider '$name' ($expect) failed (exit $?)" >&2
    failed=1
  fi
done <<LIST
$providers
LIST
exit $failed

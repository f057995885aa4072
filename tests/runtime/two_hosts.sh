#!/bin/bash
# A second host, for real: two ranks in two network namespaces joined by a veth pair, tcp;ofi_rxm across it.
#   1. the point-to-point suite in modes off and core, and the collectives suite;
#   2. the same traffic with the link rate-limited (tc tbf);
#   3. the link set down and up again in the middle of the transfers: TCP retransmits, every message arrives once
#      (the suites check contents, order and counts);
#   4. a rank killed mid-transfer (peer_failure.cpp, as peer_failure.sh runs it): the survivor's requests complete
#      with errc::peer_failed and it finalizes.
# Needs root and iproute2; otherwise it says why and exits 77 (ctest: skipped). The namespaces, the veth pair and
# the qdisc are made here with names unique to this run, on private addresses that exist only inside the two
# namespaces, and removed on every exit (a trap). Each run has a timeout: a hang fails the test, it never stalls it.
#   5. the link down from the start: init fails on both ranks within SIDECORE_PEER_TIMEOUT, naming the peer.
# usage: two_hosts.sh <mpiexec> <test_runtime_p2p> <test_runtime_coll> <test_runtime_peer_failure> <provider_pingpong>
#   PER_RUN=seconds per run (300); TWO_HOSTS_ONLY=<case name> runs one case; TWO_HOSTS_ENV='VAR=value ...' adds
#   to the ranks' environment (FI_LOG_LEVEL=warn, to see what libfabric says).
set -u
mpiexec=$1 p2p=$2 coll=$3 peer_failure=$4 pingpong=$5
PER_RUN=${PER_RUN:-300}

skip() { echo "two_hosts: SKIPPED: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to create network namespaces (uid $(id -u))"
command -v ip >/dev/null || skip "needs iproute2's ip"
command -v tc >/dev/null || skip "needs iproute2's tc"

id=$$
nsa=sc2h-a-$id nsb=sc2h-b-$id
veth_a=sc2h${id}a veth_b=sc2h${id}b
cleanup() {
  ip netns del "$nsa" 2>/dev/null
  ip netns del "$nsb" 2>/dev/null  # deleting a namespace deletes its end of the pair, and so the pair
  ip link del "$veth_a" 2>/dev/null
  true
}
trap cleanup EXIT INT TERM

ip netns add "$nsa" && ip netns add "$nsb" || skip "cannot create network namespaces here"
ip link add "$veth_a" type veth peer name "$veth_b" || skip "cannot create a veth pair here"
ip link set "$veth_a" netns "$nsa" && ip link set "$veth_b" netns "$nsb" || exit 1
# Inside its namespace each end is called scv0: one FI_TCP_IFACE for both ranks.
ip -n "$nsa" link set "$veth_a" name scv0 && ip -n "$nsb" link set "$veth_b" name scv0 || exit 1
ip -n "$nsa" addr add 10.213.0.1/30 dev scv0 && ip -n "$nsb" addr add 10.213.0.2/30 dev scv0 || exit 1
for ns in "$nsa" "$nsb"; do ip -n "$ns" link set lo up && ip -n "$ns" link set scv0 up || exit 1; done

# MPI counts both namespaces as one node (one host, one /dev/shm): the node rings would carry the control messages
# past the link. Two real hosts share no memory, so the fast path is off here.
env_vars=(SIDECORE_PROVIDER='tcp;ofi_rxm' FI_TCP_IFACE=scv0 SIDECORE_SHM_FASTPATH=off ${TWO_HOSTS_ENV:-})
failed=0
# run NAME MODE PROGRAM ARGS...: one rank in each namespace.
run() {
  local name=$1 mode=$2 prog=$3; shift 3
  [[ -z ${TWO_HOSTS_ONLY:-} || $name == ${TWO_HOSTS_ONLY} ]] || return 0
  echo "== $name (mode $mode)"
  if timeout -k 10 "$PER_RUN" "$mpiexec" \
      -n 1 ip netns exec "$nsa" env "${env_vars[@]}" SIDECORE_PROGRESS="$mode" "$prog" "$@" : \
      -n 1 ip netns exec "$nsb" env "${env_vars[@]}" SIDECORE_PROGRESS="$mode" "$prog" "$@" >"$out/$name.log" 2>&1; then
    echo "ok: $name ($(grep -c '^\[       OK' "$out/$name.log") test runs passed)"
  else
    echo "FAILED: $name (exit $?); last lines of $out/$name.log:"
    tail -n 20 "$out/$name.log"
    failed=1
  fi
}
out=$(mktemp -d)
trap 'cleanup; rm -rf "$out"' EXIT INT TERM

run p2p.off off "$p2p" --gtest_filter=-*KnownBug*
run p2p.core core "$p2p" --gtest_filter=-*KnownBug*
run coll.off off "$coll" --gtest_filter=-*KnownBug*

# Rate-limited link (100 Mbit/s, both directions): the transfers take longer, nothing else changes.
transfers='*RingExchangeZeroBytesTo16MiB*:*FifteenHundredRendezvousMessagesInFlight*:*MixedProtocolsKeepOrder*'
transfers+=':*MoreUnexpectedMessagesThanReceiveBuffers*:*TwoThousandReceivesPostedBeforeTheSends*'
for ns in "$nsa" "$nsb"; do
  ip netns exec "$ns" tc qdisc add dev scv0 root tbf rate 100mbit burst 64kb latency 100ms || exit 1
done
run p2p.tbf off "$p2p" --gtest_filter="$transfers"
for ns in "$nsa" "$nsb"; do ip netns exec "$ns" tc qdisc del dev scv0 root; done

# The link goes down for 2 s while the transfers run (three times over), then comes back: TCP retransmits.
(
  # After init and its connections (a link down while they are made is another case: docs/runtime.md).
  for _ in $(seq 600); do \
    grep -q 'RUN .*P2P.RingExchange' "$out/p2p.link_down_up.log" 2>/dev/null && break; sleep 0.1; done
  sleep 0.3
  ip -n "$nsa" link set scv0 down
  sleep 2
  ip -n "$nsa" link set scv0 up
) &
flapper=$!
run p2p.link_down_up core "$p2p" --gtest_filter="$transfers" --gtest_repeat=3
wait "$flapper"

# A rank killed: see peer_failure.sh for why each rank runs under a shell that ignores SIGUSR1 and why success is
# read from the survivor's output (mpiexec returns the dead rank's status).
if [[ -z ${TWO_HOSTS_ONLY:-} || peer_failure == ${TWO_HOSTS_ONLY} ]]; then
  echo "== peer_failure (rank 1 killed mid-transfer)"
  rank_cmd=(sh -c 'trap "" USR1; "$0"' "$peer_failure")
  timeout -k 10 "$PER_RUN" "$mpiexec" -disable-auto-cleanup \
    -n 1 ip netns exec "$nsa" env "${env_vars[@]}" SIDECORE_PEER_TIMEOUT=5 "${rank_cmd[@]}" : \
    -n 1 ip netns exec "$nsb" env "${env_vars[@]}" SIDECORE_PEER_TIMEOUT=5 "${rank_cmd[@]}" \
    >"$out/peer_failure.log" 2>&1
  rc=$?
  if [ "$rc" -ne 124 ] && grep -q '^peer_failure: rank 0: passed$' "$out/peer_failure.log" &&
     ! grep -q FAILED "$out/peer_failure.log"; then
    echo "ok: peer_failure (the survivor passed)"
  else
    echo "FAILED: peer_failure (mpiexec exit $rc); last lines of $out/peer_failure.log:"
    tail -n 20 "$out/peer_failure.log"
    failed=1
  fi
fi

# The link down while the ranks make their connections (init): with SIDECORE_PEER_TIMEOUT set, init fails on both
# ranks naming the peer it cannot reach, instead of waiting for the link.
if [[ -z ${TWO_HOSTS_ONLY:-} || link_down_at_init == ${TWO_HOSTS_ONLY} ]]; then
  echo "== link_down_at_init"
  ip -n "$nsa" link set scv0 down
  if timeout -k 10 "$PER_RUN" "$mpiexec" \
      -n 1 ip netns exec "$nsa" env "${env_vars[@]}" SIDECORE_PEER_TIMEOUT=3 "$pingpong" unreachable : \
      -n 1 ip netns exec "$nsb" env "${env_vars[@]}" SIDECORE_PEER_TIMEOUT=3 "$pingpong" unreachable \
      >"$out/link_down_at_init.log" 2>&1; then
    echo "ok: link_down_at_init (init failed on both ranks, naming the peer)"
  else
    echo "FAILED: link_down_at_init (exit $?); last lines of $out/link_down_at_init.log:"
    tail -n 20 "$out/link_down_at_init.log"
    failed=1
  fi
  ip -n "$nsa" link set scv0 up
fi

exit $failed

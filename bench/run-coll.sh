#!/usr/bin/env bash
# Collective latency and overlap (the OSU method, bench/README.md "How we measure") in one invocation: MPICH's
# blocking and nonblocking collectives, sidecore off and sidecore core, on 2 ranks in the idle-peer configuration
# (rank 0 computes and reports; pinned as lib.sh says; the peer sleeps in its waits in core mode only), then one table
# per kind: size x {mpich, off, core} with the blocking latency, the nonblocking pure time and the overlap %, issue 14's
# targets marked:
#   [core>=90%]   overlap >= 90 % in core mode at 64 KiB .. 4 MiB (iallreduce, ibcast, iallgather, ialltoall)
#   [off<=1.5x]   off mode's pure latency within 1.5 x MPICH's blocking collective at >= 64 KiB, 2 x below
# Each mark says ok or MISS. Medians of --reps repetitions per point (bench_coll).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

reps=21 max=16777216 kinds=allreduce,bcast,allgather,alltoall build="" OUT=""
for a in "$@"; do
  case $a in
    --quick) reps=3 max=65536 ;;
    --reps=*) reps=${a#--reps=} ;;
    --max-bytes=*) max=${a#--max-bytes=} ;;
    --kinds=*) kinds=${a#--kinds=} ;;
    --out=*) OUT=${a#--out=} ;;
    -h|--help)
      echo "usage: $0 [--quick] [--reps=N] [--max-bytes=N] [--kinds=allreduce,bcast,allgather,alltoall] \
[--out=DIR] [BUILD_DIR]"
      bench_usage_common
      exit 0 ;;
    -*) echo "error: unknown option '$a' (see --help)" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "error: --reps=$reps is not accepted: give a positive integer" >&2; exit 2; }
[[ $max =~ ^[1-9][0-9]*$ ]] || { echo "error: --max-bytes=$max is not accepted: give a positive integer" >&2; exit 2; }
bin=$(bench_find_bin "$build" bench_coll)
OUT=${OUT:-$(dirname "$bin")/bench-results/coll-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
export SIDECORE_PROVIDER=${SIDECORE_PROVIDER:-shm}
[[ $SIDECORE_PROVIDER == tcp ]] && export SIDECORE_PROVIDER="tcp;ofi_rxm" FI_TCP_IFACE=lo
last=$(($(nproc) - 1))
args=(--reps="$reps" --max-bytes="$max" --kinds="$kinds")

run() {  # NAME MODE: one bench_coll run (MODE mpich|off|core)
  local name=$1 mode=$2 r0=() env0=()
  case $mode in
    mpich) r0=(taskset -c 0 "$bin/bench_coll" --impl=mpi) ;;
    off) r0=(taskset -c 0 "$bin/bench_coll" --impl=sidecore); env0=(-env SIDECORE_PROGRESS off) ;;
    core) r0=("$bin/bench_coll" --impl=sidecore); env0=(-env SIDECORE_PROGRESS core) ;;
  esac
  local r1=(taskset -c "$last" "$bin/bench_coll" --impl="${r0[-1]#--impl=}")
  # The peer sleeps in its waits only where it shares the progress core (core mode); in off mode its core is its
  # own and it waits as sidecore's default does (hybrid: spins first), as MPICH's peer spins: sleeping, it made
  # every message of rank 0 a cross-core wake-up (bcast 64 B at the root: 0.9-1.1 us, spinning 0.5-0.7 us, MPICH
  # 0.3-0.55 us; 2026-11-27).
  [[ $mode == core ]] && r1=(-env SIDECORE_PROGRESS off -env SIDECORE_IDLE block "${r1[@]}")
  [[ $mode == off ]] && r1=(-env SIDECORE_PROGRESS off "${r1[@]}")
  printf '$ mpiexec -n 1 %s %s %s : -n 1 %s %s\n' "${env0[*]}" "${r0[*]}" "${args[*]}" "${r1[*]}" "${args[*]}"
  timeout --kill-after=10 1800 mpiexec -n 1 "${env0[@]}" "${r0[@]}" "${args[@]}" : -n 1 "${r1[@]}" "${args[@]}" \
    >"$OUT/$name.log" 2>&1 || \
      { echo "!! $name failed; last lines of $OUT/$name.log:"; tail -n 15 "$OUT/$name.log"; exit 1; }
}
run mpich mpich
run off off
run core core
cat "$OUT"/{mpich,off,core}.log | grep -v '^#' | grep -E '^(mpi|sidecore) ' >"$OUT/all.txt"

awk '
  {
    key = $3 " " $4; mode = $2; blk[mode, key] = $5; pure[mode, key] = $6; ov[mode, key] = $9
    kinds[$3] = 1; sizes[$4] = 1
  }
  END {
    n = 0; for (s in sizes) list[++n] = s + 0
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (list[j] < list[i]) {
      t = list[i]; list[i] = list[j]; list[j] = t
    }
    for (k in kinds) {
      printf "\n== %s (2 ranks): latency us (blocking / nonblocking pure), overlap %% at compute = pure\n", k
      printf "%10s | %21s | %21s | %21s | %s\n", "bytes", "mpich blk/pure ovl%", "off blk/pure ovl%",
        "core blk/pure ovl%", "targets"
      for (i = 1; i <= n; i++) {
        s = list[i]; key = k " " s
        if (!((("mpich", key) in blk))) continue
        marks = ""
        if (s >= 65536 && s <= 4194304 && (("core", key) in ov))
          marks = marks sprintf(" [core>=90%%: %s]", ov["core", key] >= 90 ? "ok" : "MISS")
        if (("off", key) in pure) {
          lim = s >= 65536 ? 1.5 : 2.0
          marks = marks sprintf(" [off<=%.1fx: %.2fx %s]", lim, pure["off", key] / blk["mpich", key],
            pure["off", key] <= lim * blk["mpich", key] ? "ok" : "MISS")
        }
        printf "%10d | %8.1f/%8.1f %3.0f | %8.1f/%8.1f %3.0f | %8.1f/%8.1f %3.0f |%s\n", s,
          blk["mpich", key], pure["mpich", key], ov["mpich", key], blk["off", key], pure["off", key], ov["off", key],
          blk["core", key], pure["core", key], ov["core", key], marks
      }
    }
  }' "$OUT/all.txt" | tee "$OUT/summary.txt"
echo
echo "logs and summary: $OUT"

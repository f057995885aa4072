#!/usr/bin/env bash
# Point-to-point overlap (seed 000 Section 3, bench/README.md "How we measure") in one invocation: the system MPI,
# sidecore off and sidecore core side by side, in the idle-peer configuration (2 ranks) and in the self configuration
# (1 rank sending to itself), then a table for each: size × {sender, receiver, both} × {mpi, off, core}, overlap %
# median [min, max] at t_comp = 1 × t_comm, with issue 2's targets marked (sender and receiver side ≥ 90 % at 1 MiB and
# 8 MiB in core mode) and rows flagged where core mode's t_comm is not the transfer but the peer waking up.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

quick=() reps=() extra=() build="" OUT="" peer_idle=block peer_env=()
for a in "$@"; do
  case $a in
    --quick) quick=(--quick) ;;
    --peer-idle=*) peer_idle=${a#--peer-idle=} ;;
    --peer-block-us=*) peer_env=(-env SIDECORE_BLOCK_US "${a#--peer-block-us=}") ;;
    --reps=*) reps=("$a") ;;
    --out=*) OUT=${a#--out=} ;;
    --verbose | --peer-compute=* | --report-factor=*) extra+=("$a") ;;
    -h|--help)
      echo "usage: $0 [--quick] [--reps=N] [--out=DIR] [--verbose] [--peer-compute=sleep|none] [--report-factor=F]"
      echo "          [--peer-idle=block|hybrid|spin] [--peer-block-us=N] [BUILD_DIR]"
      bench_usage_common
      echo "  --peer-idle, --peer-block-us: SIDECORE_IDLE (default block) and SIDECORE_BLOCK_US of the peer (rank 1)"
      echo "  --verbose, --peer-compute, --report-factor are passed to bench_overlap (see bench/README.md)"
      exit 0 ;;
    -*) echo "error: unknown option '$a' (see --help)" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
[[ $peer_idle =~ ^(block|hybrid|spin)$ ]] || \
  { echo "error: --peer-idle=$peer_idle: give block, hybrid or spin" >&2; exit 2; }
bin=$(bench_find_bin "$build" bench_overlap)
OUT=${OUT:-$bin/../bench-results/overlap-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
last=$(($(nproc) - 1))
limit=$([[ ${#quick[@]} -gt 0 ]] && echo 60 || echo 1200)
args=("${quick[@]}" "${reps[@]}" "${extra[@]}" --benchmark_color=false)

echo "== run-overlap.sh: $(nproc) cores, provider ${SIDECORE_PROVIDER:-shm (default)}, logs in $OUT"
echo "   idle-peer: rank 0 measured on core 0 (core mode: pinned by the library, progress thread on core $last);"
echo "   peer taskset -c $last, blocking waits where the implementation has them \
(sidecore: SIDECORE_IDLE=$peer_idle${peer_env[*]:+, ${peer_env[*]:1}})"
failed=0
bench_run mpi "$limit" mpiexec -n 1 taskset -c 0 "$bin/bench_overlap" --impl=mpi "${args[@]}" --summary="$OUT/mpi.tsv" \
  --csv="$OUT/mpi.csv" : -n 1 taskset -c "$last" "$bin/bench_overlap" --impl=mpi "${args[@]}" || failed=1
bench_run off "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS off taskset -c 0 "$bin/bench_overlap" --impl=sidecore \
  "${args[@]}" --summary="$OUT/off.tsv" --csv="$OUT/off.csv" \
  : -n 1 -env SIDECORE_PROGRESS off -env SIDECORE_IDLE "$peer_idle" "${peer_env[@]}" \
  taskset -c "$last" "$bin/bench_overlap" --impl=sidecore "${args[@]}" || failed=1
bench_run core "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS core "$bin/bench_overlap" --impl=sidecore "${args[@]}" \
  --summary="$OUT/core.tsv" --csv="$OUT/core.csv" \
  : -n 1 -env SIDECORE_PROGRESS off -env SIDECORE_IDLE "$peer_idle" "${peer_env[@]}" \
  taskset -c "$last" "$bin/bench_overlap" --impl=sidecore "${args[@]}" || failed=1

# Self: one rank sending to itself, no peer. On 2 cores this is the configuration where core mode's progress thread
# has a core of its own and no peer has to wake up for the transfer; see bench/README.md.
bench_run mpi-self "$limit" mpiexec -n 1 taskset -c 0 "$bin/bench_overlap" --impl=mpi "${args[@]}" \
  --summary="$OUT/mpi-self.tsv" --csv="$OUT/mpi-self.csv" || failed=1
bench_run off-self "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS off taskset -c 0 "$bin/bench_overlap" --impl=sidecore \
  "${args[@]}" --summary="$OUT/off-self.tsv" --csv="$OUT/off-self.csv" || failed=1
bench_run core-self "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS core "$bin/bench_overlap" --impl=sidecore \
  "${args[@]}" --summary="$OUT/core-self.tsv" --csv="$OUT/core-self.csv" || failed=1

# overlap_table SUFFIX REF WHY: one configuration's table ("" = idle peer, "-self") from <impl>SUFFIX.tsv; rows
# whose core-mode t_comm exceeds 3x the REF run's (mpi or off) are flagged, WHY saying what the excess usually is.
overlap_table() {
local suffix=$1 ref=$2 why=$3
echo "   t_comm = the transfer alone (us, median), mpi / off / core"
for f in mpi off core; do [[ -f $OUT/$f$suffix.tsv ]] || : >"$OUT/$f$suffix.tsv"; done
awk -F'\t' -v suffix="$suffix" -v ref="$ref" -v why="$why" '
  function cell(k) { return (k in med) ? sprintf("%5.1f [%5.1f,%5.1f]", med[k], lo[k], hi[k]) : sprintf("%19s", "-") }
  function tc(k) { return (k in tcomm) ? sprintf("%.1f", tcomm[k]) : "-" }
  function label(s) {
    return s >= 1048576 && s % 1048576 == 0 ? s / 1048576 "M" : s >= 1024 && s % 1024 == 0 ? s / 1024 "K" : s
  }
  FNR == 1 { run = FILENAME; sub(/.*\//, "", run); sub(suffix "\\.tsv$", "", run) }
  $1 ~ /^overlap_[a-z]+$/ {
    pat = substr($1, 9); k = run SUBSEP pat SUBSEP $2; med[k] = $3; lo[k] = $4; hi[k] = $5
    if (!($2 in seen)) { seen[$2] = 1; sizes[++n] = $2 }
  }
  $1 ~ /^tcomm_us_/ { pat = substr($1, 10); tcomm[run SUBSEP pat SUBSEP $2] = $3 }
  END {
    # sizes in numeric order whatever the file order
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (sizes[j] + 0 < sizes[i] + 0) {
      t = sizes[i]; sizes[i] = sizes[j]; sizes[j] = t
    }
    printf "%6s  %-9s  %-21s%-21s%-21s  %-26s %s\n", "size", "side", "mpi", "sidecore off", "sidecore core",
      "t_comm us mpi/off/core", "target (core)"
    split("sender receiver both", pats, " ")
    missed = 0; inflated = 0
    for (i = 1; i <= n; i++) for (p = 1; p <= 3; p++) {
      s = sizes[i]; c = "core" SUBSEP pats[p] SUBSEP s; m = "mpi" SUBSEP pats[p] SUBSEP s; mark = ""
      if ((s == 1048576 || s == 8388608) && pats[p] != "both") {
        if (!(c in med)) mark = ">= 90: not measured"
        else if (med[c] >= 90) mark = ">= 90: met"
        else { mark = ">= 90: MISSED"; missed++ }
      }
      # A core-mode t_comm far above the reference is not the transfer alone (see WHY), and computing "overlaps"
      # that extra wait. Flag it so the figure is not read as transfer overlap.
      rk = ref SUBSEP pats[p] SUBSEP s
      if ((c in tcomm) && (rk in tcomm) && tcomm[c] > 3 * tcomm[rk] && tcomm[c] - tcomm[rk] > 5) {
        mark = mark (mark == "" ? "" : ", ") sprintf("t_comm %.0fx %s!", tcomm[c] / tcomm[rk], ref); inflated++
      }
      printf "%6s  %-9s  %-21s%-21s%-21s  %-26s %s\n", label(s), pats[p], cell(m), \
             cell("off" SUBSEP pats[p] SUBSEP s), cell(c), tc(m) "/" tc("off" SUBSEP pats[p] SUBSEP s) "/" tc(c), mark
    }
    printf "\ntargets missed in this configuration: %d of 4 (sender and receiver side, 1 MiB and 8 MiB, " \
           "sidecore core, median)\n", missed
    if (inflated)
      printf "warning: %d row(s) where core-mode t_comm is > 3x the %s one: there %s,\n" \
             "and overlap %% measures hiding that wait as well as the transfer. See bench/README.md, caveats.\n", \
             inflated, ref, why
  }
' "$OUT/mpi$suffix.tsv" "$OUT/off$suffix.tsv" "$OUT/core$suffix.tsv"
}

echo
echo "== overlap %, idle peer (2 ranks): median [min, max] over repetitions, at the reported computation point"
overlap_table "" mpi "the transfer time is mostly the peer waking up (its SIDECORE_IDLE)"
echo
echo "== overlap %, self (1 rank sending to itself, no peer): the same"
overlap_table "-self" off "the hand-off to the progress thread and back costs more than the copy"
echo
echo "whole sweeps (every computation point, t_comm/t_comp/t_total medians): $OUT/{mpi,off,core}{,-self}.csv"
echo "logs and summaries: $OUT"
exit $failed

#!/usr/bin/env bash
# Point-to-point overlap (seed 000 Section 3, shared/docs/measuring.md), idle-peer configuration, in one invocation:
# the system MPI, sidecore off and sidecore core side by side, then one table: size × {sender, receiver, both} ×
# {mpi, off, core}, overlap % median [min, max] at t_comp = 1 × t_comm, with issue 2's targets marked
# (sender and receiver side ≥ 90 % at 1 MiB and 8 MiB in core mode).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

quick=() reps=() extra=() build="" OUT=""
for a in "$@"; do
  case $a in
    --quick) quick=(--quick) ;;
    --reps=*) reps=("$a") ;;
    --out=*) OUT=${a#--out=} ;;
    --verbose | --peer-compute=* | --report-factor=*) extra+=("$a") ;;
    -h|--help)
      echo "usage: $0 [--quick] [--reps=N] [--out=DIR] [--verbose] [--peer-compute=sleep|none] [--report-factor=F] [BUILD_DIR]"
      bench_usage_common
      echo "  --verbose, --peer-compute, --report-factor are passed to bench_overlap (see bench/README.md)"
      exit 0 ;;
    -*) echo "error: unknown option '$a' (see --help)" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
bin=$(bench_find_bin "$build" bench_overlap)
OUT=${OUT:-$bin/../bench-results/overlap-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
last=$(($(nproc) - 1))
limit=$([[ ${#quick[@]} -gt 0 ]] && echo 60 || echo 1200)
args=("${quick[@]}" "${reps[@]}" "${extra[@]}" --benchmark_color=false)

echo "== run-overlap.sh: $(nproc) cores, provider ${SIDECORE_PROVIDER:-shm (default)}, logs in $OUT"
echo "   idle-peer: rank 0 measured on core 0 (core mode: pinned by the library, progress thread on core $last);"
echo "   peer taskset -c $last, blocking waits where the implementation has them (sidecore: SIDECORE_IDLE=block)"
failed=0
bench_run mpi "$limit" mpiexec -n 1 taskset -c 0 "$bin/bench_overlap" --impl=mpi "${args[@]}" --summary="$OUT/mpi.tsv" \
  --csv="$OUT/mpi.csv" : -n 1 taskset -c "$last" "$bin/bench_overlap" --impl=mpi "${args[@]}" || failed=1
bench_run off "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS off taskset -c 0 "$bin/bench_overlap" --impl=sidecore \
  "${args[@]}" --summary="$OUT/off.tsv" --csv="$OUT/off.csv" : -n 1 -env SIDECORE_PROGRESS off -env SIDECORE_IDLE block \
  taskset -c "$last" "$bin/bench_overlap" --impl=sidecore "${args[@]}" || failed=1
bench_run core "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS core "$bin/bench_overlap" --impl=sidecore "${args[@]}" \
  --summary="$OUT/core.tsv" --csv="$OUT/core.csv" : -n 1 -env SIDECORE_PROGRESS off -env SIDECORE_IDLE block \
  taskset -c "$last" "$bin/bench_overlap" --impl=sidecore "${args[@]}" || failed=1

echo
echo "== overlap %, median [min, max] over repetitions, at the reported computation point (see each run's header)"
for f in mpi off core; do [[ -f $OUT/$f.tsv ]] || : >"$OUT/$f.tsv"; done
awk -F'\t' '
  function cell(k) { return (k in med) ? sprintf("%5.1f [%5.1f,%5.1f]", med[k], lo[k], hi[k]) : sprintf("%19s", "-") }
  function label(s) { return s >= 1048576 && s % 1048576 == 0 ? s / 1048576 "M" : s >= 1024 && s % 1024 == 0 ? s / 1024 "K" : s }
  FNR == 1 { run = FILENAME; sub(/.*\//, "", run); sub(/\.tsv$/, "", run) }
  $1 ~ /^overlap_[a-z]+$/ {
    pat = substr($1, 9); k = run SUBSEP pat SUBSEP $2; med[k] = $3; lo[k] = $4; hi[k] = $5
    if (!($2 in seen)) { seen[$2] = 1; sizes[++n] = $2 }
  }
  END {
    # sizes in numeric order whatever the file order
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (sizes[j] + 0 < sizes[i] + 0) { t = sizes[i]; sizes[i] = sizes[j]; sizes[j] = t }
    printf "%6s  %-9s  %-21s%-21s%-21s  %s\n", "size", "side", "mpi", "sidecore off", "sidecore core", "target (core)"
    split("sender receiver both", pats, " ")
    missed = 0
    for (i = 1; i <= n; i++) for (p = 1; p <= 3; p++) {
      s = sizes[i]; c = "core" SUBSEP pats[p] SUBSEP s; mark = ""
      if ((s == 1048576 || s == 8388608) && pats[p] != "both") {
        if (!(c in med)) mark = ">= 90: not measured"
        else if (med[c] >= 90) mark = ">= 90: met"
        else { mark = ">= 90: MISSED"; missed++ }
      }
      printf "%6s  %-9s  %-21s%-21s%-21s  %s\n", label(s), pats[p], cell("mpi" SUBSEP pats[p] SUBSEP s), \
             cell("off" SUBSEP pats[p] SUBSEP s), cell(c), mark
    }
    printf "\ntargets missed: %d of 4 (sender and receiver side, 1 MiB and 8 MiB, sidecore core, median)\n", missed
  }
' "$OUT/mpi.tsv" "$OUT/off.tsv" "$OUT/core.tsv"
echo
echo "whole sweeps (every computation point, t_comm/t_comp/t_total medians): $OUT/{mpi,off,core}.csv"
echo "logs and summaries: $OUT"
exit $failed

#!/usr/bin/env bash
# Issue 18's targets, sidecore against MPICH and raw libfabric in one run: bench_p2p_paired alternates raw,
# sidecore and MPI blocks in one process pair (so every side of a ratio sees the same VM phase), --runs times per
# configuration; each target is judged on the median [min, max] of the runs' median ratios.
#   2 ranks, mode off, node rings on (SIDECORE_SHM_FASTPATH=on):  8 B latency <= 1.0 x MPICH and <= 0.8 x raw
#                                                                 libfabric; 1 MiB bandwidth >= 0.95 x the better
#   2 ranks, mode off, node rings off: the same figures, the provider's path, for comparison
#   1 rank, mode core (application thread on core 0, progress thread on core 1): 8 B latency <= 1.3 x MPICH
#   1 rank, mode off (self): 8 B latency <= 1.0 x MPICH; 1 MiB transfer time <= 1.1 x MPICH (bandwidth >= 1/1.1)
# Pinning as run-targets.sh: mode off, rank 0 on core 0 and the peer on the last core; mode core unpinned (the
# library pins its progress thread to the last core and the application to the others).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

runs=5 blocks=31 build="" OUT=""
usage="usage: $0 [--runs=N] [--blocks=N] [--out=DIR] [BUILD_DIR]"
for a in "$@"; do
  case $a in
    --runs=*) runs=${a#--runs=} ;;
    --blocks=*) blocks=${a#--blocks=} ;;
    --out=*) OUT=${a#--out=} ;;
    -h|--help)
      echo "$usage"
      echo "  --runs=N     runs of each configuration (default 5); each target is judged on the median of their medians"
      echo "  --blocks=N   rounds of three blocks per run (default 31)"
      bench_usage_common
      exit 0 ;;
    -*) echo "error: unknown option '$a'; $usage" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "error: --runs=$runs is not accepted: give a positive integer" >&2; exit 2; }
[[ $blocks =~ ^[1-9][0-9]*$ ]] || \
  { echo "error: --blocks=$blocks is not accepted: give a positive integer" >&2; exit 2; }
bin=$(bench_find_bin "$build" bench_p2p_paired)/bench_p2p_paired
OUT=${OUT:-$(dirname "$bin")/bench-results/fastpath-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
export SIDECORE_PROVIDER=${SIDECORE_PROVIDER:-shm}
last=$(($(nproc) - 1))
pa=(--blocks="$blocks")

one() {  # NAME COMMAND...: one run, its summary in $OUT/NAME.tsv
  local name=$1
  shift
  timeout --kill-after=10 300 "$@" >"$OUT/$name.log" 2>&1 || \
    { echo "!! $name failed (exit $?): $OUT/$name.log" >&2; return 1; }
}

echo "== run-fastpath.sh: $(nproc) cores, provider $SIDECORE_PROVIDER, $runs runs of each configuration, logs in $OUT"
printf '$ SIDECORE_SHM_FASTPATH=on|off mpiexec -n 1 -env SIDECORE_PROGRESS off taskset -c 0 %s %s '\
': -n 1 -env SIDECORE_PROGRESS off taskset -c %s %s %s\n' \
  "$bin" "${pa[*]}" "$last" "$bin" "${pa[*]}"
printf '$ mpiexec -n 1 -env SIDECORE_PROGRESS core %s %s   and   '\
'mpiexec -n 1 -env SIDECORE_PROGRESS off taskset -c 0 %s %s\n' \
  "$bin" "${pa[*]}" "$bin" "${pa[*]}"
failed=0
for ((k = 1; k <= runs; k++)); do
  for fp in on off; do
    one "pair-$fp.r$k" env SIDECORE_SHM_FASTPATH=$fp mpiexec -n 1 -env SIDECORE_PROGRESS off taskset -c 0 \
      "$bin" "${pa[@]}" --summary="$OUT/pair-$fp.r$k.tsv" \
      : -n 1 -env SIDECORE_PROGRESS off taskset -c "$last" "$bin" "${pa[@]}" || failed=1
  done
  one "core-self.r$k" mpiexec -n 1 -env SIDECORE_PROGRESS core "$bin" "${pa[@]}" \
    --summary="$OUT/core-self.r$k.tsv" || failed=1
  one "off-self.r$k" mpiexec -n 1 -env SIDECORE_PROGRESS off taskset -c 0 "$bin" "${pa[@]}" \
    --summary="$OUT/off-self.r$k.tsv" || failed=1
  printf '.'
done
echo

awk -F'\t' "$awk_stats"'
  FNR == 1 { f = FILENAME; sub(/.*\//, "", f); sub(/\.r[0-9]+\.tsv$/, "", f) }
  { runs[f, $1] = runs[f, $1] " " sprintf("%.4f", $3) }
  function row(cfg, me, op, bound, what,   l, x, ok) {
    l = runs[cfg, me]
    if (l == "") { printf "  %-62s  not measured\n", what; return }
    x = median(l); ok = op == "" ? 1 : op == "<=" ? x <= bound : x >= bound
    printf "  %-62s  %5.2f [%.2f, %.2f]", what, x, minmax(l, "min"), minmax(l, "max")
    if (op != "") printf "  (target %s %.2f)  %s", op, bound, ok ? "met" : "MISSED"
    printf "\n"
  }
  function abs(cfg, me, what,   l) {
    l = runs[cfg, me]
    if (l != "") printf "  %-62s  %.3f [%.3f, %.3f]\n", what, median(l), minmax(l, "min"), minmax(l, "max")
  }
  END {
    printf "\nmedian [min, max] of the runs'"'"' medians\n"
    printf "2 ranks, mode off, node rings on\n"
    row("pair-on", "latency_us_ratio_mpi", "<=", 1.0, "8 B latency, sidecore / MPICH")
    row("pair-on", "latency_us_ratio", "<=", 0.8, "8 B latency, sidecore / raw libfabric")
    row("pair-on", "bandwidth_GBps_ratio_best", ">=", 0.95, "1 MiB bandwidth, sidecore / the better of MPICH and raw")
    abs("pair-on", "latency_us_sidecore", "8 B latency (us): sidecore")
    abs("pair-on", "latency_us_mpi", "8 B latency (us): MPICH")
    abs("pair-on", "latency_us_raw", "8 B latency (us): raw libfabric")
    printf "2 ranks, mode off, node rings off (the provider'"'"'s path)\n"
    row("pair-off", "latency_us_ratio_mpi", "", 0, "8 B latency, sidecore / MPICH")
    row("pair-off", "latency_us_ratio", "", 0, "8 B latency, sidecore / raw libfabric")
    row("pair-off", "bandwidth_GBps_ratio_best", "", 0, "1 MiB bandwidth, sidecore / the better of MPICH and raw")
    printf "1 rank, mode core (progress thread on core 1)\n"
    row("core-self", "latency_us_ratio_mpi", "<=", 1.3, "8 B latency, sidecore / MPICH")
    printf "1 rank, mode off (self)\n"
    row("off-self", "latency_us_ratio_mpi", "<=", 1.0, "8 B latency, sidecore / MPICH")
    row("off-self", "bandwidth_GBps_ratio_mpi", ">=", 1 / 1.1, "1 MiB bandwidth, sidecore / MPICH (time <= 1.1 x)")
  }
' "$OUT"/*.tsv | tee "$OUT/summary.txt"
exit $failed

#!/usr/bin/env bash
# Latency and bandwidth, 0 B – 16 MiB, in one invocation: raw libfabric, the system MPI, sidecore off and sidecore
# core, on 2 ranks and on 1 rank sending to itself ("self"), then a table per configuration with the ratios to raw
# libfabric and issue 2's targets (8 B latency: off ≤ 1.3×, core ≤ 2.5×; 1 MiB bandwidth ≥ 90 % of raw). Ratios
# are ratios of medians over the repetitions of each run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

quick=() reps=() build="" OUT=""
for a in "$@"; do
  case $a in
    --quick) quick=(--quick) ;;
    --reps=*) reps=("$a") ;;
    --out=*) OUT=${a#--out=} ;;
    -h|--help) echo "usage: $0 [--quick] [--reps=N] [--out=DIR] [BUILD_DIR]"; bench_usage_common; exit 0 ;;
    -*) echo "error: unknown option '$a' (accepted: --quick, --reps=N, --out=DIR, --help)" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
bin=$(bench_find_bin "$build" bench_p2p_raw)
OUT=${OUT:-$bin/../bench-results/p2p-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
last=$(($(nproc) - 1))
limit=$([[ ${#quick[@]} -gt 0 ]] && echo 60 || echo 900)
args=("${quick[@]}" "${reps[@]}" --benchmark_color=false)

echo "== run-p2p.sh: $(nproc) cores, provider ${SIDECORE_PROVIDER:-shm (default)}, logs in $OUT"
echo "   pinning: rank 0 taskset -c 0 (core mode: the library pins it), peer taskset -c $last"
failed=0
bench_run raw "$limit" mpiexec -n 1 taskset -c 0 "$bin/bench_p2p_raw" "${args[@]}" --summary="$OUT/raw.tsv" \
  : -n 1 taskset -c "$last" "$bin/bench_p2p_raw" "${args[@]}" || failed=1
bench_run mpi "$limit" mpiexec -n 1 taskset -c 0 "$bin/bench_p2p_mpi" "${args[@]}" --summary="$OUT/mpi.tsv" \
  : -n 1 taskset -c "$last" "$bin/bench_p2p_mpi" "${args[@]}" || failed=1
bench_run off "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS off taskset -c 0 "$bin/bench_p2p_sidecore" "${args[@]}" \
  --summary="$OUT/off.tsv" : -n 1 -env SIDECORE_PROGRESS off taskset -c "$last" "$bin/bench_p2p_sidecore" "${args[@]}" ||
  failed=1
bench_run core "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS core "$bin/bench_p2p_sidecore" "${args[@]}" \
  --summary="$OUT/core.tsv" : -n 1 -env SIDECORE_PROGRESS off -env SIDECORE_IDLE block taskset -c "$last" \
  "$bin/bench_p2p_sidecore" "${args[@]}" || failed=1

# Self: one rank sending to itself, no peer. On 2 cores this is the only configuration where core mode's cost
# (submission queue, progress thread on the other core, completion seen across cores) is measured without the
# peer sharing a core with the progress thread; see bench/README.md.
bench_run raw-self "$limit" mpiexec -n 1 taskset -c 0 "$bin/bench_p2p_raw" "${args[@]}" --summary="$OUT/raw-self.tsv" ||
  failed=1
bench_run mpi-self "$limit" mpiexec -n 1 taskset -c 0 "$bin/bench_p2p_mpi" "${args[@]}" --summary="$OUT/mpi-self.tsv" ||
  failed=1
bench_run off-self "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS off taskset -c 0 "$bin/bench_p2p_sidecore" "${args[@]}" \
  --summary="$OUT/off-self.tsv" || failed=1
bench_run core-self "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS core "$bin/bench_p2p_sidecore" "${args[@]}" \
  --summary="$OUT/core-self.tsv" || failed=1

# One table per configuration: each run's median [min, max], then the ratios of medians to raw libfabric.
p2p_table() {
local suffix=$1
for f in raw mpi off core; do [[ -f $OUT/$f$suffix.tsv ]] || : >"$OUT/$f$suffix.tsv"; done
awk -F'\t' -v OFS='' -v suffix="$suffix" '
  function cell(k) { return (k in med) ? sprintf("%9.3f [%.3f, %.3f]", med[k], lo[k], hi[k]) : sprintf("%9s", "-") }
  function ratio(a, b) { return ((a in med) && (b in med) && med[b] > 0) ? sprintf("%.2f", med[a] / med[b]) : "-" }
  function label(s) { return s >= 1048576 && s % 1048576 == 0 ? s / 1048576 "M" : s >= 1024 && s % 1024 == 0 ? s / 1024 "K" : s }
  FNR == 1 { run = FILENAME; sub(/.*\//, "", run); sub(suffix "\\.tsv$", "", run) }
  { k = run SUBSEP $1 SUBSEP $2; med[k] = $3; lo[k] = $4; hi[k] = $5; if (!($2 in seen)) { seen[$2] = 1; sizes[++n] = $2 } }
  END {
    split("latency_us bandwidth_GBps", metrics, " ")
    for (m = 1; m <= 2; m++) {
      metric = metrics[m]
      printf "\n%s\n%6s  %-31s%-31s%-31s%-31s%9s%10s\n", metric == "latency_us" ? "one-way latency (us)" : "bandwidth (GB/s = 1e9 B/s)", \
             "size", "raw libfabric", "mpi", "sidecore off", "sidecore core", "off/raw", "core/raw"
      for (i = 1; i <= n; i++) {
        s = sizes[i]; r = "raw" SUBSEP metric SUBSEP s
        if (!(r in med) && !(("off" SUBSEP metric SUBSEP s) in med)) continue
        printf "%6s  %-31s%-31s%-31s%-31s%9s%10s\n", label(s), cell(r), cell("mpi" SUBSEP metric SUBSEP s), \
               cell("off" SUBSEP metric SUBSEP s), cell("core" SUBSEP metric SUBSEP s), \
               ratio("off" SUBSEP metric SUBSEP s, r), ratio("core" SUBSEP metric SUBSEP s, r)
      }
    }
    print "\n== targets (issue 2), ratios of medians"
    target("latency_us", 8, "off", "<=", 1.3, "8 B latency, sidecore off / raw libfabric")
    target("latency_us", 8, "core", "<=", 2.5, "8 B latency, sidecore core / raw libfabric")
    target("bandwidth_GBps", 1048576, "off", ">=", 0.9, "1 MiB bandwidth, sidecore off / raw libfabric")
    target("bandwidth_GBps", 1048576, "core", ">=", 0.9, "1 MiB bandwidth, sidecore core / raw libfabric")
  }
  function target(metric, s, run, op, bound, what,   a, b, r, ok) {
    a = run SUBSEP metric SUBSEP s; b = "raw" SUBSEP metric SUBSEP s
    if (!(a in med) || !(b in med) || med[b] <= 0) { printf "  %-48s  not measured\n", what; return }
    r = med[a] / med[b]; ok = (op == "<=") ? r <= bound : r >= bound
    printf "  %-48s  %6.2f  (target %s %.2f)  %s   [%s %.3f vs raw %.3f]\n", what, r, op, bound, ok ? "met" : "MISSED", \
           run, med[a], med[b]
  }
' "$OUT/raw$suffix.tsv" "$OUT/mpi$suffix.tsv" "$OUT/off$suffix.tsv" "$OUT/core$suffix.tsv"
}

echo
echo "== point-to-point, 2 ranks, one run each (medians [min, max]); ratios = sidecore median / raw libfabric median"
echo "   (core: the peer shares the progress core and sleeps in its waits — an upper bound, see bench/README.md)"
p2p_table ""
echo
echo "== self (1 rank sending to itself, no peer), one run each (medians [min, max]); ratios as above"
p2p_table "-self"
echo
echo "logs and summaries: $OUT"
exit $failed

#!/usr/bin/env bash
# Latency and bandwidth, 0 B – 16 MiB, in one invocation: raw libfabric, the system MPI, sidecore off and sidecore
# core, on 2 ranks and on 1 rank sending to itself ("self"), then a table per configuration with the ratios to raw
# libfabric and issue 2's targets (8 B latency: off ≤ 1.3×, core ≤ 2.5×; 1 MiB bandwidth ≥ 90 % of raw).
#
# Why rounds: on the 2-vCPU VM the cost of a cache line crossing between the two vCPUs changes by up to 4× from one
# minute to the next (where the host places them), so two runs a minute apart are not comparable. Each round runs
# every program back to back; a ratio is the median over rounds of the ratio *within* a round, and a figure is the
# median over rounds of each run's median over its repetitions, with the min and max over all repetitions.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

quick=() reps=() build="" OUT="" rounds="" peer_idle=block
usage="usage: $0 [--quick] [--reps=N] [--rounds=N] [--peer-idle=block|hybrid|spin] [--out=DIR] [BUILD_DIR]"
for a in "$@"; do
  case $a in
    --quick) quick=(--quick) ;;
    --reps=*) reps=("$a") ;;
    --rounds=*) rounds=${a#--rounds=} ;;
    --peer-idle=*) peer_idle=${a#--peer-idle=} ;;
    --out=*) OUT=${a#--out=} ;;
    -h|--help)
      echo "$usage"; bench_usage_common
      echo "  --rounds=N       run every program N times, interleaved (default 3, --quick 1)"
      echo "  --peer-idle=P    SIDECORE_IDLE of the peer in the 2-rank core run (default block, see bench/README.md)"
      exit 0 ;;
    -*) echo "error: unknown option '$a'; $usage" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
rounds=${rounds:-$([[ ${#quick[@]} -gt 0 ]] && echo 1 || echo 3)}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || \
  { echo "error: --rounds=$rounds is not accepted: give a positive integer" >&2; exit 2; }
[[ $peer_idle =~ ^(block|hybrid|spin)$ ]] || \
  { echo "error: --peer-idle=$peer_idle: give block, hybrid or spin" >&2; exit 2; }
bin=$(bench_find_bin "$build" bench_p2p_raw)
OUT=${OUT:-$bin/../bench-results/p2p-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
last=$(($(nproc) - 1))
limit=$([[ ${#quick[@]} -gt 0 ]] && echo 60 || echo 900)
args=("${quick[@]}" "${reps[@]}" --benchmark_color=false)

echo "== run-p2p.sh: $(nproc) cores, provider ${SIDECORE_PROVIDER:-shm (default)}, $rounds round(s), logs in $OUT"
echo "   pinning: rank 0 taskset -c 0 (core mode: none, the library pins it), peer taskset -c $last"
failed=0
for ((r = 1; r <= rounds; r++)); do
  s=".r$r"
  echo; echo "-- round $r of $rounds"
  bench_run "raw$s" "$limit" mpiexec -n 1 taskset -c 0 "$bin/bench_p2p_raw" "${args[@]}" --summary="$OUT/raw$s.tsv" \
    : -n 1 taskset -c "$last" "$bin/bench_p2p_raw" "${args[@]}" || failed=1
  bench_run "mpi$s" "$limit" mpiexec -n 1 taskset -c 0 "$bin/bench_p2p_mpi" "${args[@]}" --summary="$OUT/mpi$s.tsv" \
    : -n 1 taskset -c "$last" "$bin/bench_p2p_mpi" "${args[@]}" || failed=1
  bench_run "off$s" "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS off taskset -c 0 "$bin/bench_p2p_sidecore" \
    "${args[@]}" --summary="$OUT/off$s.tsv" \
    : -n 1 -env SIDECORE_PROGRESS off taskset -c "$last" "$bin/bench_p2p_sidecore" "${args[@]}" || failed=1
  bench_run "core$s" "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS core "$bin/bench_p2p_sidecore" "${args[@]}" \
    --summary="$OUT/core$s.tsv" : -n 1 -env SIDECORE_PROGRESS off -env SIDECORE_IDLE "$peer_idle" \
    taskset -c "$last" "$bin/bench_p2p_sidecore" "${args[@]}" || failed=1

  # Self: one rank sending to itself, no peer. On 2 cores this is the only configuration where core mode's cost
  # (submission queue, progress thread on the other core, completion seen across cores) is measured without a
  # peer sharing the progress core; see bench/README.md.
  bench_run "raw-self$s" "$limit" mpiexec -n 1 taskset -c 0 "$bin/bench_p2p_raw" "${args[@]}" \
    --summary="$OUT/raw-self$s.tsv" || failed=1
  bench_run "mpi-self$s" "$limit" mpiexec -n 1 taskset -c 0 "$bin/bench_p2p_mpi" "${args[@]}" \
    --summary="$OUT/mpi-self$s.tsv" || failed=1
  bench_run "off-self$s" "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS off taskset -c 0 "$bin/bench_p2p_sidecore" \
    "${args[@]}" --summary="$OUT/off-self$s.tsv" || failed=1
  bench_run "core-self$s" "$limit" mpiexec -n 1 -env SIDECORE_PROGRESS core "$bin/bench_p2p_sidecore" "${args[@]}" \
    --summary="$OUT/core-self$s.tsv" || failed=1
done

# p2p_table SUFFIX: one configuration's table ("" = 2 ranks, "-self") from the files <run>SUFFIX.r<k>.tsv.
p2p_table() {
  local suffix=$1 files=() f
  for f in raw mpi off core; do
    for ((r = 1; r <= rounds; r++)); do [[ -f $OUT/$f$suffix.r$r.tsv ]] && files+=("$OUT/$f$suffix.r$r.tsv"); done
  done
  ((${#files[@]})) || { echo "  (no results)"; return; }
  awk -F'\t' -v suffix="$suffix" '
    function median(list,   n, a, i, j, t) {  # list: space-separated numbers
      n = split(list, a, " "); if (n == 0) return ""
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
        t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
      }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function cell(k) {
      return (k in meds) ? sprintf("%9.3f [%.3f, %.3f]", median(meds[k]), lo[k], hi[k]) : sprintf("%9s", "-")
    }
    # ratio: median over rounds of run/raw within the same round
    function ratio_of(run, metric, s,   r, list, a, b) {
      list = ""
      for (r = 1; r <= nr; r++) {
        a = run SUBSEP metric SUBSEP s SUBSEP r; b = "raw" SUBSEP metric SUBSEP s SUBSEP r
        if ((a in v) && (b in v) && v[b] > 0) list = list " " v[a] / v[b]
      }
      return median(list)
    }
    function ratio(run, metric, s,   x) { x = ratio_of(run, metric, s); return x == "" ? "-" : sprintf("%.2f", x) }
    function label(s) {
      return s >= 1048576 && s % 1048576 == 0 ? s / 1048576 "M" : s >= 1024 && s % 1024 == 0 ? s / 1024 "K" : s
    }
    FNR == 1 {
      run = FILENAME; sub(/.*\//, "", run); round = run; sub(/.*\.r/, "", round); sub(/\.tsv$/, "", round)
      sub(suffix "\\.r[0-9]+\\.tsv$", "", run); if (round + 0 > nr) nr = round + 0
    }
    {
      k = run SUBSEP $1 SUBSEP $2; v[k SUBSEP round] = $3; meds[k] = meds[k] " " $3
      if (!(k in lo) || $4 + 0 < lo[k]) lo[k] = $4 + 0
      if (!(k in hi) || $5 + 0 > hi[k]) hi[k] = $5 + 0
      if (!($2 in seen)) { seen[$2] = 1; sizes[++n] = $2 }
    }
    END {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (sizes[j] + 0 < sizes[i] + 0) {
        t = sizes[i]; sizes[i] = sizes[j]; sizes[j] = t
      }
      split("latency_us bandwidth_GBps", metrics, " ")
      for (m = 1; m <= 2; m++) {
        metric = metrics[m]
        printf "\n%s\n%6s  %-31s%-31s%-31s%-31s%9s%10s\n", \
               metric == "latency_us" ? "one-way latency (us)" : "bandwidth (GB/s = 1e9 B/s)", \
               "size", "raw libfabric", "mpi", "sidecore off", "sidecore core", "off/raw", "core/raw"
        for (i = 1; i <= n; i++) {
          s = sizes[i]
          if (!(("raw" SUBSEP metric SUBSEP s) in meds) && !(("off" SUBSEP metric SUBSEP s) in meds)) continue
          printf "%6s  %-31s%-31s%-31s%-31s%9s%10s\n", label(s), cell("raw" SUBSEP metric SUBSEP s), \
                 cell("mpi" SUBSEP metric SUBSEP s), cell("off" SUBSEP metric SUBSEP s), \
                 cell("core" SUBSEP metric SUBSEP s), \
                 ratio("off", metric, s), ratio("core", metric, s)
        }
      }
      printf "\ntargets (issue 2): median over %d round(s) of the ratio of medians within a round\n", nr
      target("latency_us", 8, "off", "<=", 1.3, "8 B latency, sidecore off / raw libfabric")
      target("latency_us", 8, "core", "<=", 2.5, "8 B latency, sidecore core / raw libfabric")
      target("bandwidth_GBps", 1048576, "off", ">=", 0.9, "1 MiB bandwidth, sidecore off / raw libfabric")
      target("bandwidth_GBps", 1048576, "core", ">=", 0.9, "1 MiB bandwidth, sidecore core / raw libfabric")
    }
    function target(metric, s, run, op, bound, what,   x, ok) {
      x = ratio_of(run, metric, s)
      if (x == "") { printf "  %-48s  not measured\n", what; return }
      ok = (op == "<=") ? x <= bound : x >= bound
      printf "  %-48s  %7.2f  (target %s %.2f)  %s\n", what, x, op, bound, ok ? "met" : "MISSED"
    }
  ' "${files[@]}"
}

echo
echo "== point-to-point, 2 ranks: median [min, max] over rounds and repetitions; ratios: see the header of this script"
echo "   (core: rank 1 shares the progress core, SIDECORE_IDLE=$peer_idle — an upper bound, see bench/README.md)"
p2p_table ""
echo
echo "== self (1 rank sending to itself, no peer): the same"
p2p_table "-self"
echo
echo "logs and summaries: $OUT"
exit $failed

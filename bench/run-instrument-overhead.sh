#!/usr/bin/env bash
# Whole-application cost of the self-instrumentation (issue 3, target <= 1 %): the mini-app apps/heat2d on 2 ranks,
# with SIDECORE_PROFILE set and unset, interleaved run by run (the machine drifts), in each progress mode.
# One OpenMP thread per rank (2 ranks on 2 cores). Prints median [min, max] of the run time and the overhead of
# the median.
#   bench/run-instrument-overhead.sh [--runs=N] [--n=GRID] [--iters=K] [BUILD_DIR]
set -euo pipefail
runs=7 n=1024 iters=2000 build=""
for a in "$@"; do
  case "$a" in
    --runs=*) runs=${a#--runs=} ;;
    --n=*) n=${a#--n=} ;;
    --iters=*) iters=${a#--iters=} ;;
    -h|--help) echo "usage: $0 [--runs=N] [--n=GRID] [--iters=K] [BUILD_DIR]"; exit 0 ;;
    -*) echo "error: unknown option '$a' (see --help)" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
build=${build:-build}
app="$build/bin/heat2d"
[ -x "$app" ] || { echo "error: $app not found: build first (make) or pass the build dir" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
stats() { sort -g | awk '{v[NR]=$1} END {printf "%.4f [%.4f, %.4f]", v[int((NR+1)/2)], v[1], v[NR]}'; }
echo "== instrumentation overhead: $app --n $n --iters $iters, 2 ranks, $runs interleaved runs per case, $(nproc) cores"
for mode in off core; do
  : >"$out/plain" ; : >"$out/prof"
  for ((i = 0; i < runs; i++)); do
    cmd=(mpiexec -n 2 -env OMP_NUM_THREADS 1 "$app" --n "$n" --iters "$iters")
    [ "$i" -eq 0 ] && echo "\$ SIDECORE_PROGRESS=$mode [SIDECORE_PROFILE=$out/p.%r.json] ${cmd[*]}"
    SIDECORE_PROGRESS=$mode "${cmd[@]}" | sed -n 's/.*: \([0-9.]*\) s (.*/\1/p' >>"$out/plain"
    SIDECORE_PROGRESS=$mode SIDECORE_PROFILE="$out/p.%r.json" "${cmd[@]}" | sed -n 's/.*: \([0-9.]*\) s (.*/\1/p' >>"$out/prof"
  done
  p=$(stats <"$out/plain"); q=$(stats <"$out/prof")
  pm=${p%% *}; qm=${q%% *}
  printf "  mode %-4s  profile off: %s s   profile on: %s s   overhead of the median: %s %%\n" "$mode" "$p" "$q" \
    "$(awk -v a="$pm" -v b="$qm" 'BEGIN {printf "%+.2f", 100 * (b - a) / a}')"
done

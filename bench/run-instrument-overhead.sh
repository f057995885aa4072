#!/usr/bin/env bash
# Whole-application cost of the self-instrumentation (issue 3, target <= 1 %): the mini-app apps/heat2d on 2 ranks,
# with SIDECORE_PROFILE set and unset, interleaved run by run (the machine drifts), in each progress mode.
# One OpenMP thread per rank (2 ranks on 2 cores). The time is heat2d's own loop time (MPI_Wtime around the
# iterations: init, calibration and finalize are not in it). Prints median [min, max] of the run times, the overhead
# of the medians, and the median [min, max] of the paired overheads (each profiled run against the unprofiled run
# next to it, the order alternating from pair to pair: drift of the machine cancels within a pair, and the order's
# own effect across pairs, so this is the estimate to quote).
#   bench/run-instrument-overhead.sh [--runs=N] [--n=GRID] [--iters=K] [BUILD_DIR]
# Benchmarks are only valid on an otherwise idle machine (nothing compiling, no other test running). Each run checks
# it: the CPU time the whole machine used during the run (/proc/stat) minus the run's own (its process tree's
# rusage) is the time other processes took; a pair with a run where they took more than 0.1 s is left out of the
# statistics and counted as "disturbed".
set -euo pipefail
runs=7 n=1024 iters=2000 build="" limit=300  # limit: seconds per run before mpiexec is killed
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
pstats() { sort -g | awk '{v[NR]=$1} END {printf "%+.2f [%+.2f, %+.2f]", v[int((NR+1)/2)], v[1], v[NR]}'; }
busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }  # jiffies: user nice system irq softirq
hz=$(getconf CLK_TCK)
run_time() {  # prints "<heat2d loop time in s> <CPU s taken by other processes meanwhile>"; fails loudly without a time
  local t b0 b1
  b0=$(busy)
  /usr/bin/time -f "%U %S" -o "$out/rusage" "$@" >"$out/stdout"
  b1=$(busy)
  t=$(sed -n 's/.*: \([0-9.]*\) s (.*/\1/p' "$out/stdout")
  [ -n "$t" ] || { echo "error: no time from: $*" >&2; cat "$out/stdout" >&2; exit 1; }
  awk -v t="$t" -v b0="$b0" -v b1="$b1" -v hz="$hz" '{printf "%s %.2f\n", t, (b1 - b0) / hz - ($1 + $2)}' "$out/rusage"
}
echo "== instrumentation overhead: $app --n $n --iters $iters, 2 ranks, $runs interleaved runs per case, $(nproc) cores"
echo "   load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in off core; do
  : >"$out/plain" ; : >"$out/prof" ; : >"$out/pairs"
  disturbed=0
  for ((i = 0; i < runs; i++)); do
    cmd=(timeout "$limit" mpiexec -n 2 -env OMP_NUM_THREADS 1 "$app" --n "$n" --iters "$iters")
    [ "$i" -eq 0 ] && echo "\$ SIDECORE_PROGRESS=$mode [SIDECORE_PROFILE=$out/p.%r.json] ${cmd[*]}"
    # Alternate which run of the pair goes first (a second run tends to be faster: warm page cache, caches).
    if ((i % 2 == 0)); then
      read -r a fa < <(SIDECORE_PROGRESS=$mode run_time "${cmd[@]}")
      read -r b fb < <(SIDECORE_PROGRESS=$mode SIDECORE_PROFILE="$out/p.%r.json" run_time "${cmd[@]}")
    else
      read -r b fb < <(SIDECORE_PROGRESS=$mode SIDECORE_PROFILE="$out/p.%r.json" run_time "${cmd[@]}")
      read -r a fa < <(SIDECORE_PROGRESS=$mode run_time "${cmd[@]}")
    fi
    if awk -v x="$fa" -v y="$fb" 'BEGIN {exit !(x > 0.1 || y > 0.1)}'; then
      disturbed=$((disturbed + 1))
      echo "   pair $i disturbed (other processes took $fa s / $fb s of CPU): left out ($a s / $b s)"
      continue
    fi
    echo "$a" >>"$out/plain"; echo "$b" >>"$out/prof"
    awk -v a="$a" -v b="$b" 'BEGIN {printf "%.4f\n", 100 * (b - a) / a}' >>"$out/pairs"
  done
  [ -s "$out/pairs" ] || { echo "  mode $mode: every pair was disturbed; run again on an idle machine"; continue; }
  p=$(stats <"$out/plain"); q=$(stats <"$out/prof"); r=$(pstats <"$out/pairs")
  pm=${p%% *}; qm=${q%% *}
  printf "  mode %-4s  profile off: %s s   profile on: %s s   overhead of the medians: %s %%   \
paired: %s %%   (%d pairs, %d disturbed)\n" \
    "$mode" "$p" "$q" "$(awk -v a="$pm" -v b="$qm" 'BEGIN {printf "%+.2f", 100 * (b - a) / a}')" "$r" \
    "$((runs - disturbed))" "$disturbed"
done
echo "   load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# Shared by run-p2p.sh and run-overlap.sh (sourced, not run).
#
# Pinning on a small machine (bench/README.md "How we measure", idle-peer configuration):
#   * rank 0 (measured) runs on core 0 — with `taskset -c 0` in the runs without a progress thread (raw libfabric,
#     MPI, sidecore off); in sidecore core mode it is NOT wrapped: the library pins its progress thread to the last
#     core and the application/OpenMP threads to the others itself, and a taskset would fight that.
#   * rank 1 (the peer) runs on the last core with `taskset -c <last>`; in core mode that is the progress core,
#     so the peer runs sidecore off with SIDECORE_IDLE=block and sleeps in its waits instead of competing.
# hydra's own binding stays off (its default), so the taskset masks are the only ones.

bench_usage_common() {
  cat <<EOF
  --quick          short version (fewer sizes, iterations, repetitions): what 'make demo' runs
  --reps=N         repetitions per point (default 5, --quick 3)
  --out=DIR        keep logs and summaries there (default: <build>/bench-results/<script>-<time>)
  BUILD_DIR        the CMake build directory whose bin/ holds the benchmarks (default: \$SIDECORE_BUILD_DIR,
                   else the first of <repo>/build, <repo>/build-bench that has them)
Environment: SIDECORE_PROVIDER (default shm; tcp means tcp;ofi_rxm on lo), SIDECORE_* are passed to every rank.
EOF
}

# bench_find_bin BUILD_DIR_OR_EMPTY PROGRAM: prints the bin/ directory holding PROGRAM.
bench_find_bin() {
  local given=$1 program=$2 repo candidates=() d
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [[ -n $given ]]; then
    candidates=("$given")
  else
    [[ -n ${SIDECORE_BUILD_DIR:-} ]] && candidates+=("$SIDECORE_BUILD_DIR")
    candidates+=("$repo/build" "$repo/build-bench")
  fi
  for d in "${candidates[@]}"; do
    if [[ -x $d/bin/$program ]]; then
      (cd "$d/bin" && pwd)
      return 0
    fi
  done
  echo "error: no $program under bin/ of: ${candidates[*]} — build first \
(cmake -S . -B build && cmake --build build)," \
       "or give the build directory as an argument" >&2
  return 1
}

# bench_run NAME TIMEOUT CMD...: prints the command, runs it with a time limit, keeps the log in $OUT/NAME.log, and
# shows the report header and the program's compact table. Returns the command's status (124: timed out).
bench_run() {
  local name=$1 limit=$2
  shift 2
  printf '\n$ %s\n' "$*"
  local rc=0
  timeout --kill-after=10 "$limit" "$@" >"$OUT/$name.log" 2>&1 || rc=$?
  # Header (# lines) and the compact table (from the program's own title line to the end).
  grep '^# ' "$OUT/$name.log" || true
  awk '/^bench_(p2p_|overlap)/ {p=1} p' "$OUT/$name.log"
  if ((rc != 0)); then
    echo "!! $name failed (exit $rc$( ((rc == 124)) && \
      echo ", timed out after ${limit}s")); last lines of $OUT/$name.log:"
    tail -n 15 "$OUT/$name.log" | sed 's/^/!!   /'
  fi
  return $rc
}

# awk functions for the drivers' summaries: median and min / max of a space-separated list of numbers
awk_stats='
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " "); if (n == 0) return ""
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
      t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
    }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function minmax(list, which,   n, a, i, x) {
    n = split(list, a, " "); x = a[1]
    for (i = 2; i <= n; i++) if ((which == "min" && a[i] + 0 < x + 0) || (which == "max" && a[i] + 0 > x + 0)) x = a[i]
    return x
  }
'

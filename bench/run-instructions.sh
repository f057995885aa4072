#!/usr/bin/env bash
# Instructions per 8-byte self round trip (irecv, isend, two waits), per library, for sidecore (SIDECORE_PROGRESS,
# default off) and raw libfabric, counted by valgrind's callgrind: a figure the VM's timing noise cannot move, for
# comparing two builds of the small-message path. `sidecore` goes through the provider as a message to another rank
# does (SIDECORE_SELF_PATH=off); `sidecore-self` is the self path (a message to self matched and copied by sidecore,
# no provider); `c-api` is the sidecore loop through the C API (sidecore.h), `fortran` through the Fortran module
# (bench_self_loop_fortran, where it is built). Each implementation runs twice (N and N/5 iterations); the
# difference divided by 4N/5 removes start-up and shutdown, so the figure is the loop's alone.
#   bench/run-instructions.sh [--iterations=N] [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

n=100000 build=""
usage="usage: $0 [--iterations=N] [BUILD_DIR]"
for a in "$@"; do
  case $a in
    --iterations=*) n=${a#--iterations=} ;;
    -h|--help) echo "$usage"; \
      echo "  --iterations=N   round trips in the long run (default 100000; the short run does N/5)"; exit 0 ;;
    -*) echo "error: unknown option '$a'; $usage" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
[[ $n =~ ^[1-9][0-9]*$ ]] && ((n >= 5)) || \
  { echo "error: --iterations=$n is not accepted: give an integer of 5 or more" >&2; exit 2; }
command -v valgrind >/dev/null ||
  { echo "error: valgrind is not installed (Debian: apt-get install valgrind)" >&2; exit 2; }
bin=$(bench_find_bin "$build" bench_self_loop)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
short=$((n / 5))

# count IMPL ITERATIONS: "object instructions" lines for one run.
count() {
  local out="$tmp/cg.$1.$2" impl=$1 self=off
  [[ $impl == sidecore-self ]] && impl=sidecore self=on
  local program=("$bin/bench_self_loop" --impl="$impl")
  [[ $impl == fortran ]] && program=("$bin/bench_self_loop_fortran")
  SIDECORE_SELF_PATH=$self SIDECORE_PROGRESS=${SIDECORE_PROGRESS:-off} timeout 600 valgrind --tool=callgrind \
    --callgrind-out-file="$out" "${program[@]}" --iterations="$2" >"$tmp/log.$1.$2" 2>&1 ||
    { echo "error: bench_self_loop --impl=$1 failed under valgrind: see below" >&2; cat "$tmp/log.$1.$2" >&2; exit 1; }
  # Self cost per object, summed from the callgrind file itself: every cost line counts for the object of its
  # function, inlined code (lines of another file, "fi="/"fe=") included; a call's line (after "calls=") is the
  # callee's inclusive cost and is left out. (callgrind_annotate's function table names the object only on rows of
  # a function's own file: summing its rows leaves inlined code out, ~40 % of libsidecore's instructions.)
  awk '
    function name(kind, s,   id, rest) {
      if (match(s, /^\([0-9]+\)/)) {
        id = substr(s, 2, RLENGTH - 2); rest = substr(s, RLENGTH + 1); sub(/^ /, "", rest)
        if (rest != "") names[kind, id] = rest
        return names[kind, id]
      }
      return s
    }
    BEGIN { col = 2 }
    /^positions:/ { col = NF; next }  # "positions: line" (or "instr line"): the cost follows the positions
    /^ob=/ { ob = name("ob", substr($0, 4)); next }
    /^cob=/ { name("ob", substr($0, 5)); next }
    /^calls=/ { skip = 1; next }
    /^(0x)?[0-9+*-]/ { if (skip) { skip = 0; next } s[ob == "" ? "???" : ob] += $col; next }
    END { for (o in s) printf "%s %.0f\n", o, s[o] }' "$out"
}

echo "== run-instructions.sh: $bin/bench_self_loop under callgrind, $n and $short round trips, \
SIDECORE_PROGRESS=${SIDECORE_PROGRESS:-off}"
impls=(sidecore sidecore-self c-api raw mpi)
[[ -x $bin/bench_self_loop_fortran ]] && impls+=(fortran)  # built where the Fortran module is
for impl in "${impls[@]}"; do
  count "$impl" "$n" >"$tmp/long.$impl"
  count "$impl" "$short" >"$tmp/short.$impl"
  echo
  echo "$impl: instructions per round trip, by object (loop only: (long - short) / $((n - short)))"
  awk -v d=$((n - short)) 'NR == FNR { a[$1] = $2; next } { b[$1] = $2 }
    END {
      for (o in a) { x = (a[o] - b[o]) / d; if (x >= 1) { t += x; printf "  %10.1f  %s\n", x, o } }
      printf "  %10.1f  total\n", t
    }' \
    "$tmp/long.$impl" "$tmp/short.$impl" | sort -rn
done

#!/bin/sh
# libsidecore-pmpi.so's settings: a rejected value of every SIDECORE_* number it reads is reported on stderr with the
# variable, the value and what is accepted, and the run goes on with the default; accepted values are honoured
# silently. Usage: run_pmpi_env_test.sh <mpiexec> <preload> <pmpi_app> <work dir>
# <preload> is the LD_PRELOAD value: libsidecore-pmpi.so, preceded by the ASan runtime in the Asan build.
set -eu
mpiexec=$1 preload=$2 app=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir"
fail=0
expect() {  # expect <file> <fixed string> <what>
  if grep -qF -- "$2" "$1"; then echo "ok: $3"; else echo "FAILED: $3 (no \"$2\" in $1)"; fail=1; fi
}

SIDECORE_PROFILE="$dir/bad.%r.json" SIDECORE_TRACE_MAX_EVENTS=0 SIDECORE_SIZE_BINS=4,2 SIDECORE_RING_EVENTS=100 \
  SIDECORE_NCORE=4cores SIDECORE_PROGRESS=sometimes SIDECORE_PROGRESS_CORE=middle SIDECORE_PMPI_PROGRESS=ompi \
  SIDECORE_VERBOSE=3 "$mpiexec" -n 1 -genv LD_PRELOAD "$preload" "$app" >"$dir/bad.out" 2>"$dir/bad.err"
cat "$dir/bad.err"
expect "$dir/bad.err" "SIDECORE_TRACE_MAX_EVENTS='0' is not accepted; accepted: an integer 1..1000000000" \
  "TRACE_MAX_EVENTS rejected"
expect "$dir/bad.err" "SIDECORE_SIZE_BINS='4,2' is not accepted; accepted: strictly increasing" "SIZE_BINS rejected"
expect "$dir/bad.err" "SIDECORE_RING_EVENTS='100' is not accepted; accepted: a power of two 16..16777216" \
  "RING_EVENTS rejected"
expect "$dir/bad.err" "SIDECORE_NCORE='4cores' is not accepted; accepted: an integer 1..1048576" "NCORE rejected"
expect "$dir/bad.0.json" '"kind": "rank"' "the profile is written with the defaults"
expect "$dir/bad.err" "SIDECORE_PROGRESS='sometimes' is not accepted; accepted: off, core" "PROGRESS rejected"
expect "$dir/bad.err" "SIDECORE_PROGRESS_CORE='middle' is not accepted; accepted: last, first, or a core index" \
  "PROGRESS_CORE rejected"
expect "$dir/bad.err" "SIDECORE_PMPI_PROGRESS='ompi' is not accepted; accepted: sidecore, mpich" \
  "PMPI_PROGRESS rejected"
expect "$dir/bad.err" "SIDECORE_VERBOSE='3' is not accepted; accepted: 0, 1, 2" "VERBOSE rejected"
expect "$dir/bad.0.json" '"mode": "off"' "a rejected SIDECORE_PROGRESS keeps mode off"

# Core mode where it cannot be had: one core in the cpuset (said, mode off), a reserved index out of range (said,
# the last core taken).
if taskset -c 0 true 2>/dev/null; then
  SIDECORE_PROFILE="$dir/onecore.%r.json" SIDECORE_PROGRESS=core \
    "$mpiexec" -n 1 -genv LD_PRELOAD "$preload" taskset -c 0 "$app" >"$dir/onecore.out" 2>"$dir/onecore.err"
  cat "$dir/onecore.err"
  expect "$dir/onecore.err" "SIDECORE_PROGRESS=core needs at least 2 cores in this process's cpuset, \
but it may run on 1" \
    "one core: said"
  expect "$dir/onecore.0.json" '"mode": "off"' "one core: mode off"
fi
if [ "$(nproc)" -ge 2 ]; then
  SIDECORE_PROFILE="$dir/range.%r.json" SIDECORE_PROGRESS=core SIDECORE_PROGRESS_CORE=4096 \
    "$mpiexec" -n 1 -genv LD_PRELOAD "$preload" "$app" >"$dir/range.out" 2>"$dir/range.err"
  cat "$dir/range.err"
  expect "$dir/range.err" "SIDECORE_PROGRESS_CORE='4096' is out of range: this process may run on" \
    "index out of range: said"
  expect "$dir/range.0.json" '"mode": "core"' "index out of range: core mode on the last core"
fi

SIDECORE_PROFILE="$dir/good.%r.json" SIDECORE_TRACE_MAX_EVENTS=10 SIDECORE_SIZE_BINS=0,1024 SIDECORE_RING_EVENTS=16 \
  SIDECORE_NCORE=5 "$mpiexec" -n 1 -genv LD_PRELOAD "$preload" "$app" >"$dir/good.out" 2>"$dir/good.err"
if grep -q "not accepted" "$dir/good.err"; then \
  echo "FAILED: accepted values reported:"; cat "$dir/good.err"; fail=1; fi
expect "$dir/good.0.json" '"n_core": 5' "SIDECORE_NCORE=5 is the profile's n_core"
# The progress core's words, with spaces around them (a quoted value in a job script): accepted, as sidecore's
# settings table accepts them.
if [ "$(nproc)" -ge 2 ]; then
  SIDECORE_PROFILE="$dir/words.%r.json" SIDECORE_PROGRESS="core " SIDECORE_PMPI_PROGRESS=" sidecore" \
    SIDECORE_VERBOSE=" 0 " "$mpiexec" -n 1 -genv LD_PRELOAD "$preload" "$app" >"$dir/words.out" 2>"$dir/words.err" || :
  cat "$dir/words.err"
  if grep -q "not accepted" "$dir/words.err"; then echo "FAILED: words with spaces around them rejected"; fail=1; fi
  expect "$dir/words.0.json" '"mode": "core"' "SIDECORE_PROGRESS='core ': core mode"
fi

# The output paths: spaces around them are ignored, as sidecore's settings table does ("off " is off, not a file
# "off .0"), and SIDECORE_TRACE=off is no trace, like SIDECORE_PROFILE=off (not a trace file named "off.0").
mkdir -p "$dir/paths"
(cd "$dir/paths" && SIDECORE_PROFILE=" $dir/spaced.%r.json " SIDECORE_TRACE=off \
  "$mpiexec" -n 1 -genv LD_PRELOAD "$preload" "$app" >"$dir/spaced.out" 2>"$dir/spaced.err") || :
(cd "$dir/paths" && SIDECORE_PROFILE="off " SIDECORE_TRACE=" " \
  "$mpiexec" -n 1 -genv LD_PRELOAD "$preload" "$app" >"$dir/offsp.out" 2>"$dir/offsp.err") || :
cat "$dir/spaced.err" "$dir/offsp.err"
expect "$dir/spaced.0.json" '"kind": "rank"' "a profile path with spaces around it: written to the path"
if [ -z "$(ls -A "$dir/paths")" ]; then echo "ok: off with spaces, SIDECORE_TRACE=off: no file"; else
  echo "FAILED: files written for 'off ' or SIDECORE_TRACE=off: $(ls -A "$dir/paths" | tr '\n' ' ')"; fail=1; fi
exit $fail

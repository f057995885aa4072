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
  SIDECORE_NCORE=4cores "$mpiexec" -n 1 -genv LD_PRELOAD "$preload" "$app" >"$dir/bad.out" 2>"$dir/bad.err"
cat "$dir/bad.err"
expect "$dir/bad.err" "SIDECORE_TRACE_MAX_EVENTS='0' is not accepted; accepted: an integer 1..1000000000" "TRACE_MAX_EVENTS rejected"
expect "$dir/bad.err" "SIDECORE_SIZE_BINS='4,2' is not accepted; accepted: strictly increasing" "SIZE_BINS rejected"
expect "$dir/bad.err" "SIDECORE_RING_EVENTS='100' is not accepted; accepted: a power of two 16..16777216" "RING_EVENTS rejected"
expect "$dir/bad.err" "SIDECORE_NCORE='4cores' is not accepted; accepted: an integer 1..1048576" "NCORE rejected"
expect "$dir/bad.0.json" '"kind": "rank"' "the profile is written with the defaults"

SIDECORE_PROFILE="$dir/good.%r.json" SIDECORE_TRACE_MAX_EVENTS=10 SIDECORE_SIZE_BINS=0,1024 SIDECORE_RING_EVENTS=16 \
  SIDECORE_NCORE=5 "$mpiexec" -n 1 -genv LD_PRELOAD "$preload" "$app" >"$dir/good.out" 2>"$dir/good.err"
if grep -q "not accepted" "$dir/good.err"; then echo "FAILED: accepted values reported:"; cat "$dir/good.err"; fail=1; fi
expect "$dir/good.0.json" '"n_core": 5' "SIDECORE_NCORE=5 is the profile's n_core"
exit $fail

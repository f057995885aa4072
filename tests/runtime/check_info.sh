#!/bin/sh
# `sidecore info` judges the environment as init does: a refused value is marked on its setting's line (not shown
# as if it applied) and explained on stderr with exit status 2; combinations init refuses (SIDECORE_AUTO_STEPS with
# SIDECORE_AUTO_WINDOW) likewise; an unknown SIDECORE_* variable is warned about on stderr; the profiler library's
# own setting (SIDECORE_PMPI_PROGRESS) is listed and judged; a reserved core the process cannot have (mode core) and a
# provider libfabric does not offer are errors too, as are files init could not write (the profile, the trace) or read
# (the transfer-time table).
# Usage: check_info.sh SIDECORE_EXE WORK_DIR
set -u
exe=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() {  # run VAR=value...: `sidecore info` in that environment; sets rc, out (stdout file), err (stderr file)
  out=$work/out err=$work/err
  env "$@" "$exe" info >"$out" 2>"$err"
  rc=$?
}
has() { grep -q -e "$2" "$1"; }  # has FILE REGEX

run SIDECORE_PEER_TIMEOUT=1e-9
[ $rc -eq 2 ] || fail "SIDECORE_PEER_TIMEOUT=1e-9: exit $rc, expected 2"
has "$out" "SIDECORE_PEER_TIMEOUT .*set to '1e-9': refused" || fail "the refused value is not marked on its line"
has "$err" "SIDECORE_PEER_TIMEOUT='1e-9' is not accepted" || fail "stderr does not explain the refusal: $(cat "$err")"
has "$out" "error:" && fail "the refusal went to stdout"

run SIDECORE_AUTO_STEPS=10 SIDECORE_AUTO_WINDOW=5
[ $rc -eq 2 ] || fail "SIDECORE_AUTO_STEPS with SIDECORE_AUTO_WINDOW: exit $rc, expected 2"
has "$err" "SIDECORE_AUTO_STEPS=10 and SIDECORE_AUTO_WINDOW='5' are both set" ||
  fail "the combination is not refused, naming both values"

run SIDECORE_PROGRES=core
[ $rc -eq 0 ] || fail "an unknown variable: exit $rc, expected 0 (init only warns)"
has "$err" "unknown variable SIDECORE_PROGRES is ignored" || fail "no warning for SIDECORE_PROGRES: $(cat "$err")"

run SIDECORE_PMPI_PROGRESS=" mpich "
[ $rc -eq 0 ] || fail "SIDECORE_PMPI_PROGRESS=mpich: exit $rc, expected 0"
has "$out" "SIDECORE_PMPI_PROGRESS .*default: sidecore .*current: mpich" || fail "SIDECORE_PMPI_PROGRESS is not listed"
has "$err" "unknown variable" && fail "SIDECORE_PMPI_PROGRESS is called unknown"

run SIDECORE_PMPI_PROGRESS=bogus
[ $rc -eq 2 ] || fail "SIDECORE_PMPI_PROGRESS=bogus: exit $rc, expected 2"
has "$err" "SIDECORE_PMPI_PROGRESS='bogus' is not accepted; accepted: sidecore, mpich" ||
  fail "SIDECORE_PMPI_PROGRESS=bogus is not explained: $(cat "$err")"

# What init refuses beyond the values themselves: a reserved core this process cannot have, a provider libfabric
# does not offer.
run SIDECORE_PROGRESS=core SIDECORE_PROGRESS_CORE=4096
[ $rc -eq 2 ] || fail "SIDECORE_PROGRESS=core on core 4096: exit $rc, expected 2"
has "$err" "error: SIDECORE_PROGRESS=core: " || fail "the impossible reserved core is not explained: $(cat "$err")"
run SIDECORE_PROGRESS=off SIDECORE_PROGRESS_CORE=4096
[ $rc -eq 0 ] || fail "SIDECORE_PROGRESS=off with core 4096 (unused): exit $rc, expected 0"
run SIDECORE_PROVIDER=bogus
[ $rc -eq 2 ] || fail "SIDECORE_PROVIDER=bogus: exit $rc, expected 2"
has "$err" "error: SIDECORE_PROVIDER='bogus': not available" || fail "the provider is not explained: $(cat "$err")"

# The files init reads and writes: a profile path that is a directory, a transfer-time table that does not exist.
run SIDECORE_PROFILE="$work"
[ $rc -eq 2 ] || fail "SIDECORE_PROFILE=a directory: exit $rc, expected 2"
has "$err" "error: .*SIDECORE_PROFILE" || fail "the profile path is not explained: $(cat "$err")"
run SIDECORE_XFER_TABLE="$work/none.json"
[ $rc -eq 2 ] || fail "SIDECORE_XFER_TABLE=a missing file: exit $rc, expected 2"
has "$err" "error: SIDECORE_XFER_TABLE='$work/none.json'" || fail "the table is not explained: $(cat "$err")"
run SIDECORE_PROFILE="$work/p.%r.json"
[ $rc -eq 0 ] || fail "SIDECORE_PROFILE in a writable directory: exit $rc, expected 0: $(cat "$err")"
[ -e "$work/p.0.json" ] && fail "info wrote a profile"

run SIDECORE_PROGRESS=core
[ $rc -eq 0 ] || fail "good settings: exit $rc, expected 0"
[ -s "$err" ] && fail "good settings wrote to stderr: $(cat "$err")"

[ $fails -eq 0 ] && echo "check_info: passed"
exit $fails

#!/bin/sh
# Output files (issue 17): an unusable SIDECORE_PROFILE or SIDECORE_TRACE is an error at init on every rank, naming the
# path and the reason (a missing directory, one where no file can be created, a symbolic link, the profile and the
# trace in one file); an existing file is replaced with a message; the same for the PMPI profiler (the job stops at
# MPI_Init) and for `sidecore report -o`. Each case failed before: the run went on and the profile was lost at the
# end, or a file was silently replaced or written through a link.
# Usage: run_output_files_test.sh <mpiexec> <outputs_app> <preload> <pmpi_app> <sidecore> <profile.json> <work dir>
# <preload> is the LD_PRELOAD value: libsidecore-pmpi.so, preceded by the ASan runtime in the Asan build.
set -u
mpiexec=$1 app=$2 preload=$3 pmpi_app=$4 cli=$5 sample=$6 dir=$7
rm -rf "$dir" && mkdir -p "$dir"
fail=0
expect() {  # expect <file> <fixed string> <what>
  if grep -qF -- "$2" "$1"; then echo "ok: $3"; else echo "FAILED: $3 (no \"$2\" in $1:)"; cat "$1"; fail=1; fi
}
expect_status() {  # expect_status <status> <expected: 0 or nonzero> <what>
  if { [ "$2" = 0 ] && [ "$1" -eq 0 ]; } || { [ "$2" != 0 ] && [ "$1" -ne 0 ]; }; then echo "ok: $3 (exit $1)"
  else echo "FAILED: $3 (exit $1)"; fail=1; fi
}
run() {  # run <name> <env...> -- runs outputs_app on 2 ranks with the environment given
  name=$1; shift
  env "$@" SIDECORE_PROVIDER=shm "$mpiexec" -n 2 "$app" >"$dir/$name.out" 2>"$dir/$name.err"
  echo $?
}

# sidecore::init: a missing directory, on every rank.
s=$(run missing SIDECORE_PROFILE="$dir/nodir/p.%r.json")
expect_status "$s" 1 "missing directory: init fails"
expect "$dir/missing.err" "rank 0: init failed: SIDECORE_PROFILE='$dir/nodir/p.%r.json': rank 0's profile cannot be \
written to '$dir/nodir/p.0.json': directory '$dir/nodir' does not exist" \
  "missing directory: rank 0 names path and reason"
expect "$dir/missing.err" "rank 1: init failed: SIDECORE_PROFILE='$dir/nodir/p.%r.json': rank 1's profile cannot be \
written to '$dir/nodir/p.1.json'" \
  "missing directory: rank 1 too"
# A directory where no file can be created (root included).
s=$(run proc SIDECORE_TRACE="/proc/sidecore-trace.%r.json")
expect_status "$s" 1 "unwritable directory: init fails"
expect "$dir/proc.err" "rank 1: init failed: SIDECORE_TRACE='/proc/sidecore-trace.%r.json': \
rank 1's trace cannot be written to '/proc/sidecore-trace.1.json': \
cannot create a file in directory '/proc'" \
  "unwritable directory: named with the reason"
# The profile and the trace with one pattern.
s=$(run same SIDECORE_PROFILE="$dir/x.%r.json" SIDECORE_TRACE="$dir/x.%r.json")
expect_status "$s" 1 "profile and trace in one file: init fails"
expect "$dir/same.err" "SIDECORE_PROFILE='$dir/x.%r.json' and SIDECORE_TRACE='$dir/x.%r.json' name the same file \
'$dir/x.0.json'" \
  "profile and trace in one file: both named"
# A symbolic link where rank 0's profile goes: rank 0 names it, rank 1 says rank 0 failed.
echo keep >"$dir/target" && ln -s "$dir/target" "$dir/l.0.json"
s=$(run link SIDECORE_PROFILE="$dir/l.%r.json")
expect_status "$s" 1 "symbolic link: init fails"
expect "$dir/link.err" "rank 0: init failed: SIDECORE_PROFILE='$dir/l.%r.json': rank 0's profile cannot be \
written to '$dir/l.0.json': it is a symbolic link" \
  "symbolic link: named"
expect "$dir/link.err" "rank 1: init failed: rank 0 cannot write its profile or trace" \
  "symbolic link: the other rank fails too"
expect "$dir/target" "keep" "symbolic link: its target untouched"
# An existing file is replaced, and the run says so.
echo old >"$dir/e.0.json"
s=$(run existing SIDECORE_PROFILE="$dir/e.%r.json")
expect_status "$s" 0 "existing file: the run succeeds"
expect "$dir/existing.err" "replaced the existing file '$dir/e.0.json'" "existing file: replacement said"
expect "$dir/e.0.json" '"kind": "rank"' "existing file: replaced by the profile"
expect "$dir/e.job.json" '"kind": "job"' "existing file: the job profile written"
if ls -a "$dir" | grep -q '\.tmp$'; then echo "FAILED: temporary files left:"; ls -a "$dir"; fail=1; \
else echo "ok: no temporary file left"; fi

# A rank whose profile cannot be written at finalize (its directory removed during the run) says why and saves it
# in the temporary directory, and its profile still reaches the job profile.
mkdir -p "$dir/d0" "$dir/d1" "$dir/djob" "$dir/tmp"
s=$(run vanish SIDECORE_PROFILE="$dir/d%r/p.json" OUTPUTS_APP_REMOVE_DIR="$dir/d1" TMPDIR="$dir/tmp")
expect_status "$s" 0 "directory removed during the run: the run ends"
expect "$dir/vanish.err" "sidecore: SIDECORE_PROFILE: cannot write '$dir/d1/p.json': directory '$dir/d1' \
does not exist; the text is saved in '$dir/tmp/sidecore-saved." \
  "directory removed during the run: said, with the path and where it went"
saved=$(ls "$dir/tmp"/sidecore-saved.*.p.json 2>/dev/null | head -n 1)
if [ -n "$saved" ]; then expect "$saved" '"kind": "rank"' "directory removed during the run: the profile saved"
else echo "FAILED: directory removed during the run: no saved profile in $dir/tmp:"; ls -a "$dir/tmp"; fail=1; fi
expect "$dir/d0/p.json" '"kind": "rank"' "directory removed during the run: rank 0's profile written"
expect "$dir/djob/p.json" '"nranks": 2' "directory removed during the run: the job profile holds both ranks"

# libsidecore-pmpi.so: the job stops at MPI_Init, naming the path and the reason.
SIDECORE_PROFILE="$dir/nodir/q.%r.json" "$mpiexec" -n 2 -genv LD_PRELOAD "$preload" "$pmpi_app" \
  >"$dir/pmpi.out" 2>"$dir/pmpi.err"
expect_status $? 1 "pmpi: missing directory stops the job"
# Every rank prints its line before the ranks agree to stop; the check asks for one rank's line (rank 0's, else
# rank 1's), as it did while the stop was an MPI_Abort that could cut hydra's forwarding short.
r=0; grep -qF "sidecore-pmpi: rank 0:" "$dir/pmpi.err" || r=1
expect "$dir/pmpi.err" "sidecore-pmpi: rank $r: SIDECORE_PROFILE='$dir/nodir/q.%r.json': rank $r's profile cannot be \
written to '$dir/nodir/q.$r.json': \
directory '$dir/nodir' does not exist" \
  "pmpi: named with the reason"
expect "$dir/pmpi.err" "stopping the job at MPI_Init" "pmpi: says the job stops"
SIDECORE_PROFILE="$dir/y.%r.json" SIDECORE_TRACE="$dir/y.%r.json" \
  "$mpiexec" -n 1 -genv LD_PRELOAD "$preload" "$pmpi_app" >"$dir/pmpi2.out" 2>"$dir/pmpi2.err"
expect_status $? 1 "pmpi: profile and trace in one file stops the job"
expect "$dir/pmpi2.err" "name the same file '$dir/y.0.json'" "pmpi: both named"

# sidecore report -o: never through a link, replacing said, a missing directory named.
ln -s "$dir/target" "$dir/r.html"
"$cli" report -o "$dir/r.html" "$sample" >"$dir/cli1.out" 2>&1
expect_status $? 1 "report -o a link: refused"
expect "$dir/cli1.out" "--output: $dir/r.html: cannot write: it is a symbolic link" "report -o a link: named"
expect "$dir/target" "keep" "report -o a link: its target untouched"
echo old >"$dir/s.html"
"$cli" report -o "$dir/s.html" "$sample" >"$dir/cli2.out" 2>&1
expect_status $? 0 "report -o an existing file: written"
expect "$dir/cli2.out" "replaced the existing file '$dir/s.html'" "report -o an existing file: replacement said"
"$cli" report -o "$dir/nodir/r.html" "$sample" >"$dir/cli3.out" 2>&1
expect_status $? 1 "report -o into a missing directory: refused"
expect "$dir/cli3.out" "directory '$dir/nodir' does not exist" "report -o into a missing directory: named"
exit $fail

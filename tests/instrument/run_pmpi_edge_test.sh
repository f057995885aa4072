#!/bin/sh
# One case of pmpi_edge_app.c (unusual but legal MPI programs) under libsidecore-pmpi.so: the program's own result
# and exit status must come through the profiler unchanged, and the profile must count every call.
# Usage: run_pmpi_edge_test.sh <case> <mpiexec> <preload> <program> <pmpi_edge_check> <work dir>
# <program> is pmpi_edge_app, or pmpi_f08_app for case f08.
# <preload> is the LD_PRELOAD value: libsidecore-pmpi.so, preceded by the ASan runtime in the Asan build.
set -u
case=$1 mpiexec=$2 preload=$3 app=$4 check=$5 dir=$6
rm -rf "$dir" && mkdir -p "$dir"
fail=0
expect() {  # expect <file> <fixed string> <what>
  if grep -qF -- "$2" "$1"; then echo "ok: $3"; else echo "FAILED: $3 (no \"$2\" in $1)"; fail=1; fi
}
refuse() {  # refuse <file> <fixed string> <what>
  if grep -qF -- "$2" "$1"; then echo "FAILED: $3 (\"$2\" in $1)"; fail=1; else echo "ok: $3"; fi
}
run() {  # run <name> <expected exit status> <mpiexec arguments>...: at most 60 s
  name=$1 want=$2
  shift 2
  timeout 60 "$mpiexec" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
  rc=$?
  cat "$dir/$name.out" "$dir/$name.err"
  if [ $rc -eq "$want" ]; then echo "ok: $name: exit status $rc"; else
    echo "FAILED: $name: exit status $rc, expected $want"; fail=1; fi
}

case $case in
intercomm)
  # Collectives on an intercommunicator with a smaller remote group: the count arrays end before a guard page.
  run intercomm 0 -n 3 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/ic.%r.json" "$app" intercomm
  expect "$dir/intercomm.out" "pmpi_edge_app: intercomm done" "intercomm: the program ran to its end"
  # The same with the profile off: the wrappers stay out of the collectives' arguments then too.
  run intercomm_off 0 -n 3 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE off "$app" intercomm
  expect "$dir/intercomm_off.out" "pmpi_edge_app: intercomm done" "intercomm, profile off: the program ran to its end"
  ;;
helper_first)
  # The thread that called MPI_Init_thread is the communicating thread (t_comp's), though another made the first call.
  run helper_first 0 -n 2 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/hf.%r.json" "$app" helper_first
  expect "$dir/helper_first.out" "pmpi_edge_app: helper_first done" "helper_first: the program ran to its end"
  for r in 0 1; do "$check" "$dir/hf.$r.json" blocking=3 main:blocking=2 calling_threads=2 || fail=1; done
  ;;
errors_return)
  # An erroneous call under MPI_ERRORS_RETURN returns its error through the profiler, which must not turn it into an
  # abort by asking MPI about the bad argument itself.
  run errors_return 0 -n 2 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/er.%r.json" "$app" errors_return
  expect "$dir/errors_return.out" "pmpi_edge_app: errors_return done" "errors_return: the program ran to its end"
  for r in 0 1; do "$check" "$dir/er.$r.json" coll:allreduce=2 unmatched=0 || fail=1; done
  ;;
noexit)
  # A program that ends without MPI_Finalize keeps its exit status, in mode off and in core mode (a progress thread
  # of the library still running then), and is told why no profile was written.
  modes=off
  [ "$(nproc)" -ge 2 ] && modes="off core"
  for mode in $modes; do
    run "noexit_$mode" 4 -n 1 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/ne_$mode.%r.json" \
      -genv SIDECORE_PROGRESS "$mode" "$app" noexit
    refuse "$dir/noexit_$mode.err" "terminate called" "noexit, mode $mode: no C++ terminate"
    expect "$dir/noexit_$mode.err" "rank 0: the program ended without calling MPI_Finalize: no profile written" \
      "noexit, mode $mode: said why there is no profile"
  done
  ;;
errstatus)
  # A wait that fails for one request (MPI_ERR_IN_STATUS) completes the others: a nonblocking collective among them
  # still departs, so its instance is counted and matched across the ranks.
  run errstatus 0 -n 2 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/es.%r.json" "$app" errstatus
  for r in 0 1; do "$check" "$dir/es.$r.json" coll:barrier=2 unmatched=0 || fail=1; done
  ;;
getstatus)
  # A nonblocking collective seen complete by MPI_Request_get_status departs there, not at the MPI_Wait that
  # frees its request 300 ms later.
  run getstatus 0 -n 2 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/gs.%r.json" "$app" getstatus
  for r in 0 1; do "$check" "$dir/gs.$r.json" coll:barrier=1 latency_max_ms:barrier=150 || fail=1; done
  ;;
merge)
  # Collectives on a communicator made by MPI_Intercomm_merge are matched across the ranks like any other.
  run merge 0 -n 2 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/m.%r.json" "$app" merge
  for r in 0 1; do "$check" "$dir/m.$r.json" coll:barrier=3 unmatched=0 || fail=1; done
  ;;
create_group)
  # Collectives on communicators made by MPI_Comm_create_group (collective over the group only) are matched across
  # the ranks too: two over every rank with one tag, one over the even ranks with another.
  run create_group 0 -n 3 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/cg.%r.json" "$app" create_group
  for r in 0 2; do "$check" "$dir/cg.$r.json" coll:barrier=6 unmatched=0 || fail=1; done
  "$check" "$dir/cg.1.json" coll:barrier=4 unmatched=0 || fail=1
  ;;
utf8)
  # A command line that is not UTF-8 (a Latin-1 file name as an argument) on one rank of two: every profile is
  # written, the byte shown as U+FFFD, and MPI_Finalize does not wait forever for the rank's profile.
  bad=$(printf 'caf\351') replacement=$(printf 'caf\357\277\275')
  run utf8 0 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/u.%r.json" -n 1 "$app" plain : \
    -n 1 "$app" plain "$bad"
  refuse "$dir/utf8.err" "cannot write the profile" "utf8: the profile is written"
  expect "$dir/u.1.json" "plain $replacement" "utf8: the command line holds U+FFFD for the byte"
  expect "$dir/u.job.json" '"kind": "job"' "utf8: the job profile is written"
  ;;
chdir)
  # A program that changes its working directory after MPI_Init: relative SIDECORE_PROFILE and SIDECORE_TRACE paths
  # name files of the directory it was started in (where MPI_Init checked them), not of the one it moved to.
  mkdir -p "$dir/start"
  cd "$dir/start"
  run chdir 0 -n 2 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE rel.%r.json -genv SIDECORE_TRACE tr.%r.json \
    "$app" chdir "$dir/moved"
  cd "$dir"
  for f in rel.0.json rel.1.json rel.job.json tr.0.json tr.1.json; do
    if [ -s "$dir/start/$f" ]; then echo "ok: chdir: $f written where the run started"; else
      echo "FAILED: chdir: no $f in $dir/start"; fail=1; fi
  done
  refuse "$dir/chdir.err" "cannot write" "chdir: every output written"
  if [ -n "$(ls -A "$dir/moved")" ]; then
    echo "FAILED: chdir: files in the new directory: $(ls -A "$dir/moved")"; fail=1
  fi
  ls -A "$dir/start" | grep -q 'tmp$' && { echo "FAILED: chdir: temporary files left: $(ls -A "$dir/start")"; fail=1; }
  ;;
threads)
  # More threads over the run than the instrumentation has slots at once (1024): every call still counts.
  n=1100
  run threads 0 -n 1 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/th.%r.json" "$app" threads $n
  refuse "$dir/threads.err" "are not recorded" "threads: no call left out"
  "$check" "$dir/th.0.json" init=$((2 * n)) wait=$n blocking=1 calling_threads=$((n + 1)) || fail=1
  ;;
nbc_threads)
  # Three threads per rank each completing 600 MPI_Ibarrier + MPI_Wait on a communicator of its own, in mode off and
  # in core mode (where the progress thread makes the handles' reuse across threads frequent): every instance counts
  # once and matches across the ranks.
  modes=off
  [ "$(nproc)" -ge 2 ] && modes="off core"
  for mode in $modes; do
    run "nbc_threads_$mode" 0 -n 2 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/nt_$mode.%r.json" \
      -genv SIDECORE_PROGRESS "$mode" "$app" nbc_threads 3 600
    for r in 0 1; do "$check" "$dir/nt_$mode.$r.json" coll:barrier=1800 wait=1800 unmatched=0 || fail=1; done
  done
  ;;
requests)
  # Request handling counted exactly: null entries, MPI_STATUSES_IGNORE, freed and persistent requests of every send
  # mode, Waitsome and Testsome, communicators freed after their collectives.
  run requests 0 -n 2 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/rq.%r.json" "$app" requests
  expect "$dir/requests.out" "pmpi_edge_app: requests done" "requests: the program ran to its end"
  for r in 0 1; do
    "$check" "$dir/rq.$r.json" blocking=5 init=17 test=1 wait=11 other=23 coll:barrier=2 coll:allreduce=1 \
      unmatched=0 || fail=1
  done
  ;;
idup)
  # Barriers on a communicator made by MPI_Comm_idup (keyed by this rank alone): counted, not sampled, not unmatched.
  run idup 0 -n 2 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/id.%r.json" "$app" idup
  for r in 0 1; do "$check" "$dir/id.$r.json" coll:barrier=2 unmatched=0 || fail=1; done
  ;;
pmpi_init)
  # A program that initializes MPI by PMPI_Init_thread itself is not profiled: said once, at its exit.
  run pmpi_init 0 -n 2 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/pi.%r.json" "$app" pmpi_init
  expect "$dir/pmpi_init.out" "pmpi_edge_app: pmpi_init done" "pmpi_init: the program ran to its end"
  expect "$dir/pmpi_init.err" "sidecore-pmpi: MPI was initialized past libsidecore-pmpi.so" "pmpi_init: said at exit"
  [ "$(grep -c "initialized past" "$dir/pmpi_init.err")" -eq 1 ] && echo "ok: pmpi_init: said once" ||
    { echo "FAILED: pmpi_init: not said exactly once"; fail=1; }
  ;;
f08)
  # A program of MPICH's mpi_f08 bindings, whose MPI_Init, MPI_Finalize, waits, tests and MPI_Barrier call PMPI_*
  # themselves: profiled all the same, every call counted, in mode off and in core mode.
  modes=off
  [ "$(nproc)" -ge 2 ] && modes="off core"
  for mode in $modes; do
    run "f08_$mode" 0 -n 2 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/f08_$mode.%r.json" \
      -genv SIDECORE_PROGRESS "$mode" -genv SIDECORE_VERBOSE 1 "$app"
    expect "$dir/f08_$mode.out" "pmpi_f08_app: f08 done" "f08, mode $mode: the program ran to its end"
    refuse "$dir/f08_$mode.err" "initialized past" "f08, mode $mode: MPI_Init was seen"
    for r in 0 1; do
      "$check" "$dir/f08_$mode.$r.json" blocking=2 init=9 wait=7 test=1 other=8 coll:barrier=4 coll:allreduce=2 \
        unmatched=0 || fail=1
    done
    [ "$mode" = core ] && expect "$dir/f08_core.err" "reserved Core" "f08, mode core: the progress core was reserved"
  done
  ;;
libsc)
  # A program exporting sc_init (p4est's libsc does) is profiled: only a C++ symbol of
  # libsidecore makes the profiler stand down for a sidecore application...
  run libsc 0 -n 1 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/sc.%r.json" \
    "$(dirname "$app")/pmpi_libsc_app" plain
  refuse "$dir/libsc.err" "stands down" "libsc: the profiler does not stand down"
  "$check" "$dir/sc.0.json" blocking=1 || fail=1
  # ... while a program linking libsidecore (apps/heat2d) is left to profile itself.
  run sidecore_app 0 -n 1 -genv LD_PRELOAD "$preload" -genv SIDECORE_PROFILE "$dir/app.%r.json" \
    -genv OMP_NUM_THREADS 1 "$(dirname "$app")/heat2d" --n 16 --iters 2
  expect "$dir/sidecore_app.err" "stands down" "sidecore_app: the profiler stands down"
  [ -s "$dir/app.0.json" ] && echo "ok: sidecore_app: the program wrote its own profile" ||
    { echo "FAILED: sidecore_app: no $dir/app.0.json"; fail=1; }
  ;;
*)
  echo "FAILED: unknown case '$case'"
  fail=1
  ;;
esac
exit $fail

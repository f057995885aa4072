#!/bin/sh
# Every reader of the `sidecore` command on a FIFO, /dev/zero and a directory: each must answer at once with exit
# status 2 and a message naming the path and what is accepted (issue 17: they read forever or blocked).
# Usage: check_special_files.sh SIDECORE_EXE DATA_DIR WORK_DIR
set -u
exe=$1 data=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
mkfifo "$work/fifo" || { echo "FAIL: mkfifo"; exit 1; }
fails=0
check() {  # check PATH KIND ARGS...: runs `sidecore ARGS` (at most 10 s) and matches its message
  path=$1 kind=$2; shift 2
  out=$(timeout 10 "$exe" "$@" 2>&1)
  rc=$?
  case "$out" in
    *"$path: cannot read "*"it is $kind; accepted: a regular file of at most"*) ;;
    *) rc=99 ;;
  esac
  if [ $rc -ne 2 ]; then
    echo "FAIL (exit $rc): sidecore $*"; echo "  $out"; fails=$((fails + 1))
  fi
}
for spec in "$work/fifo|a FIFO (named pipe)" "/dev/zero|a character device" "$work|a directory"; do
  p=${spec%%|*} k=${spec#*|}
  check "$p" "$k" predict "$p"
  check "$p" "$k" predict --mpip "$p" --cores 16
  check "$p" "$k" report "$p" -o "$work/r.html"
  check "$p" "$k" predict --scaling-table "$p" "$data/kripke_case1_off.json"
  check "$p" "$k" predict "$data/kripke_case1_off.json" --trace "$p"
  check "$p" "$k" loggp "$p"
  check "$p" "$k" simulate "$p"
  check "$p" "$k" whatif "$p"
  check "$p" "$k" whatif --scaling "$p" "$data/sim/pingpong.0.json" "$data/sim/pingpong.1.json"
  check "$p" "$k" whatif --loggp "$p" "$data/sim/pingpong.0.json" "$data/sim/pingpong.1.json"
done
# `study --resume` reads OUT/study.json: the record itself is the FIFO, a link to /dev/zero, a directory.
mkdir -p "$work/study_fifo" "$work/study_zero" "$work/study_dir/study.json" &&
  mkfifo "$work/study_fifo/study.json" && ln -s /dev/zero "$work/study_zero/study.json" || \
    { echo "FAIL: setup"; exit 1; }
for spec in "study_fifo|a FIFO (named pipe)" "study_zero|a character device" "study_dir|a directory"; do
  d=$work/${spec%%|*} k=${spec#*|}
  check "$d/study.json" "$k" study --resume --out "$d" -- /bin/true
done
[ $fails -eq 0 ] && echo "PASS: every reader refused every special file at once"
[ $fails -eq 0 ]

#!/bin/sh
# End-to-end test of `sidecore study` on the smallest input of apps/md: a judged one-rank study, a two-rank study
# with an alpha point marked oversubscribed, --resume, a failed run (and one that left no profile), an interrupt,
# and a bad argument.
# Usage: check_study.sh SIDECORE MD MPIEXEC WORKDIR
set -u
sidecore=$1 md=$2 mpiexec=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
app="$md --size 6 --steps 30 --reneigh 10"
# Waits until a process of md runs with the arguments $1 (its command line starts with md's path, unlike the study's
# and the launcher's, which hold the same words): the study is then inside that run. At most 30 s.
wait_for_md() {
  i=0
  until pgrep -f -- "^$md $1" > /dev/null; do
    i=$((i + 1))
    [ $i -le 300 ] || fail "md $1 did not start"
    sleep 0.1
  done
}

# One rank has every core of the host: nothing oversubscribed.
"$sidecore" study -n 1 --reps 1 --mpiexec "$mpiexec" --out "$work/one" -- $app > "$work/one.txt" 2>&1
st=$?; cat "$work/one.txt"
[ $st -eq 0 ] || fail "one-rank study exit status $st"
grep -q '^\[3/3\] c0.dedicated.r0' "$work/one.txt" || fail "no line for the dedicated run"
grep -q 'terms of rank 0' "$work/one.txt" || fail "no term table"
grep -q 'scaling: measured table' "$work/one.txt" || fail "the measured scaling was not used"
grep -q '"comparison"' "$work/one/study.json" || fail "no comparison in the record"
grep -q 'sidecore study: the model against measured runs' "$work/one/report.html" || \
  fail "no study section in the report"
grep -q '<svg' "$work/one/comparison.svg" || fail "no SVG"

# A run whose app writes no profile fails, though an earlier study left its profiles in the same run folder.
rm "$work/one/study.json"
"$sidecore" study -n 1 --reps 1 --mpiexec "$mpiexec" --out "$work/one" -- true > "$work/stale.txt" 2>&1
st=$?; cat "$work/stale.txt"
[ $st -eq 1 ] && grep -q 'run c0.calibration.r0 failed: no usable profile' "$work/stale.txt" ||
  fail "an earlier study's profiles were taken for this run's"

# An app whose processes do not form one MPI job (its MPI is not the launcher's: here the launcher's variables are
# removed, so each process is a job of one rank and both write rank 0's profile) fails the run, where its profile
# was taken for a 2-rank run and judged.
"$sidecore" study -n 2 --reps 1 --mpiexec "$mpiexec" --out "$work/single" -- sh -c \
  'for v in $(env | grep -E "^(PMI|HYDI|HYDRA|MPIR|PMIX)" | cut -d= -f1); do unset $v; done; exec "$0" "$@"' \
  $app > "$work/single.txt" 2>&1
st=$?; cat "$work/single.txt"
[ $st -eq 1 ] && grep -q 'run c0.calibration.r0 failed: the job profile holds 1 rank(s) where -n launched 2' \
  "$work/single.txt" || fail "a run of single-rank jobs was taken for a 2-rank run"

# Two ranks on a host said to have 2 cores: every run is made, the comparison is not judged.
"$sidecore" study -n 2 --reps 1 --alpha 1 --alpha-option=--alpha --host-cores 2 --mpiexec "$mpiexec" \
  --out "$work/two" -- $app > "$work/two.txt" 2>&1
st=$?; cat "$work/two.txt"
[ $st -eq 0 ] || fail "two-rank study exit status $st"
grep -q 'NOT JUDGED: oversubscribed: 2 ranks x' "$work/two.txt" || fail "oversubscription not said"
grep -q 'alpha points' "$work/two.txt" || fail "no alpha points"
grep -Eq '^ +1 +0\.[0-9]{4} ' "$work/two.txt" || fail "no model alpha for the app's alpha 1"

# Two cases, the first with no extra arguments (an empty --inputs value took the next word for itself).
"$sidecore" study -n 1 --reps 1 --mpiexec "$mpiexec" --out "$work/cases" --inputs "" "--steps 20" -- $app \
  > "$work/cases.txt" 2>&1
st=$?; cat "$work/cases.txt"
[ $st -eq 0 ] || fail "two-case study exit status $st"
grep -q '^\[6/6\] c1.dedicated.r0' "$work/cases.txt" || fail "not two cases of three runs"
grep -q '"command": .*--inputs' "$work/cases/study.json" && fail "--inputs reached the app"
grep -q -- '--reneigh 10 --steps 20"' "$work/cases/study.json" || fail "the second case's arguments not appended"

# Resuming a finished study runs nothing; a different study in the same folder is refused.
"$sidecore" study -n 2 --reps 1 --alpha 1 --alpha-option=--alpha --host-cores 2 --mpiexec "$mpiexec" \
  --out "$work/two" --resume -- $app > "$work/resume.txt" 2>&1 || fail "resume exit status $?"
[ "$(grep -c 'done before' "$work/resume.txt")" -eq 4 ] || fail "resume ran again: $(cat "$work/resume.txt")"
# Without --reps, the record's count (not the default 3, which --resume would refuse as fewer or run as more).
"$sidecore" study -n 2 --alpha 1 --alpha-option=--alpha --host-cores 2 --mpiexec "$mpiexec" \
  --out "$work/two" --resume -- $app > "$work/resume_reps.txt" 2>&1 || fail "resume without --reps: exit status $?"
[ "$(grep -c 'done before' "$work/resume_reps.txt")" -eq 4 ] || fail "resume without --reps ran again"
# A kept run whose profile no longer reads is run again, saying so (it was kept, and the model refused it on every
# resume).
echo '{"x":' > "$work/two/runs/c0.calibration.r0/prof.job.json"
"$sidecore" study -n 2 --alpha 1 --alpha-option=--alpha --host-cores 2 --mpiexec "$mpiexec" \
  --out "$work/two" --resume -- $app > "$work/resume_bad.txt" 2>&1 || fail "resume with a bad profile: exit status $?"
cat "$work/resume_bad.txt"
grep -q 'not kept from the record, run again: c0.calibration.r0: its profile: ' "$work/resume_bad.txt" &&
  grep -q '^\[1/4\] c0.calibration.r0 .* s (slowest rank' "$work/resume_bad.txt" ||
  fail "a kept run whose profile does not read was not run again"
"$sidecore" study -n 1 --reps 1 --out "$work/two" --resume -- $app > "$work/resume2.txt" 2>&1
st=$?; cat "$work/resume2.txt"
[ $st -eq 2 ] && grep -q -- '--resume: -n: .* holds a study with -n 2, this command asks for 1' "$work/resume2.txt" ||
  fail "a different study was resumed"

# A run that fails: its command, exit status and stderr, and exit status 1.
"$sidecore" study -n 1 --reps 1 --mpiexec "$mpiexec" --out "$work/bad" -- $app --steps=-3 > "$work/bad.txt" 2>&1
st=$?; cat "$work/bad.txt"
[ $st -eq 1 ] || fail "failed run: exit status $st"
grep -q 'run c0.calibration.r0 failed: exit status' "$work/bad.txt" || fail "failure not named"
grep -q 'command: env .*SIDECORE_PROGRESS=off' "$work/bad.txt" || fail "failed command not printed"
grep -q "steps" "$work/bad.txt" || fail "the app's stderr not shown"

# SIGINT stops the running job and keeps the record. Meanwhile a second study into the same folder is refused
# (both wrote it, each losing the other's runs).
"$sidecore" study -n 1 --reps 1 --mpiexec "$mpiexec" --out "$work/int" -- $md --size 6 --steps 10000000 \
  > "$work/int.txt" 2>&1 &
pid=$!
wait_for_md "--size 6 --steps 10000000"
"$sidecore" study -n 1 --reps 1 --mpiexec "$mpiexec" --out "$work/int" -- $app > "$work/twice.txt" 2>&1
st=$?; cat "$work/twice.txt"
[ $st -eq 2 ] && grep -q -- "--out: '$work/int' is not accepted; accepted: a folder no other study is using" \
  "$work/twice.txt" || fail "a second study into a folder in use was not refused"
kill -INT $pid
wait $pid
st=$?; cat "$work/int.txt"
[ $st -eq 130 ] || fail "interrupt: exit status $st"
grep -q 'interrupted by signal 2 during c0.calibration.r0' "$work/int.txt" || fail "interrupt not said"
[ -f "$work/int/study.json" ] || fail "no record after the interrupt"

# SIGHUP (a closed terminal or ssh session) stops the job too: no rank is left running.
"$sidecore" study -n 1 --reps 1 --mpiexec "$mpiexec" --out "$work/hup" -- $md --size 6 --steps 9999999 \
  > "$work/hup.txt" 2>&1 &
pid=$!
wait_for_md "--size 6 --steps 9999999"
kill -HUP $pid
wait $pid
st=$?; cat "$work/hup.txt"
[ $st -eq 129 ] || fail "hangup: exit status $st"
sleep 1
pgrep -f -- '--steps 9999999' > /dev/null && fail "a rank outlived the study's hangup"

# A run longer than --run-timeout is stopped and fails, naming the limit.
"$sidecore" study -n 1 --reps 1 --run-timeout 0.5 --mpiexec "$mpiexec" --out "$work/slow" -- $md --size 6 \
  --steps 10000000 > "$work/slow.txt" 2>&1
st=$?; cat "$work/slow.txt"
[ $st -eq 1 ] && grep -q 'run c0.calibration.r0 failed: stopped after 0.5 s (--run-timeout 0.5)' "$work/slow.txt" ||
  fail "a run past --run-timeout was not stopped"

# Standard output closed early (| head): the runs are made and recorded; the study says its output was lost.
{ "$sidecore" study -n 1 --reps 1 --mpiexec "$mpiexec" --out "$work/pipe" -- $app 2> "$work/pipe.err"
  echo $? > "$work/pipe.st"; } | head -n 1 > /dev/null
st=$(cat "$work/pipe.st"); cat "$work/pipe.err"
[ "$st" -eq 2 ] && grep -q 'standard output: the results could not be written' "$work/pipe.err" ||
  fail "a closed standard output: exit status $st"
[ -f "$work/pipe/report.html" ] || fail "a closed standard output stopped the study"

# Bad arguments: the option, the value, what is accepted; exit status 2.
"$sidecore" study --reps 0 -- $app > "$work/arg.txt" 2>&1
st=$?; cat "$work/arg.txt"
[ $st -eq 2 ] && grep -q -- "--reps: '0' is not accepted; accepted: an integer in \[1 - 99\]" "$work/arg.txt" \
  || fail "bad --reps"
echo "study checks passed"

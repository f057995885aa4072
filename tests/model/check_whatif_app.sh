#!/bin/sh
# A real trace: heat2d (2 ranks, off mode, a small grid) records SIDECORE_TRACE and its profile; `sidecore whatif`
# replays the traces (exit 0, the three scenarios printed, nothing left unmatched) and `sidecore predict --trace`
# shows the replay beside the model; the traces of another run are refused beside that profile (their run ids
# differ).
# Usage: check_whatif_app.sh MPIEXEC HEAT2D SIDECORE_EXE WORK_DIR
set -u
mpiexec=$1 app=$2 exe=$3 work=$4
rm -rf "$work" && mkdir -p "$work" || exit 1
SIDECORE_PROGRESS=off OMP_NUM_THREADS=2 SIDECORE_TRACE="$work/trace.%r.json" SIDECORE_PROFILE="$work/prof.%r.json" \
  timeout 120 "$mpiexec" -n 2 "$app" --n 256 --iters 20 > "$work/app.out" 2>&1 || \
    { echo "FAIL: heat2d"; cat "$work/app.out"; exit 1; }
out=$(timeout 120 "$exe" whatif "$work/trace.0.json" "$work/trace.1.json" --svg "$work/whatif.svg" \
        --timeline "$work/whatif.json" 2>&1) || { echo "FAIL: sidecore whatif"; echo "$out"; exit 1; }
echo "$out"
for want in "traced run" "progress in calls" "dedicated core" "ideal overlap" "bandwidth sweep"; do
  case "$out" in *"$want"*) ;; *) echo "FAIL: no '$want' in the output"; exit 1 ;; esac
done
[ -s "$work/whatif.svg" ] && [ -s "$work/whatif.json" ] || { echo "FAIL: no SVG or timeline written"; exit 1; }
pred=$(timeout 120 "$exe" predict "$work/prof.job.json" --trace "$work/trace.0.json" "$work/trace.1.json" 2>&1) ||
  { echo "FAIL: sidecore predict --trace"; echo "$pred"; exit 1; }
case "$pred" in *"trace replay (sidecore whatif"*) ;; \
  *) echo "FAIL: predict shows no replay"; echo "$pred"; exit 1 ;; esac
SIDECORE_PROGRESS=off OMP_NUM_THREADS=2 SIDECORE_TRACE="$work/other.%r.json" \
  timeout 120 "$mpiexec" -n 2 "$app" --n 256 --iters 20 > "$work/app2.out" 2>&1 || \
    { echo "FAIL: heat2d (2)"; cat "$work/app2.out"; exit 1; }
other=$(timeout 120 "$exe" predict "$work/prof.job.json" --trace "$work/other.0.json" "$work/other.1.json" 2>&1) &&
  { echo "FAIL: predict accepted the traces of another run"; echo "$other"; exit 1; }
case "$other" in *"the calibration profiles of run"*) ;; *) echo "FAIL: no run named"; echo "$other"; exit 1 ;; esac
echo "$other"
echo "PASS"

#!/usr/bin/env bash
# Issue 15's accuracy check: `sidecore study` on the four apps of apps/ (md with alpha points), each rank bound to
# its own K cores, then one table of predicted against measured t_dedicated per app and input, and the median and
# worst |error| over the judged cases. Needs >= 4 cores per rank on an otherwise idle host (docs/study.md says why
# a smaller machine cannot judge); on 16 cores: 2 ranks of 8.
#
#   bench/run-study.sh [--ranks=R] [--cores-per-rank=K] [--reps=N] [--apps=md,sweep,multizone,heat2d]
#                      [--limit=SECONDS] [--out=DIR] [--quick] [BUILD_DIR]
#
# --quick: inputs of a few milliseconds, to check the script and the launcher, not the model.
# K defaults to the host's physical cores / R (lscpu). Each study gets at most --limit seconds (default 150); a study
# stopped by it keeps the runs it finished (study.json is rewritten after every run) and the table says so.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

quick=0 ranks=2 cores="" reps=5 apps=md,sweep,multizone,heat2d limit=150 build="" OUT=""
for a in "$@"; do
  case $a in
    --ranks=*) ranks=${a#--ranks=} ;;
    --cores-per-rank=*) cores=${a#--cores-per-rank=} ;;
    --reps=*) reps=${a#--reps=} ;;
    --apps=*) apps=${a#--apps=} ;;
    --limit=*) limit=${a#--limit=} ;;
    --out=*) OUT=${a#--out=} ;;
    --quick) quick=1 ;;
    -h|--help)
      sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
      bench_usage_common
      exit 0 ;;
    -*) echo "error: unknown option '$a' (see --help)" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
for v in ranks reps limit; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "error: --$v=${!v} is not accepted: give a positive integer" >&2; exit 2; }
done
bin=$(bench_find_bin "$build" sidecore)
physical=$(lscpu -p=CORE 2>/dev/null | grep -v '^#' | sort -u | wc -l)
((physical > 0)) || physical=$(nproc)
cores=${cores:-$((physical / ranks))}
[[ $cores =~ ^[1-9][0-9]*$ ]] || \
  { echo "error: --cores-per-rank=$cores is not accepted: give a positive integer" >&2; exit 2; }
if ((cores < 4)); then
  echo "warning: $cores cores per rank ($physical physical cores / $ranks ranks): the accuracy targets need >= 4;" \
       "the studies run, their comparisons say what they can judge" >&2
fi
OUT=${OUT:-$(dirname "$bin")/bench-results/study-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
launcher="mpiexec -bind-to core:$cores"

# The inputs: runs of about a second at 8 threads per rank, two per app (the paper's cases where the app has them).
declare -A inputs=(
  [md]='--size 32 --steps 80|--size 24 --steps 150'
  [sweep]='--case 1 --iters 40|--case 2 --iters 10'
  [multizone]='--class A|--class W --steps 1500'
  [heat2d]='--n 4096 --iters 500|--n 2048 --iters 1500'
)
if ((quick)); then
  inputs=([md]='--size 4 --steps 10' [sweep]='--case 2 --iters 1' [multizone]='--class S --steps 2'
          [heat2d]='--n 128 --iters 10')
fi

echo "# run-study: $(date -u +%FT%TZ) host $(hostname) $(nproc) PUs, $physical cores; $ranks ranks x $cores cores;" \
     "--reps $reps; launcher '$launcher'; build $bin"
IFS=, read -r -a app_list <<<"$apps"
for app in "${app_list[@]}"; do
  [[ -n ${inputs[$app]:-} ]] || \
    { echo "error: --apps: '$app' is not accepted: md, sweep, multizone, heat2d" >&2; exit 2; }
done
for app in "${app_list[@]}"; do
  IFS='|' read -r -a cases <<<"${inputs[$app]}"
  extra=()
  [[ $app == md ]] && extra=(--alpha 0.5,1 --alpha-option=--alpha)
  cmd=("$bin/sidecore" study -n "$ranks" --reps "$reps" --mpiexec "$launcher" --out "$OUT/$app" "${extra[@]}"
       --inputs "${cases[@]}" -- "$bin/$app")
  printf '\n$'
  printf ' %q' "${cmd[@]}"
  echo
  rc=0
  timeout --kill-after=10 "$limit" "${cmd[@]}" >"$OUT/$app.log" 2>&1 || rc=$?
  # The study's summary: from its title line to the end.
  awk '/^sidecore study:/ {p=1} p' "$OUT/$app.log"
  if ((rc != 0)); then
    echo "!! $app: exit $rc$( ((rc == 124)) && \
      echo ", stopped after ${limit}s: the runs done are in $OUT/$app/study.json")"
    tail -n 8 "$OUT/$app.log" | sed 's/^/!!   /'
  fi
done

# Every judged case and alpha point from the records, with the failure cases the diagnostics found; the targets
# are judged over the cases where the model's hypotheses hold (none of the paper's failure cases found).
echo
python3 - "$OUT" "${app_list[@]}" <<'PY'
import json, os, statistics, sys
out, apps = sys.argv[1], sys.argv[2:]
rows, alphas = [], []
for app in apps:
    path = os.path.join(out, app, "study.json")
    if not os.path.exists(path):
        print(f"{app}: no record ({path})")
        continue
    for c in json.load(open(path)).get("comparison", []):
        failures = sorted({f["id"] for f in c["findings"] if f["paper_case"] and f["id"] != "nonlinear-scaling"})
        noisy = any(f["id"] == "noisy-runs" for f in c["findings"])
        spread = c.get("spread", {}).get("dedicated")
        err = c["relative_error"]
        rows.append((app, c["input"], c["judged"], err, failures, noisy, spread, c["not_judged"]))
        for a in c["alphas"]:
            if a["relative_error"] is not None and c["judged"]:
                alphas.append((app, c["input"], a["app_alpha"], a["model_alpha"], a["relative_error"]))
print(f"{'app':10} {'input':26} {'error':>8} {'spread':>7}  failure cases found")
for app, inp, judged, err, failures, noisy, spread, why in rows:
    e = f"{100 * err:+.1f} %" if judged and err is not None else "-"
    sp = f"{100 * spread:.0f} %" if spread is not None else "-"
    print(f"{app:10} {inp:26} {e:>8} {sp:>7}  {', '.join(failures) or 'none'}"
          + ("" if judged else f"  NOT JUDGED: {why[0] if why else ''}"))
for app, inp, aa, ma, err in alphas:
    print(f"{app:10} {inp:26} alpha {aa:g} (model {ma:.3f}): {100 * err:+.1f} %")
def summary(label, errs):
    if not errs:
        print(f"{label}: none"); return
    errs = [abs(e) for e in errs]
    print(f"{label}: {len(errs)}, median |error| {100 * statistics.median(errs):.1f} %, worst {100 * max(errs):.1f} %")
judged = [r for r in rows if r[2] and r[3] is not None]
summary("judged cases", [r[3] for r in judged])
summary("judged cases where the hypotheses hold (no failure case found)", [r[3] for r in judged if not r[4]])
summary("alpha points", [a[4] for a in alphas])
print("(issue 15's targets: median |error| <= 2 %, worst <= 5 % where the hypotheses hold; alpha points within 5 %;"
      " spread: (max - min) / median of the dedicated runs)")
PY

#!/bin/sh
# The probe's machine record (docs/loggp.md, "Files") against this host: the CPU model (the first "model name" of
# /proc/cpuinfo, "unknown" without one) and the online CPUs.
# Usage: check_probe_machine.sh MEASUREMENT_FILE
set -u
file=$1
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
[ -n "$model" ] || model=unknown
cpus=$(getconf _NPROCESSORS_ONLN)
fails=0
for want in "\"cpu_model\": \"$model\"" "\"online_cpus\": $cpus," "\"host\": " "\"mpi\": "; do
  grep -qF -- "$want" "$file" || { echo "FAIL: no '$want' in $file"; fails=$((fails + 1)); }
done
[ $fails -eq 0 ] && echo "PASS: cpu_model '$model', online_cpus $cpus"
[ $fails -eq 0 ]

#!/usr/bin/env bash
# bench/pack.sh end to end: the archive unpacks, every library its programs load resolves inside it (but the C
# library's), and a packed app runs from it under the packed launcher at 2 ranks.
# Usage: run-pack-test.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -eu
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work/unpacked"
XZ_OPT="-0 -T0" "$src/bench/pack.sh" --out="$work/payload.tar.xz" "$build"
tar xJf "$work/payload.tar.xz" -C "$work/unpacked"
root=$(cd "$work/unpacked" && pwd)
. "$root/env.sh"
outside=$(ldd "$root"/bin/* "$root"/lib/*.so* 2>/dev/null | awk '$2 == "=>" {print $3}' | grep -v "^$root/lib/" |
          grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' | sort -u || true)
if [ -n "$outside" ]; then
  echo "run-pack-test.sh: loaded from outside the archive:"; echo "$outside"; exit 1
fi
[ "$(command -v mpiexec)" = "$root/bin/mpiexec" ] || { echo "run-pack-test.sh: mpiexec is not the packed one"; exit 1; }
cd "$work"
SIDECORE_PROVIDER=shm SIDECORE_PROGRESS=off timeout 60 mpiexec -n 2 md --size 4 --steps 2
echo "pack: OK"

#!/usr/bin/env bash
# Packs a build's programs with the shared libraries they load and MPICH's launcher into one archive, for measuring
# on a host where the Debian packages are not installed and cannot be (a lent machine): unpack it there, source its
# env.sh, and give the unpacked directory to the run-*.sh scripts as their BUILD_DIR.
#
#   bench/pack.sh [--out=FILE.tar.xz] [BUILD_DIR]
#
# On the other host (same CPU architecture, a C library at least as new as this one's):
#   mkdir -p /tmp/sc && tar xJf FILE.tar.xz -C /tmp/sc && . /tmp/sc/env.sh && bench/run-study.sh /tmp/sc
# The C library itself (libc, libm, the dynamic loader) is not packed: a copy would not match the host's loader.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

out="" build=""
for a in "$@"; do
  case $a in
    --out=*) out=${a#--out=} ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "error: unknown option '$a'; accepted: --out=FILE.tar.xz, BUILD_DIR (see --help)" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
bin=$(bench_find_bin "$build" sidecore)
lib=$(cd "$bin/../lib" && pwd)
out=${out:-$(dirname "$bin")/sidecore-payload.tar.xz}
[[ $out == *.tar.xz ]] || { echo "error: --out=$out is not accepted: give a file name ending in .tar.xz" >&2; exit 2; }

programs=(sidecore sidecore-loggp-probe heat2d md sweep multizone bench_coll bench_overlap bench_p2p_mpi bench_p2p_raw
          bench_p2p_sidecore bench_p2p_paired bench_idle_cpu bench_copy bench_simulate bench_instrument bench_self_loop)
launcher=$(readlink -f "$(command -v mpiexec)") ||
  { echo "error: no mpiexec on PATH: install MPICH (make deps)" >&2; exit 1; }
tools=("$launcher" "$(dirname "$launcher")/hydra_pmi_proxy")
command -v lstopo-no-graphics >/dev/null && tools+=("$(command -v lstopo-no-graphics)")

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
objects=()
for p in "${programs[@]}"; do
  [[ -x $bin/$p ]] || { echo "error: $bin/$p is missing: build everything first (make build)" >&2; exit 1; }
  cp "$bin/$p" "$stage/bin/"
  objects+=("$bin/$p")
done
for t in "${tools[@]}"; do
  [[ -x $t ]] || { echo "error: $t is missing (MPICH's hydra launcher)" >&2; exit 1; }
  cp "$t" "$stage/bin/$(basename "$t")"
  objects+=("$t")
done
[[ -e $stage/bin/mpiexec.hydra ]] && ln -sf mpiexec.hydra "$stage/bin/mpiexec"
cp "$lib/libsidecore-pmpi.so" "$stage/lib/"
objects+=("$lib/libsidecore-pmpi.so")
# UCX loads its transports at run time (MPICH's ch4:ucx): no ldd sees them.
ucx=$(ldconfig -p | awk '/libucs\.so\.0 / && !found {print $NF; found = 1}')  # to the end: no SIGPIPE (pipefail)
if [[ -n $ucx && -d $(dirname "$ucx")/ucx ]]; then
  mkdir -p "$stage/lib/ucx"
  for m in "$(dirname "$ucx")"/ucx/*.so.0; do
    cp -L "$m" "$stage/lib/ucx/"
    objects+=("$m")
  done
fi
# Every shared library the objects load, but the C library's own.
ldd "${objects[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' |
  while read -r so; do cp -Ln "$so" "$stage/lib/"; done
missing=$(ldd "${objects[@]}" 2>/dev/null | grep 'not found' | sort -u || true)
[[ -z $missing ]] || { echo "error: unresolved libraries:"$'\n'"$missing" >&2; exit 1; }
# Without their debug information the programs take a tenth of the room (a lent host's carry limit).
strip --strip-debug "$stage"/bin/* "$stage"/lib/libsidecore* 2>/dev/null || true
cat >"$stage/env.sh" <<'EOF'
# Source this file from bash: the packed programs first on PATH, their libraries first for the loader.
sc_root=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
export PATH=$sc_root/bin:$PATH LD_LIBRARY_PATH=$sc_root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -d "$sc_root/lib/ucx" ] && export UCX_MODULE_DIR=$sc_root/lib/ucx
EOF
mkdir -p "$(dirname "$out")"
XZ_OPT=${XZ_OPT:--T0} tar cJf "$out" -C "$stage" .
echo "packed $(find "$stage/bin" -type f | wc -l) programs and $(find "$stage/lib" -name '*.so*' | wc -l) libraries" \
     "into $out ($(du -h "$out" | cut -f1))"

#!/bin/sh
# Builds the outside project in tests/packaging/consumer against sidecore the three ways a user can, and runs it
# under mpiexec at 2 ranks. Registered by tests/CMakeLists.txt (label packaging).
#
#   run-packaging-test.sh install      SIDECORE_BUILD WORK   cmake --install the build into WORK/prefix
#   run-packaging-test.sh build-tree   SIDECORE_BUILD WORK   find_package(sidecore) from the build tree
#   run-packaging-test.sh install-tree SIDECORE_BUILD WORK   find_package(sidecore) from WORK/prefix
#   run-packaging-test.sh pkg-config   SIDECORE_BUILD WORK   a plain Makefile through WORK/prefix's sidecore.pc
#
# Environment: MPIEXEC (default mpiexec), CXX (the compiler sidecore was built with).
set -eu

usage() {
  echo "usage: $0 install|build-tree|install-tree|pkg-config SIDECORE_BUILD_DIR WORK_DIR" >&2
  exit 2
}
[ $# -eq 3 ] || usage
mode=$1 build=$2 work=$3
src=$(cd "$(dirname "$0")/consumer" && pwd)
prefix=$work/prefix
mpiexec=${MPIEXEC:-mpiexec}
cxx=${CXX:-c++}

run_consumer() {  # $1: the consumer executable
  OMP_NUM_THREADS=1 "$mpiexec" -n 2 "$1"
}

configure_and_build() {  # $1: build dir of the consumer; the rest: how to find sidecore
  dir=$1
  shift
  rm -rf "$dir"
  cmake -S "$src" -B "$dir" -DCMAKE_CXX_COMPILER="$cxx" "$@"
  cmake --build "$dir"
}

case $mode in
  install)
    rm -rf "$prefix"
    cmake --install "$build" --prefix "$prefix"
    ;;
  build-tree)
    configure_and_build "$work/build-tree" -Dsidecore_DIR="$build"
    run_consumer "$work/build-tree/consumer"
    ;;
  install-tree)
    [ -d "$prefix" ] || { echo "$0: $prefix is missing: run the install step first" >&2; exit 1; }
    configure_and_build "$work/install-tree" -DCMAKE_PREFIX_PATH="$prefix"
    # The consumer must have used the installed package, not the build tree.
    grep -q "^sidecore_DIR:PATH=$prefix/" "$work/install-tree/CMakeCache.txt" ||
      { echo "$0: the consumer did not find sidecore in $prefix" >&2; exit 1; }
    run_consumer "$work/install-tree/consumer"
    ;;
  pkg-config)
    [ -d "$prefix" ] || { echo "$0: $prefix is missing: run the install step first" >&2; exit 1; }
    pc=$(find "$prefix" -name sidecore.pc -path '*/pkgconfig/*' | head -n 1)
    [ -n "$pc" ] || { echo "$0: no sidecore.pc under $prefix" >&2; exit 1; }
    rm -rf "$work/pkg-config"
    mkdir -p "$work/pkg-config"
    cp "$src/consumer.cpp" "$src/Makefile" "$work/pkg-config/"
    PKG_CONFIG_PATH=$(dirname "$pc") make -C "$work/pkg-config" CXX="$cxx"
    run_consumer "$work/pkg-config/consumer"
    ;;
  *) usage ;;
esac

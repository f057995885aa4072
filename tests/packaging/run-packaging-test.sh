#!/bin/sh
# Builds the outside project in tests/packaging/consumer against sidecore the three ways a user can, and runs it
# under mpiexec at 2 ranks. Registered by tests/CMakeLists.txt (label packaging).
#
#   run-packaging-test.sh install      SIDECORE_BUILD WORK   cmake --install the build into WORK/prefix
#   run-packaging-test.sh build-tree   SIDECORE_BUILD WORK   find_package(sidecore) from the build tree
#   run-packaging-test.sh install-tree SIDECORE_BUILD WORK   find_package(sidecore) from WORK/prefix, in the C++
#                                                            project, in a C-only one (consumer-c, the C API) and,
#                                                            with FC set, a Fortran-only one (consumer-fortran)
#   run-packaging-test.sh pkg-config   SIDECORE_BUILD WORK   a plain Makefile through WORK/prefix's sidecore.pc
#
# Environment: MPIEXEC (default mpiexec), CXX, CC and FC (the compilers sidecore was built with; FC only where it
# built its Fortran module).
set -eu

usage() {
  echo "usage: $0 install|build-tree|install-tree|pkg-config SIDECORE_BUILD_DIR WORK_DIR" >&2
  exit 2
}
[ $# -eq 3 ] || usage
mode=$1 build=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
src=$here/consumer
prefix=$work/prefix
mpiexec=${MPIEXEC:-mpiexec}
cxx=${CXX:-c++}
cc=${CC:-cc}

run_consumer() {  # $1: the consumer executable
  # CONSUMER_PRELOAD (the Asan build): the sanitizer runtime libsidecore needs, which must come first in the
  # consumer's library list (the consumer itself is built without -fsanitize, as a user's project is).
  OMP_NUM_THREADS=1 "$mpiexec" -n 2 ${CONSUMER_PRELOAD:+env LD_PRELOAD=$CONSUMER_PRELOAD} "$1"
}

configure_and_build() {  # $1: source dir, $2: build dir of the consumer; the rest: how to find sidecore
  source_dir=$1 dir=$2
  shift 2
  rm -rf "$dir"
  cmake -S "$source_dir" -B "$dir" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" "$@"
  cmake --build "$dir"
  # The consumer must have used the package it was pointed to.
  grep -q "^sidecore_DIR:[A-Z]*=$expect_dir" "$dir/CMakeCache.txt" ||
    { echo "$0: the consumer in $dir did not find sidecore in $expect_dir" >&2; exit 1; }
}

case $mode in
  install)
    rm -rf "$prefix"
    cmake --install "$build" --prefix "$prefix"
    ;;
  build-tree)
    expect_dir=$build
    configure_and_build "$src" "$work/build-tree" -Dsidecore_DIR="$build"
    run_consumer "$work/build-tree/consumer"
    ;;
  install-tree)
    [ -d "$prefix" ] || { echo "$0: $prefix is missing: run the install step first" >&2; exit 1; }
    expect_dir=$prefix/
    configure_and_build "$src" "$work/install-tree" -DCMAKE_PREFIX_PATH="$prefix"
    run_consumer "$work/install-tree/consumer"
    configure_and_build "$here/consumer-c" "$work/install-tree-c" -DCMAKE_PREFIX_PATH="$prefix"
    run_consumer "$work/install-tree-c/consumer_c"
    if [ -n "${FC:-}" ]; then  # sidecore was built with its Fortran module
      configure_and_build "$here/consumer-fortran" "$work/install-tree-fortran" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_Fortran_COMPILER="$FC"
      run_consumer "$work/install-tree-fortran/consumer_fortran"
    fi
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
    if [ -n "${FC:-}" ] && command -v mpifort > /dev/null; then  # the Fortran module, through MPI's wrapper
      export PKG_CONFIG_PATH
      PKG_CONFIG_PATH=$(dirname "$pc")
      # shellcheck disable=SC2046 # each variable is a list of words
      mpifort $(pkg-config --variable=fflags sidecore) "$here/consumer-fortran/consumer.f90" \
        $(pkg-config --variable=flibs sidecore) $(pkg-config --libs sidecore) \
        -Wl,-rpath,"$(pkg-config --variable=libdir sidecore)" -o "$work/pkg-config/consumer_fortran"
      run_consumer "$work/pkg-config/consumer_fortran"
    fi
    ;;
  *) usage ;;
esac

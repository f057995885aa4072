#!/bin/bash
# Every symbol a sidecore library exports is sidecore's own: C names begin with sidecore_ (the C API, and the
# Fortran module's C helpers), the Fortran module's with __sidecore_MOD_, and C++ names are in namespace sidecore or
# are the standard library's template instances. A program linking another library that exports a short-prefixed
# name (p4est's libsc has sc_init, sc_finalize, sc_reduce, ...) would otherwise get one library's function for every
# caller of that name, whichever the loader found first.
# usage: check-exports.sh LIBRARY.so...
set -u
[ $# -ge 1 ] || { echo "usage: check-exports.sh LIBRARY.so..." >&2; exit 2; }
fail=0
for lib in "$@"; do
  [ -r "$lib" ] || { echo "check-exports: cannot read $lib" >&2; fail=1; continue; }
  syms=$(nm -D --defined-only "$lib" | awk '{print $NF}') || \
    { echo "check-exports: nm failed on $lib" >&2; fail=1; continue; }
  n=0 bad=0
  while IFS= read -r s; do
    [ -n "$s" ] || continue
    n=$((n + 1))
    case $s in
      sidecore_* | __sidecore_MOD_*) continue ;;
      _init | _fini | _edata | _end | __bss_start) continue ;;  # the linker's own
      _Z*)
        d=$(printf '%s\n' "$s" | c++filt)
        case $d in
          sidecore::* | *" sidecore::"* | *"for sidecore::"*) continue ;;
          std::* | __gnu_cxx::* | void\ std::* | *" std::"*) continue ;;
        esac ;;
    esac
    echo "check-exports: $lib exports $s${d:+ ($d)}, which is not sidecore's (accepted: sidecore_*, \
__sidecore_MOD_*, C++ in namespace sidecore or std)"
    bad=$((bad + 1)) d=
  done <<< "$syms"
  echo "check-exports: $(basename "$lib"): $n symbols, $bad not sidecore's"
  [ "$bad" = 0 ] || fail=1
  [ "$n" -gt 0 ] || { echo "check-exports: $lib exports nothing" >&2; fail=1; }
done
exit $fail

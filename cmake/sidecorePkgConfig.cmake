# sidecore.pc, for projects built with Makefiles or a compiler line:
#   c++ $(pkg-config --variable=cxxflags sidecore) $(pkg-config --cflags sidecore) app.cpp $(pkg-config --libs sidecore)
#
# The file is relocatable (its prefix is found from its own directory, pkg-config's ${pcfiledir}), so that
# `cmake --install --prefix DIR` gives a correct file wherever DIR is. It requires the pkg-config module of the MPI
# sidecore was built with, found by comparing each candidate's include directory with FindMPI's mpi.h directory;
# when none matches, Requires stays empty and the application is compiled with that MPI's compiler wrapper
# (mpicxx), which the configure step says.

set(SIDECORE_PKGCONFIG_MPI "" CACHE STRING
    "pkg-config module of the MPI sidecore is built with, for sidecore.pc's Requires (empty: detected)")

function(sidecore_detect_pkgconfig_mpi out)
  set(${out} "" PARENT_SCOPE)
  if(NOT PKG_CONFIG_FOUND OR NOT MPI_C_HEADER_DIR)
    return()
  endif()
  file(REAL_PATH "${MPI_C_HEADER_DIR}" mpi_header_dir)
  foreach(module IN ITEMS mpich ompi-c ompi mpi)
    pkg_get_variable(module_includedir ${module} includedir)
    if(module_includedir)
      file(REAL_PATH "${module_includedir}" module_includedir)
      if(module_includedir STREQUAL mpi_header_dir)
        set(${out} ${module} PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
endfunction()

set(sidecore_pc_requires "${SIDECORE_PKGCONFIG_MPI}")
if(NOT sidecore_pc_requires)
  sidecore_detect_pkgconfig_mpi(sidecore_pc_requires)
  if(NOT sidecore_pc_requires)
    message(STATUS "sidecore.pc: no pkg-config module matches the MPI in ${MPI_C_HEADER_DIR}; Makefile users "
                   "compile with its wrapper (mpicxx), or set SIDECORE_PKGCONFIG_MPI")
  endif()
endif()

# Paths: relative to the file's own directory when both directories are under the prefix, absolute otherwise.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(sidecore_pc_prefix "${CMAKE_INSTALL_PREFIX}")
  set(sidecore_pc_libdir "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(sidecore_pc_includedir "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH sidecore_pc_up "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" sidecore_pc_up "${sidecore_pc_up}")
  set(sidecore_pc_prefix "\${pcfiledir}/${sidecore_pc_up}")
  set(sidecore_pc_libdir "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(sidecore_pc_includedir "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
set(sidecore_pc_openmp "${OpenMP_CXX_FLAGS}")
# The Fortran module, where it was built: mpifort $(pkg-config --variable=fflags sidecore) app.f90
# $(pkg-config --variable=flibs sidecore) $(pkg-config --libs sidecore)
set(sidecore_pc_fortran "")
if(TARGET sidecore_fortran)
  set(sidecore_pc_fortran "fflags=-I\${includedir}/sidecore/fortran\nflibs=-L\${libdir} -lsidecore_fortran\n")
endif()

configure_file(${CMAKE_CURRENT_LIST_DIR}/sidecore.pc.in ${PROJECT_BINARY_DIR}/sidecore.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/sidecore.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

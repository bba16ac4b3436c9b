# Installation and package export for tamm (included by the top CMakeLists.txt).
#
# Installs, under the prefix given to `cmake --install build --prefix PREFIX`:
#   lib/libtammrt.so*            target tammrt        (exported as tamm::rt)
#   lib/libtammrt.a              target tammrt_static (exported as tamm::rt_static)
#   include/tamm.h
#   lib/cmake/tamm/tammConfig.cmake, tammConfigVersion.cmake, tammTargets*.cmake
#   lib/pkgconfig/tamm.pc        (pkg-config --cflags --libs tamm)
#   bin/tammcc                   target tammcc (exported as tamm::tammcc) once it exists
#   lib/cmake/tamm/tammcc_launcher.sh  what tamm_add_executable / tamm_use_tammcc compile with
# ("lib" is CMAKE_INSTALL_LIBDIR from GNUInstallDirs.)

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TAMM_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/tamm")
set(TAMM_PKGCONFIG_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# --- runtime library ---------------------------------------------------------
set_target_properties(tammrt PROPERTIES EXPORT_NAME rt)
set_target_properties(tammrt_static PROPERTIES EXPORT_NAME rt_static)
install(TARGETS tammrt tammrt_static
  EXPORT tammTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/tamm.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Further public headers that generated code includes (include/tamm_*.h) go
# along with tamm.h as they appear.
file(GLOB TAMM_EXTRA_PUBLIC_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/tamm_*.h)
if(TAMM_EXTRA_PUBLIC_HEADERS)
  install(FILES ${TAMM_EXTRA_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()

# --- the compiler driver (tammcc/), when it is built --------------------------
# tammcc/CMakeLists.txt defines an executable target `tammcc`; it is installed
# to bin/ and exported as tamm::tammcc.  Nothing else is needed here.
if(TARGET tammcc)
  set_target_properties(tammcc PROPERTIES EXPORT_NAME tammcc)
  install(TARGETS tammcc EXPORT tammTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# --- dependencies the exported targets carry ---------------------------------
# The static library's link interface names its dependencies (Threads::Threads,
# m, and MPI::MPI_C / CUDA::* when the runtime is built with them), so the
# package config must find them again.
set(TAMM_CONFIG_DEPENDENCIES "find_dependency(Threads)\n")
set(_tamm_rt_links "")
foreach(_t tammrt tammrt_static)
  get_target_property(_l ${_t} LINK_LIBRARIES)
  if(_l)
    list(APPEND _tamm_rt_links ${_l})
  endif()
  get_target_property(_l ${_t} INTERFACE_LINK_LIBRARIES)
  if(_l)
    list(APPEND _tamm_rt_links ${_l})
  endif()
endforeach()
string(REPLACE ";" " " _tamm_rt_links_str "${_tamm_rt_links}")
if(_tamm_rt_links_str MATCHES "MPI::")
  string(APPEND TAMM_CONFIG_DEPENDENCIES "find_dependency(MPI COMPONENTS C)\n")
endif()
if(_tamm_rt_links_str MATCHES "CUDA::")
  string(APPEND TAMM_CONFIG_DEPENDENCIES "find_dependency(CUDAToolkit)\n")
endif()
set(TAMM_CONFIG_WITH_CUDA ${TAMM_WITH_CUDA})
set(TAMM_CONFIG_WITH_MPI ${TAMM_WITH_MPI})
# (Programs tammcc compiles with CUDA variants need libcudart and libstdc++ at
# link time; tammConfig.cmake finds the toolkit again for tamm_add_executable.)

# --- CMake package: find_package(tamm) -> tamm::rt ----------------------------
install(EXPORT tammTargets
  NAMESPACE tamm::
  FILE tammTargets.cmake
  DESTINATION ${TAMM_CMAKE_INSTALL_DIR})
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/tammConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tammConfig.cmake
  INSTALL_DESTINATION ${TAMM_CMAKE_INSTALL_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/tammConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/tammConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/tammConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/tammcc_launcher.sh
  DESTINATION ${TAMM_CMAKE_INSTALL_DIR})

# --- pkg-config: tamm.pc -------------------------------------------------------
# The prefix is the one given at install time (cmake --install --prefix P), not
# the configure-time CMAKE_INSTALL_PREFIX, so tamm.pc is written by the install
# script itself from a template configured here.
set(TAMM_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
set(TAMM_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
set(TAMM_PC_VERSION "${PROJECT_VERSION}")
# static links need what libtammrt.a uses: pthreads, libm, libdl (CUDA is
# loaded with dlopen), and MPI when built with it; and, when built with CUDA,
# what objects tammcc compiled with CUDA variants need: libcudart (found at run
# time through the rpath) and libstdc++.  The CUDA part is also the variable
# cuda_libs, for links against the shared library:
#   cc prog.o $(pkg-config --libs tamm) $(pkg-config --variable=cuda_libs tamm)
set(TAMM_PC_LIBS_PRIVATE "-lpthread -lm")
foreach(_l ${CMAKE_DL_LIBS})
  string(APPEND TAMM_PC_LIBS_PRIVATE " -l${_l}")
endforeach()
if(TAMM_WITH_MPI)
  foreach(_l ${MPI_C_LIBRARIES})
    string(APPEND TAMM_PC_LIBS_PRIVATE " ${_l}")
  endforeach()
endif()
set(TAMM_PC_CUDA_LIBS "")
if(TAMM_WITH_CUDA)
  set(TAMM_PC_CUDA_LIBS "-L${CUDAToolkit_LIBRARY_DIR} -Wl,-rpath,${CUDAToolkit_LIBRARY_DIR} -lcudart -lstdc++")
  string(APPEND TAMM_PC_LIBS_PRIVATE " ${TAMM_PC_CUDA_LIBS}")
endif()
set(TAMM_PC_PREFIX "@TAMM_PC_PREFIX@")   # kept for the install-time pass
configure_file(${CMAKE_CURRENT_LIST_DIR}/tamm.pc.in
  ${CMAKE_CURRENT_BINARY_DIR}/tamm.pc.template @ONLY)
install(CODE "
  set(TAMM_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${CMAKE_CURRENT_BINARY_DIR}/tamm.pc.template\"
                 \"${CMAKE_CURRENT_BINARY_DIR}/tamm.pc\" @ONLY)
")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tamm.pc
  DESTINATION ${TAMM_PKGCONFIG_INSTALL_DIR})

# cmake -DTAMM=prog -DPLAIN=prog_seq [-DSYMBOLS="re;..." -DNM=nm] -P compare.cmake
# The tammcc build must exit 0 and print exactly what the plain C build (the
# sequential elision) prints.  With SYMBOLS, the tammcc binary must define
# symbols matching them (its CUDA variants were compiled and linked).
execute_process(COMMAND ${PLAIN} OUTPUT_VARIABLE want ERROR_VARIABLE werr RESULT_VARIABLE wrc)
if(NOT wrc EQUAL 0)
  message(FATAL_ERROR "plain build failed (${wrc}):\n${want}\n${werr}")
endif()
execute_process(COMMAND ${TAMM} OUTPUT_VARIABLE got ERROR_VARIABLE gerr RESULT_VARIABLE grc)
if(NOT grc EQUAL 0)
  message(FATAL_ERROR "tammcc build failed (${grc}):\n${got}\n${gerr}")
endif()
if(NOT got STREQUAL want)
  message(FATAL_ERROR "outputs differ\n--- plain:\n${want}\n--- tammcc:\n${got}\n${gerr}")
endif()
if(SYMBOLS)
  execute_process(COMMAND ${NM} ${TAMM} OUTPUT_VARIABLE syms RESULT_VARIABLE nrc)
  foreach(re IN LISTS SYMBOLS)
    if(NOT syms MATCHES "${re}")
      message(FATAL_ERROR "${TAMM} defines no symbol matching ${re}")
    endif()
  endforeach()
endif()
message(STATUS "same output: ${got}")

# ac_smpi_binary(NAME SOURCE...): the library sources plus a program, built with SimGrid's
# smpicc into one static binary (as SMPI wants: -Bsymbolic, default privatization).
# Sets SMPICC/SMPIRUN; does nothing (and sets AC_SMPI_FOUND OFF) when SimGrid is missing.
find_program(SMPICC smpicc)
find_program(SMPIRUN smpirun)
if(SMPICC AND SMPIRUN)
  set(AC_SMPI_FOUND ON)
else()
  set(AC_SMPI_FOUND OFF)
endif()

# Arguments after NAME: sources; an argument starting with -I is an include directory.
function(ac_smpi_binary name)
  set(bin ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set(srcs)
  set(incs)
  foreach(a ${ARGN})
    if(a MATCHES "^-I")
      list(APPEND incs ${a})
    else()
      list(APPEND srcs ${a})
    endif()
  endforeach()
  add_custom_command(
    OUTPUT ${bin}
    COMMAND ${SMPICC} -std=gnu11 -O1 -g0 -DAC_SMPI -D_GNU_SOURCE
            -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/src -I${AC_GEN_DIR} ${incs}
            ${AC_SOURCES} ${srcs} -Wl,-Bsymbolic -ljansson -ldl -lm -o ${bin}
    DEPENDS ${AC_SOURCES} ${AC_DEFS} ${srcs}
    COMMENT "smpicc: building ${name}"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${bin})
endfunction()

# SMPI reports a deadlock on its log and still exits 0: every test defined so far in the
# calling directory fails on that report.
function(ac_smpi_fail_on_deadlock)
  get_property(tests DIRECTORY PROPERTY TESTS)
  if(tests)
    set_tests_properties(${tests} PROPERTIES FAIL_REGULAR_EXPRESSION "Deadlock detected")
  endif()
endfunction()

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

function(ac_smpi_binary name)
  set(bin ${CMAKE_CURRENT_BINARY_DIR}/${name})
  add_custom_command(
    OUTPUT ${bin}
    COMMAND ${SMPICC} -std=gnu11 -O1 -g0 -DAC_SMPI -D_GNU_SOURCE
            -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/src
            -I${PROJECT_SOURCE_DIR}/tools/common
            ${AC_SOURCES} ${ARGN} -Wl,-Bsymbolic -ljansson -ldl -lm -o ${bin}
    DEPENDS ${AC_SOURCES} ${AC_DEFS} ${ARGN}
    COMMENT "smpicc: building ${name}"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${bin})
endfunction()

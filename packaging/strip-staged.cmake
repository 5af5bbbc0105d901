# SPDX-License-Identifier: GPL-3.0-or-later
# CPACK_PRE_BUILD_SCRIPTS of packaging/CPack.cmake: runs in cpack after the staging install (already
# stripped by CPACK_STRIP_FILES) and before the .deb is made. Strips the programs (and the Python
# extension module) as Debian's dh_strip
# does: also the .comment and .note sections the compiler leaves (lintian:
# binary-has-unneeded-section).
if(NOT CPACK_TEMPORARY_DIRECTORY OR NOT IS_DIRECTORY "${CPACK_TEMPORARY_DIRECTORY}")
  message(FATAL_ERROR "strip-staged.cmake: no staging directory (CPACK_TEMPORARY_DIRECTORY)")
endif()
file(GLOB programs "${CPACK_TEMPORARY_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}/bin/*")
# The Python extension module too, when the build has it.
file(GLOB_RECURSE modules "${CPACK_TEMPORARY_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}/lib/python3/dist-packages/*.so")
if(NOT programs)
  message(FATAL_ERROR "strip-staged.cmake: no programs in ${CPACK_TEMPORARY_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}/bin")
endif()
foreach(program IN LISTS programs modules)
  execute_process(COMMAND "${CPACK_MECHSTUDIO_STRIP}" --remove-section=.comment --remove-section=.note
                          --strip-unneeded "${program}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "strip-staged.cmake: ${CPACK_MECHSTUDIO_STRIP} failed on ${program}")
  endif()
endforeach()

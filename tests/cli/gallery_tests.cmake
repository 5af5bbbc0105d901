# SPDX-License-Identifier: GPL-3.0-or-later
# CTest tests of the model gallery: every models/*.mech, models/*.trep and models/urdf/*.urdf gets
#   gallery.check.<name>     mechstudio-cli check FILE: exit 0, last line "0 error(s) ... compiles"
#                            (run_cli.cmake)
#   gallery.simulate.<name>  mechstudio-cli simulate FILE --duration 10 --quiet --csv metrics.csv:
#                            exit 0, nothing on stderr, and a complete CSV: one row per step from
#                            step 0 on, the last row at t >= 9.99 s and the one before it at t < 10 s
#                            (so ceil(10 s / dt) steps at the file's own dt), every step's constraint
#                            violation <= 1e-9 and no NaN/inf (run_gallery.cmake)
# <name> is the file's path below models/ with '/' replaced by '.' (four-bar.mech,
# scissor-lift.trep, urdf.two-link-arm.urdf). The files are listed when CMake configures; with
# CONFIGURE_DEPENDS a build after adding a model re-runs the listing. Included by
# tests/CMakeLists.txt when the mechstudio-cli target exists.

get_filename_component(MECHSTUDIO_GALLERY_DIR "${CMAKE_CURRENT_LIST_DIR}/../../models" ABSOLUTE)
file(GLOB MECHSTUDIO_GALLERY_FILES CONFIGURE_DEPENDS
     "${MECHSTUDIO_GALLERY_DIR}/*.mech" "${MECHSTUDIO_GALLERY_DIR}/*.trep" "${MECHSTUDIO_GALLERY_DIR}/urdf/*.urdf")
list(SORT MECHSTUDIO_GALLERY_FILES)
if(NOT MECHSTUDIO_GALLERY_FILES)
  message(WARNING "gallery_tests.cmake: no model files found in ${MECHSTUDIO_GALLERY_DIR}")
endif()

foreach(model IN LISTS MECHSTUDIO_GALLERY_FILES)
  file(RELATIVE_PATH rel "${MECHSTUDIO_GALLERY_DIR}" "${model}")
  string(REPLACE "/" "." name "${rel}")
  set(workdir "${CMAKE_CURRENT_BINARY_DIR}/gallery/${name}")

  add_test(NAME gallery.check.${name}
           COMMAND ${CMAKE_COMMAND} "-DEXE=$<TARGET_FILE:mechstudio-cli>" "-DARGS=check|${model}" -DEXPECT_EXIT=0
                   "-DWORKDIR=${workdir}/check" "-DSTDERR_LAST_LINE_REGEX=: 0 error\\(s\\), [0-9]+ warning\\(s\\); compiles$"
                   -P ${CMAKE_CURRENT_LIST_DIR}/run_cli.cmake)
  add_test(NAME gallery.simulate.${name}
           COMMAND ${CMAKE_COMMAND} "-DEXE=$<TARGET_FILE:mechstudio-cli>" "-DMODEL=${model}" -DDURATION=10
                   -DMIN_LAST_TIME=9.99 -DMAX_VIOLATION=1e-9 "-DWORKDIR=${workdir}/simulate"
                   -P ${CMAKE_CURRENT_LIST_DIR}/run_gallery.cmake)
  set_tests_properties(gallery.check.${name} gallery.simulate.${name} PROPERTIES LABELS "cli;gallery" TIMEOUT 120)
endforeach()

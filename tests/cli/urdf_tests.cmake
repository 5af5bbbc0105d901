# SPDX-License-Identifier: GPL-3.0-or-later
# CLI tests of URDF packages (--package-path, ROS_PACKAGE_PATH) and URDF export (convert -o OUT.urdf).
# Included by tests/CMakeLists.txt after cli_tests.cmake, whose mechstudio_cli_test and
# mechstudio_cli_bad it uses. Test data: tests/data/urdf/packages (see tst_urdf_packages.cpp).

set(URDF_PACKAGES ${CMAKE_SOURCE_DIR}/tests/data/urdf/packages)
set(URDF_ARM ${URDF_PACKAGES}/mech_pkg/urdf/arm.urdf)

# ---- package:// meshes ---------------------------------------------------------------------------
# check --package-path DIR: every mesh resolves (no warning) and the model compiles.
mechstudio_cli_test(urdf.check_package_path EXIT 0 ARGS check ${URDF_ARM} --package-path ${URDF_PACKAGES}
  CHECKS STDERR_ONE_LINE=ON "STDERR_LAST_LINE_REGEX=arm.urdf: 0 error\\(s\\), 0 warning\\(s\\); compiles$")
# simulate --package-path=DIR: no warning before the run's summary line.
mechstudio_cli_test(urdf.simulate_package_path EXIT 0
  ARGS simulate ${URDF_ARM} --package-path=${URDF_PACKAGES} --steps 20 --csv out.csv
  CHECKS FILE=out.csv FILE_LINES=22 STDERR_ONE_LINE=ON "STDERR_REGEX=^mechstudio-cli: ")
# signals and convert take it too (convert to .mech: the meshes as absolute paths, no warning).
mechstudio_cli_test(urdf.signals_package_path EXIT 0 ARGS signals ${URDF_ARM} --package-path ${URDF_PACKAGES}
  CHECKS STDERR_EMPTY=ON "STDOUT_REGEX=shoulder\\.angle \\[rad\\]")
mechstudio_cli_test(urdf.convert_package_path EXIT 0 ARGS convert ${URDF_ARM} --package-path ${URDF_PACKAGES} -o arm.mech
  CHECKS FILE=arm.mech STDERR_EMPTY=ON)
# The roots of ROS_PACKAGE_PATH (here the packages lie 2 and 4 levels below tests/data/urdf).
mechstudio_cli_test(urdf.check_ros_package_path EXIT 0 ARGS check ${URDF_ARM}
  CHECKS STDERR_ONE_LINE=ON "STDERR_LAST_LINE_REGEX=0 error\\(s\\), 0 warning\\(s\\); compiles$")
set_tests_properties(cli.urdf.check_ros_package_path PROPERTIES
  ENVIRONMENT "ROS_PACKAGE_PATH=/nonexistent-mechstudio-root:${CMAKE_SOURCE_DIR}/tests/data/urdf")
# Not found: a warning per mesh at its <mesh> line naming the package, the paths tried and the
# ways to add a root; the model still compiles (without those collision meshes).
mechstudio_cli_test(urdf.check_package_not_found EXIT 0 ARGS check ${URDF_ARM} --package-path ${CMAKE_SOURCE_DIR}/models
  CHECKS "STDERR_REGEX=arm.urdf:25: warning: link 'arm', collision 1: mesh 'package://mech_pkg/meshes/link.stl': package 'mech_pkg' not found. tried [^ ]*/models/mech_pkg/meshes/link.stl .and searched [^ ]*/models for a directory 'mech_pkg' holding a package.xml, up to 4 levels down.. give the directory that holds the package 'mech_pkg' with --package-path DIR, the ROS_PACKAGE_PATH environment variable or the Settings field 'Package paths' .the URI is kept as written. the mesh does not collide."
         "STDERR_LAST_LINE_REGEX=0 error\\(s\\), 4 warning\\(s\\); compiles$")
set_tests_properties(cli.urdf.check_package_not_found PROPERTIES ENVIRONMENT "ROS_PACKAGE_PATH=")
mechstudio_cli_bad(package_path_not_a_directory REASON "--package-path '[^']*none' is not a directory"
  ARGS check ${URDF_ARM} --package-path ${URDF_PACKAGES}/none)
mechstudio_cli_bad(package_path_without_value REASON "option --package-path needs a directory" ARGS check ${URDF_ARM} --package-path)
mechstudio_cli_bad(simulate_package_path_not_a_directory REASON "--package-path '[^']*arm.urdf' is not a directory"
  ARGS simulate ${URDF_ARM} --package-path ${URDF_ARM} --steps 1)

# ---- a ground under a floating base, self-collision -------------------------------------------------
set(URDF_BIPED ${CMAKE_SOURCE_DIR}/tests/data/urdf/biped_floating.urdf)
# By default the floating biped gets a ground at its feet (a note); --no-ground leaves it out.
mechstudio_cli_test(urdf.ground_under_floating_base EXIT 0 ARGS check ${URDF_BIPED}
  CHECKS "STDERR_REGEX=biped_floating.urdf: note: the robot has a floating base: a ground is added at z = -0.95 m")
mechstudio_cli_test(urdf.no_ground EXIT 0 ARGS convert ${URDF_BIPED} --no-ground --self-collision on -o biped.mech
  CHECKS FILE=biped.mech "FILE_NOT_REGEX=\\(ground|no-self")
mechstudio_cli_test(urdf.convert_keeps_ground_and_no_self EXIT 0 ARGS convert ${URDF_BIPED} -o biped.mech
  CHECKS FILE=biped.mech "FILE_REGEX=\\(collisions no-self\\)")
mechstudio_cli_bad(self_collision_bad_value REASON "--self-collision takes 'on' or 'off', got 'maybe'"
  ARGS simulate ${URDF_BIPED} --self-collision maybe --steps 1)
mechstudio_cli_bad(no_ground_with_value REASON "option --no-ground takes no value" ARGS check ${URDF_BIPED} --no-ground=1)

# ---- convert -o OUT.urdf -------------------------------------------------------------------------
# The gallery double pendulum: written, with a note that its first joint starts at pi/2; the file
# then checks without a warning (the engine test compares the round trip's dynamics).
mechstudio_cli_test(urdf.convert_to_urdf EXIT 0 ARGS convert ${CMAKE_SOURCE_DIR}/models/double-pendulum.mech -o dp.urdf
  CHECKS FILE=dp.urdf
         "STDERR_REGEX=^dp.urdf: note: URDF has no initial configuration: joint 'joint1' .1.5707963267948966. starts at non-zero coordinates")
set_tests_properties(cli.urdf.convert_to_urdf PROPERTIES FIXTURES_SETUP urdf_export)
mechstudio_cli_test(urdf.check_converted EXIT 0 ARGS check ${MECHSTUDIO_CLI_WORKDIR}/urdf.convert_to_urdf/dp.urdf
  CHECKS STDERR_ONE_LINE=ON "STDERR_LAST_LINE_REGEX=dp.urdf: 0 error\\(s\\), 0 warning\\(s\\); compiles$")
set_tests_properties(cli.urdf.check_converted PROPERTIES FIXTURES_REQUIRED urdf_export)
# A loop (models/four-bar.mech): exit 1, the loop joint named, nothing written.
mechstudio_cli_test(urdf.convert_loop_refused EXIT 1 ARGS convert ${CMAKE_SOURCE_DIR}/models/four-bar.mech -o fb.urdf
  CHECKS STDERR_ONE_LINE=ON FILE_ABSENT=fb.urdf
         "STDERR_REGEX=^mechstudio-cli: error: the model has kinematic loops, closed by joint 'coupler-rocker': URDF describes trees only")
# Spherical joints: exit 1, named, nothing written.
mechstudio_cli_test(urdf.convert_spherical_refused EXIT 1 ARGS convert ${CMAKE_SOURCE_DIR}/models/chain-spherical.mech -o cs.urdf
  CHECKS STDERR_ONE_LINE=ON FILE_ABSENT=cs.urdf "STDERR_REGEX=^mechstudio-cli: error: joints 'joint1', .* \\(spherical\\): URDF has no such joint")
# MJCF through the existing writer (.xml).
mechstudio_cli_test(urdf.convert_to_mjcf EXIT 0 ARGS convert ${CMAKE_SOURCE_DIR}/models/double-pendulum.mech -o dp.xml
  CHECKS FILE=dp.xml STDERR_EMPTY=ON)
# A tree nested deeper than tinyxml2 reads: 100 links as two files joined by <include>, which our
# reader (and MuJoCo's) reads back as one model.
mechstudio_cli_test(mjcf.convert_deep_tree EXIT 0 ARGS convert scene:chain --set n=100 -o deep.xml
  CHECKS FILE=deep.xml "FILE_REGEX=<include file=\"deep-part1.xml\"/>"
  "STDERR_REGEX=deep.xml: note: the bodies nest 100 deep: written as 2 files joined by <include> \\(deep-part1.xml, ...\\)")
set_tests_properties(cli.mjcf.convert_deep_tree PROPERTIES FIXTURES_SETUP mjcf_deep)
mechstudio_cli_test(mjcf.check_deep_tree EXIT 0 ARGS signals ${MECHSTUDIO_CLI_WORKDIR}/mjcf.convert_deep_tree/deep.xml
  CHECKS "STDOUT_REGEX=link100\\.x \\[m\\]")
set_tests_properties(cli.mjcf.check_deep_tree PROPERTIES FIXTURES_REQUIRED mjcf_deep)

# SPDX-License-Identifier: GPL-3.0-or-later
# CLI tests of the MuJoCo comparison copy (`--integrator mujoco`, engine/integrator/mujoco_copy.h).
# Included by tests/CMakeLists.txt after cli_tests.cmake (mechstudio_cli_test, mechstudio_cli_bad).

# Option errors, whether or not this build has MuJoCo: a bad --mujoco-integrator value, and one
# given without --integrator mujoco.
mechstudio_cli_bad(mujoco_integrator_unknown REASON "unknown MuJoCo integrator 'leapfrog' \\(choose euler, rk4 or implicit\\)"
  ARGS simulate scene:box-drop --steps 10 --integrator mujoco --mujoco-integrator leapfrog)
mechstudio_cli_bad(mujoco_integrator_without_mujoco REASON "--mujoco-integrator .*needs --integrator mujoco"
  ARGS simulate scene:box-drop --steps 10 --mujoco-integrator rk4)

if(NOT TARGET mechstudio_mujoco)
  # Without MuJoCo the integrator is refused with the reason.
  mechstudio_cli_bad(mujoco_unavailable REASON "'mujoco' is not available: this build has no MuJoCo"
    ARGS simulate scene:box-drop --steps 10 --integrator mujoco)
  return()
endif()

# The box drop in MuJoCo (1 s): every step runs and the summary names the copy and its integrator.
mechstudio_cli_test(mujoco_box_drop EXIT 0 ARGS simulate scene:box-drop --integrator mujoco --duration 1
  CHECKS "STDERR_REGEX=scene:box-drop, mujoco \\(euler\\), dt = 0.01 s: 100 of 100 steps.*MuJoCo solver iterations")
# MuJoCo's RK4 on the three-link loop writes every row; the implicit integrator on the four-bar file.
mechstudio_cli_test(mujoco_rk4_loop EXIT 0
  ARGS simulate scene:three-link-loop --integrator mujoco --mujoco-integrator rk4 --steps 10 --csv - --quiet
  CHECKS "STDOUT_FIRST_LINE=${METRICS_HEADER}" STDOUT_LINES=12 STDERR_EMPTY=ON)
mechstudio_cli_test(mujoco_implicit_four_bar EXIT 0
  ARGS simulate ${CMAKE_SOURCE_DIR}/models/four-bar.mech --integrator mujoco --mujoco-integrator implicit --duration 1
  CHECKS "STDERR_REGEX=mujoco \\(implicit\\), dt = .*steps")
# What MuJoCo cannot copy: refused with the reason (exit 1).
mechstudio_cli_bad(mujoco_planar_axis_loop REASON "planar-axis.*MuJoCo has no such joint"
  ARGS simulate ${CMAKE_SOURCE_DIR}/models/exoskeleton-arm.mech --steps 10 --integrator mujoco)
mechstudio_cli_bad(mujoco_soft_contacts REASON "soft contacts .*not for mujoco"
  ARGS simulate scene:box-drop --steps 10 --integrator mujoco --contacts soft)

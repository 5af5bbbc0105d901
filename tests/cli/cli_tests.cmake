# SPDX-License-Identifier: GPL-3.0-or-later
# CTest tests of mechstudio-cli: each runs the CLI once through run_cli.cmake and checks the exit
# status and the output. Included by tests/CMakeLists.txt when the mechstudio-cli target exists.

set(MECHSTUDIO_CLI_WORKDIR "${CMAKE_CURRENT_BINARY_DIR}/cli")

# mechstudio_cli_test(<name> EXIT <code> ARGS <arg>... [CHECKS <KEY=value>...])
# CHECKS are passed to run_cli.cmake as -D<KEY=value> (see there).
function(mechstudio_cli_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "" "EXIT" "ARGS;CHECKS")
  list(JOIN T_ARGS "|" joined)
  set(defs "")
  foreach(c IN LISTS T_CHECKS)
    list(APPEND defs "-D${c}")
  endforeach()
  add_test(NAME cli.${name}
           COMMAND ${CMAKE_COMMAND} "-DEXE=$<TARGET_FILE:mechstudio-cli>" "-DARGS=${joined}" "-DEXPECT_EXIT=${T_EXIT}"
                   "-DWORKDIR=${MECHSTUDIO_CLI_WORKDIR}/${name}" ${defs} -P ${CMAKE_CURRENT_LIST_DIR}/run_cli.cmake)
  set_tests_properties(cli.${name} PROPERTIES LABELS cli TIMEOUT 300)
endfunction()

# Bad input: exit 1 and exactly one line "mechstudio-cli: error: <reason>".
function(mechstudio_cli_bad name)
  cmake_parse_arguments(PARSE_ARGV 1 T "" "REASON" "ARGS")
  set(re "^mechstudio-cli: error: ")
  if(T_REASON)
    string(APPEND re ".*${T_REASON}")
  endif()
  mechstudio_cli_test(bad.${name} EXIT 1 ARGS ${T_ARGS} CHECKS STDERR_ONE_LINE=ON "STDERR_REGEX=${re}" STDOUT_LINES=0)
endfunction()

set(METRICS_HEADER "step,time,kinetic,potential,energy,constraint_violation,iterations,residual,step_us,penetration,contacts,limit_violation,limits,stalled,substeps,singular,auto_pairs,islands,sleeping")
set(POSES_HEADER "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz")

# ---- bad input ---------------------------------------------------------------------------------
mechstudio_cli_bad(no_command REASON "no command")
mechstudio_cli_bad(unknown_command REASON "unknown command" ARGS frobnicate)
mechstudio_cli_bad(unknown_scene REASON "unknown scene 'nope'" ARGS simulate scene:nope --steps 10)
mechstudio_cli_bad(empty_scene_name REASON "scene name" ARGS simulate scene: --steps 10)
mechstudio_cli_bad(no_model REASON "needs a model" ARGS simulate --steps 10)
mechstudio_cli_bad(missing_model_file REASON "cannot open model file" ARGS simulate ${CMAKE_SOURCE_DIR}/models/none.mech --steps 10)
mechstudio_cli_bad(unknown_model_type REASON "unknown model file type" ARGS simulate ${CMAKE_SOURCE_DIR}/README.md --steps 10)
mechstudio_cli_bad(set_on_trep REASON "has no parameters" ARGS simulate ${CMAKE_SOURCE_DIR}/models/trep-closed-chain.trep --set n=2 --steps 10)
mechstudio_cli_bad(convert_to_txt REASON "must be a .mech file" ARGS convert ${CMAKE_SOURCE_DIR}/models/trep-closed-chain.trep -o out.txt)
mechstudio_cli_bad(two_models REASON "unexpected argument" ARGS simulate scene:pendulum scene:chain --steps 10)
mechstudio_cli_bad(set_without_equals REASON "key=value" ARGS simulate scene:pendulum --set angle --steps 10)
mechstudio_cli_bad(set_empty_key REASON "empty key" ARGS simulate scene:pendulum --set =1 --steps 10)
mechstudio_cli_bad(set_duplicate REASON "more than once" ARGS simulate scene:pendulum --set angle=1 --set angle=2 --steps 10)
mechstudio_cli_bad(set_unknown_parameter REASON "no parameter 'length'" ARGS simulate scene:pendulum --set length=2 --steps 10)
mechstudio_cli_bad(set_chain_n_abc REASON "not a number" ARGS simulate scene:chain --set n=abc --steps 10)
mechstudio_cli_bad(set_chain_n_out_of_range REASON "out of range" ARGS simulate scene:chain --set n=0 --steps 10)
mechstudio_cli_bad(negative_dt REASON "--dt must be positive" ARGS simulate scene:pendulum --dt -0.01 --steps 10)
mechstudio_cli_bad(zero_dt REASON "--dt must be positive" ARGS simulate scene:pendulum --dt 0 --steps 10)
mechstudio_cli_bad(non_numeric_dt REASON "--dt expects a number" ARGS simulate scene:pendulum --dt 0.01s --steps 10)
mechstudio_cli_bad(nan_duration REASON "--duration expects a number" ARGS simulate scene:pendulum --duration nan)
mechstudio_cli_bad(negative_duration REASON "--duration must be positive" ARGS simulate scene:pendulum --duration -1)
mechstudio_cli_bad(fractional_steps REASON "--steps expects a whole number" ARGS simulate scene:pendulum --steps 2.5)
mechstudio_cli_bad(zero_steps REASON "--steps must be positive" ARGS simulate scene:pendulum --steps 0)
mechstudio_cli_bad(negative_tol REASON "--tol must be positive" ARGS simulate scene:pendulum --steps 10 --tol -1e-9)
mechstudio_cli_bad(zero_comp_tol REASON "--comp-tol must be positive" ARGS simulate scene:box-drop --steps 10 --comp-tol 0)
mechstudio_cli_bad(negative_sleep REASON "--sleep must be 0 or more" ARGS simulate scene:box-drop --steps 10 --sleep -1)
mechstudio_cli_bad(negative_max_iter REASON "--max-iter must be positive" ARGS simulate scene:pendulum --steps 10 --max-iter -1)
mechstudio_cli_bad(missing_value_at_end REASON "--dt needs a value" ARGS simulate scene:pendulum --steps 10 --dt)
mechstudio_cli_bad(missing_value_before_option REASON "--csv needs a value" ARGS simulate scene:pendulum --csv --steps 10)
mechstudio_cli_bad(unknown_option REASON "unknown option '--frobnicate'" ARGS simulate scene:pendulum --steps 10 --frobnicate)
mechstudio_cli_bad(duplicate_option REASON "more than once" ARGS simulate scene:pendulum --steps 10 --steps 20)
mechstudio_cli_bad(duration_and_steps REASON "not both" ARGS simulate scene:pendulum --duration 1 --steps 10)
mechstudio_cli_bad(neither_duration_nor_steps REASON "--duration or --steps" ARGS simulate scene:pendulum)
mechstudio_cli_bad(both_outputs_stdout REASON "standard output" ARGS simulate scene:pendulum --steps 10 --csv - --poses -)
mechstudio_cli_bad(unwritable_csv REASON "cannot write" ARGS simulate scene:pendulum --steps 10 --csv no-such-dir/out.csv)
mechstudio_cli_bad(scenes_extra_argument REASON "takes no arguments" ARGS scenes pendulum)
# Time steppers (--integrator, --baumgarte): unknown names and combinations that make no sense.
mechstudio_cli_bad(integrator_unknown REASON "unknown integrator 'bogus'" ARGS simulate scene:pendulum --steps 10 --integrator bogus)
mechstudio_cli_bad(integrator_vi_baumgarte REASON "variational integrator .*takes no Baumgarte gains"
  ARGS simulate scene:three-link-loop --steps 10 --integrator vi --baumgarte 1,1)
mechstudio_cli_bad(integrator_rk4_rigid_contacts REASON "has contacts and rk4 has no rigid contact model"
  ARGS simulate scene:box-drop --steps 10 --integrator rk4)
mechstudio_cli_bad(baumgarte_negative REASON "--baumgarte expects ALPHA,BETA" ARGS simulate scene:pendulum --steps 10 --integrator rk4 --baumgarte -1,2)
mechstudio_cli_bad(baumgarte_one_value REASON "--baumgarte expects ALPHA,BETA" ARGS simulate scene:pendulum --steps 10 --integrator rk4 --baumgarte 5)
# Generalized coordinates: loops and joint types without coordinates for riqn, contacts and limits
# for both are refused with the reason; a valid run prints its iterations.
mechstudio_cli_bad(riqn_loop REASON "closes a loop; riqn integrates trees only"
  ARGS simulate scene:three-link-loop --steps 10 --integrator riqn)
mechstudio_cli_bad(riqn_planar_axis REASON "is planar-axis; riqn writes revolute, prismatic, spherical, floating and fixed"
  ARGS simulate ${CMAKE_SOURCE_DIR}/models/exoskeleton-arm.mech --steps 10 --integrator riqn)
mechstudio_cli_bad(midpoint_gc_contacts REASON "the model has contacts; midpoint-gc"
  ARGS simulate scene:box-drop --steps 10 --integrator midpoint-gc)
mechstudio_cli_bad(riqn_limits REASON "the model has joint limits; riqn"
  ARGS simulate ${CMAKE_SOURCE_DIR}/models/limited-pendulum.mech --steps 10 --integrator riqn)
mechstudio_cli_test(midpoint_gc_loop EXIT 0 ARGS simulate scene:three-link-loop --duration 1 --integrator midpoint-gc
  CHECKS "STDERR_REGEX=midpoint-gc, dt = 0.01 s: 100 of 100 steps.*Newton iterations/step")
mechstudio_cli_test(riqn_chain EXIT 0 ARGS simulate scene:chain --set n=20 --duration 1 --integrator riqn
  CHECKS "STDERR_REGEX=riqn, dt = 0.01 s: 100 of 100 steps.*RIQN iterations/step")
# Soft contacts (--contacts, --contact-stiffness, --contact-damping).
mechstudio_cli_bad(exponential_rigid REASON "exponential integrator integrates soft contacts"
  ARGS simulate scene:box-drop --steps 10 --integrator exponential --contacts rigid)
mechstudio_cli_bad(exponential_default_contacts REASON "exponential integrator integrates soft contacts"
  ARGS simulate scene:box-drop --steps 10 --integrator exponential)
mechstudio_cli_bad(soft_with_vi REASON "variational integrator treats contacts as rigid"
  ARGS simulate scene:box-drop --steps 10 --integrator vi --contacts soft)
mechstudio_cli_bad(stiffness_without_soft REASON "--contact-stiffness .*needs --contacts soft"
  ARGS simulate scene:box-drop --steps 10 --integrator euler --contact-stiffness 1e4)
mechstudio_cli_bad(damping_without_soft REASON "--contact-damping .*needs --contacts soft"
  ARGS simulate scene:box-drop --steps 10 --contact-damping 100)
mechstudio_cli_bad(contacts_unknown REASON "unknown contact model 'squishy'"
  ARGS simulate scene:box-drop --steps 10 --integrator euler --contacts squishy)
mechstudio_cli_bad(stiffness_zero REASON "--contact-stiffness expects a positive number"
  ARGS simulate scene:box-drop --steps 10 --integrator euler --contacts soft --contact-stiffness 0)

# ---- information -------------------------------------------------------------------------------
mechstudio_cli_test(help EXIT 0 ARGS --help CHECKS "STDOUT_REGEX=Usage:.*simulate \\(scene:NAME" STDERR_EMPTY=ON)
mechstudio_cli_test(version EXIT 0 ARGS --version CHECKS "STDOUT_REGEX=^mechstudio-cli [0-9]+\\.[0-9]+" STDERR_EMPTY=ON)
mechstudio_cli_test(scenes EXIT 0 ARGS scenes
  CHECKS "STDOUT_REGEX=pendulum.*double-pendulum.*chain.*n = 10.*joint = revolute.*three-link-loop.*damped-pendulum.*four-link-segments.*double-four-bar.*free-body"
         STDERR_EMPTY=ON)

# ---- runs --------------------------------------------------------------------------------------
# Header and one row for the initial state plus one per step.
mechstudio_cli_test(pendulum_csv_stdout EXIT 0 ARGS simulate scene:pendulum --steps 10 --csv - --quiet
  CHECKS "STDOUT_FIRST_LINE=${METRICS_HEADER}" STDOUT_LINES=12 STDERR_EMPTY=ON)
mechstudio_cli_test(pendulum_csv_file EXIT 0 ARGS simulate scene:pendulum --steps 10 --csv pendulum.csv
  CHECKS FILE=pendulum.csv "FILE_FIRST_LINE=${METRICS_HEADER}" FILE_LINES=12 STDOUT_LINES=0
         "STDERR_REGEX=10 of 10 steps.*us/step.*iterations.*constraint violation.*max.E-E0.")
mechstudio_cli_test(double_pendulum_poses EXIT 0 ARGS simulate scene:double-pendulum --steps 10 --poses - --quiet
  CHECKS "STDOUT_FIRST_LINE=${POSES_HEADER}" STDOUT_LINES=23 "STDOUT_REGEX=0,0,link1,.*10,0\\.[0-9]+,link2,")
mechstudio_cli_test(chain_set_options EXIT 0
  ARGS simulate scene:chain --set n=3 --set joint=spherical --dt 0.005 --steps 4 --tol 1e-9 --max-iter 50 --csv - --quiet
  CHECKS "STDOUT_FIRST_LINE=${METRICS_HEADER}" STDOUT_LINES=6)
# --duration: 0.1 s at the default 0.01 s is 10 steps; the damped pendulum keeps its own dt of 0.1 s.
# A looser complementarity tolerance takes fewer interior-point iterations on the box drop: accepted.
mechstudio_cli_test(box_drop_comp_tol EXIT 0 ARGS simulate scene:box-drop --steps 5 --comp-tol 1e-6 --csv - --quiet
  CHECKS "STDOUT_FIRST_LINE=${METRICS_HEADER}" STDOUT_LINES=7)
# --sleep: the box drop rests from about 0.6 s; with 0.2 s of rest it sleeps (last column 1) by 1 s.
mechstudio_cli_test(box_drop_sleep EXIT 0 ARGS simulate scene:box-drop --duration 1 --sleep 0.2 --csv - --quiet
  CHECKS "STDOUT_REGEX=\n100,1,[^\n]*,1\n")
mechstudio_cli_test(duration_steps EXIT 0 ARGS simulate scene:pendulum --duration 0.1 --csv - --quiet CHECKS STDOUT_LINES=12)
mechstudio_cli_test(scene_dt_kept EXIT 0 ARGS simulate scene:damped-pendulum --duration 1 --csv - --quiet CHECKS STDOUT_LINES=12)
# Baseline integrators: RK4 on the three-link loop writes every row; the summary names the stepper.
mechstudio_cli_test(integrator_rk4_loop EXIT 0 ARGS simulate scene:three-link-loop --integrator rk4 --steps 10 --csv - --quiet
  CHECKS "STDOUT_FIRST_LINE=${METRICS_HEADER}" STDOUT_LINES=12 STDERR_EMPTY=ON)
# Soft contacts: the exponential integrator drops the box (1 s); the summary names the model.
mechstudio_cli_test(exponential_soft_box_drop EXIT 0
  ARGS simulate scene:box-drop --integrator exponential --contacts soft --contact-stiffness 1e5 --contact-damping 300
       --duration 1 --csv - --quiet
  CHECKS "STDOUT_FIRST_LINE=${METRICS_HEADER}" STDOUT_LINES=102 STDERR_EMPTY=ON)
mechstudio_cli_test(euler_soft_box_drop EXIT 0
  ARGS simulate scene:box-drop --integrator euler --contacts soft --dt 0.001 --duration 0.5
  CHECKS "STDERR_REGEX=euler, soft contacts K=100000 B=300, dt = 0.001 s: 500 of 500 steps")
mechstudio_cli_test(integrator_heun_baumgarte EXIT 0
  ARGS simulate scene:double-pendulum --integrator heun --baumgarte 5,5 --duration 0.5
  CHECKS "STDERR_REGEX=heun, Baumgarte alpha=5 beta=5, dt = 0.01 s: 50 of 50 steps.*2.00 KKT solves/step")

# ---- solver failure ----------------------------------------------------------------------------
# dt = 100 s makes the pendulum need |w| >= 2/dt in its first step: exit 2, the initial row is on disk.
mechstudio_cli_test(solver_failure EXIT 2 ARGS simulate scene:pendulum --dt 100 --steps 5 --csv failure.csv
  CHECKS FILE=failure.csv "FILE_FIRST_LINE=${METRICS_HEADER}" FILE_LINES=2
         "STDERR_LAST_LINE_REGEX=^mechstudio-cli: solver failure: step 1")

# ---- model files -------------------------------------------------------------------------------
# Each reader through the CLI: simulate writes the CSV, check reports and exits 0, convert writes .mech.
mechstudio_cli_test(file.simulate_trep EXIT 0
  ARGS simulate ${CMAKE_SOURCE_DIR}/models/trep-closed-chain.trep --steps 20 --csv out.csv --quiet
  CHECKS FILE=out.csv "FILE_FIRST_LINE=${METRICS_HEADER}" FILE_LINES=22)
mechstudio_cli_test(file.simulate_urdf EXIT 0
  ARGS simulate ${CMAKE_SOURCE_DIR}/models/urdf/fourbar-loop.urdf --steps 20 --csv out.csv --quiet
  CHECKS FILE=out.csv "FILE_FIRST_LINE=${METRICS_HEADER}" FILE_LINES=22)
mechstudio_cli_test(file.check_trep EXIT 0 ARGS check ${CMAKE_SOURCE_DIR}/models/trep-closed-chain.trep
  CHECKS "STDERR_LAST_LINE_REGEX=0 error\\(s\\).*compiles")
mechstudio_cli_test(file.check_bad_urdf EXIT 1 ARGS check ${CMAKE_SOURCE_DIR}/tests/data/urdf/bad/not_xml.urdf
  CHECKS "STDERR_REGEX=not_xml.urdf:[0-9]+: error")
mechstudio_cli_test(file.convert_urdf EXIT 0 ARGS convert ${CMAKE_SOURCE_DIR}/models/urdf/two-link-arm.urdf -o arm.mech
  CHECKS FILE=arm.mech STDERR_EMPTY=ON)

# ---- signals (issue 15) --------------------------------------------------------------------------
# `signals MODEL` lists one "name [unit]" per line; `simulate --signals FILE --signal GLOB` writes
# step, time and the matching signals, one row per step, with units in the header.
mechstudio_cli_test(signals_list EXIT 0 ARGS signals ${CMAKE_SOURCE_DIR}/models/four-bar.mech
  CHECKS "STDOUT_FIRST_LINE=weld.force.x [N]" STDOUT_LINES=144 "STDOUT_REGEX=crank-shaft\\.angle \\[rad\\]\n.*crank\\.yaw \\[rad\\].*system\\.energy \\[J\\]" STDERR_EMPTY=ON)
mechstudio_cli_test(signals_list_degrees EXIT 0 ARGS signals scene:pendulum --degrees
  CHECKS "STDOUT_REGEX=\\.angle_rate \\[deg/s\\]" STDERR_EMPTY=ON)
mechstudio_cli_test(signals_four_bar_crank EXIT 0
  ARGS simulate ${CMAKE_SOURCE_DIR}/models/four-bar.mech --steps 20 --signals out.csv --signal crank.* --quiet
  CHECKS FILE=out.csv "FILE_FIRST_LINE=step,time,crank.x [m],crank.y [m],crank.z [m],crank.vx [m/s],crank.vy [m/s],crank.vz [m/s],crank.roll [rad],crank.pitch [rad],crank.yaw [rad],crank.wx [rad/s],crank.wy [rad/s],crank.wz [rad/s],crank.wx_local [rad/s],crank.wy_local [rad/s],crank.wz_local [rad/s]"
         FILE_LINES=22 STDOUT_LINES=0 STDERR_EMPTY=ON)
mechstudio_cli_test(signals_glob_union_degrees EXIT 0
  ARGS simulate ${CMAKE_SOURCE_DIR}/models/four-bar.mech --steps 5 --signals - --signal crank-shaft.angle* --signal system.energy --degrees --quiet
  CHECKS "STDOUT_FIRST_LINE=step,time,crank-shaft.angle [deg],crank-shaft.angle_rate [deg/s],system.energy [J]" STDOUT_LINES=7)
mechstudio_cli_test(signals_with_csv EXIT 0
  ARGS simulate scene:pendulum --steps 5 --csv - --signals pendulum-signals.csv --quiet
  CHECKS "STDOUT_FIRST_LINE=${METRICS_HEADER}" STDOUT_LINES=7 FILE=pendulum-signals.csv FILE_LINES=7)
mechstudio_cli_bad(signals_unknown REASON "no signal matches 'crank-shaft.angel' \\(did you mean 'crank-shaft.angle'\\?\\)"
  ARGS simulate ${CMAKE_SOURCE_DIR}/models/four-bar.mech --steps 5 --signals out.csv --signal crank-shaft.angel)
mechstudio_cli_bad(signal_without_signals REASON "--signal chooses columns of --signals"
  ARGS simulate scene:pendulum --steps 5 --signal system.energy)
mechstudio_cli_bad(degrees_without_signals REASON "--degrees sets the angle unit of --signals"
  ARGS simulate scene:pendulum --steps 5 --degrees)
mechstudio_cli_bad(signals_and_poses_stdout REASON "--poses and --signals cannot both write to standard output"
  ARGS simulate scene:pendulum --steps 5 --poses - --signals -)
mechstudio_cli_bad(signals_same_file_as_csv REASON "--csv and --signals name the same file"
  ARGS simulate scene:pendulum --steps 5 --csv a.csv --signals ./a.csv)
mechstudio_cli_bad(signals_no_model REASON "signals needs a model" ARGS signals)
mechstudio_cli_bad(signals_unknown_option REASON "unknown option '--frob' for signals" ARGS signals scene:pendulum --frob)

# ---- keyframes (issue 15) ------------------------------------------------------------------------
# `simulate --keyframe NAME` starts from the model's (keyframe NAME ...): the initial rows of --poses
# are the keyframe's values exactly (angular velocity in the world frame, as written).
set(KEYFRAMES_MODEL ${CMAKE_SOURCE_DIR}/tests/data/mech/keyframes.mech)
mechstudio_cli_test(keyframe_swing EXIT 0
  ARGS simulate ${KEYFRAMES_MODEL} --keyframe swing --steps 5 --poses - --quiet
  CHECKS "STDOUT_FIRST_LINE=${POSES_HEADER}" STDOUT_LINES=13
         "STDOUT_REGEX=\n0,0,link1,0,0,-1,1,0,0,0,0,1,0,1,0,0\n0,0,link2,0,0,-2,1,0,0,0,0,2,0,1,0,0\n1,0.01,link1," STDERR_EMPTY=ON)
# Hanging at rest is an equilibrium: the potential energy starts at -3 m g and stays there (1e-8).
mechstudio_cli_test(keyframe_down_rests EXIT 0
  ARGS simulate ${KEYFRAMES_MODEL} --keyframe=down --steps 3 --csv - --quiet
  CHECKS "STDOUT_FIRST_LINE=${METRICS_HEADER}" STDOUT_LINES=5
         "STDOUT_REGEX=\n0,0,0,-29[.]43,-29[.]43,.*\n3,0[.]0[0-9]*,[-0-9.e]+,-29[.]4(29999999[0-9]*|3000000[0-9]*|3),")
mechstudio_cli_bad(keyframe_unknown REASON "the model has no keyframe 'swimg' \\(its keyframes: 'down', 'swing' and 'stale'\\)"
  ARGS simulate ${KEYFRAMES_MODEL} --keyframe swimg --steps 5)
mechstudio_cli_bad(keyframe_does_not_fit REASON "keyframe 'stale' does not fit joint 'joint2' \\(violation 0.2\\): was the model changed since it was saved\\?"
  ARGS simulate ${KEYFRAMES_MODEL} --keyframe stale --steps 5)
mechstudio_cli_bad(keyframe_scene_has_none REASON "the model has no keyframe 'start' \\(its keyframes: none\\)"
  ARGS simulate scene:pendulum --keyframe start --steps 5)
mechstudio_cli_bad(keyframe_without_name REASON "option --keyframe needs a value" ARGS simulate scene:pendulum --steps 5 --keyframe)
# A keyframe that names a body the model lacks is a reader error at its line:column.
mechstudio_cli_test(keyframe_check_unknown_body EXIT 1 ARGS check ${CMAKE_SOURCE_DIR}/tests/data/mech/bad/86-keyframe-unknown-body.mech
  CHECKS "STDERR_REGEX=86-keyframe-unknown-body.mech:6:20: error: keyframe 'k' names body 'c' that the model does not have")

# ---- assemble (issue 34) ------------------------------------------------------------------------
# `assemble FILE -o OUT` closes every loop and writes each joint's position and velocity as the
# engine's projected state at t = 0 has them; a consistent file is written back unchanged; a loop
# that cannot close names its worst joint and writes nothing.
mechstudio_cli_test(assemble_open EXIT 0 ARGS assemble ${CMAKE_SOURCE_DIR}/tests/data/mech/four-bar-open.mech -o closed.mech
  CHECKS FILE=closed.mech "FILE_REGEX=Joint positions and velocities written by Assemble.*\\(position -0\\.6126828669"
  "STDERR_REGEX=joint 'rocker-pivot': position 0\\.4 -> 0\\.261869.*4 joint\\(s\\) rewritten")
mechstudio_cli_test(assemble_consistent EXIT 0 ARGS assemble ${CMAKE_SOURCE_DIR}/models/four-bar.mech -o same.mech
  CHECKS FILE=same.mech "STDERR_REGEX=0 joint\\(s\\) rewritten")
mechstudio_cli_test(bad.assemble_impossible EXIT 1
  ARGS assemble ${CMAKE_SOURCE_DIR}/tests/data/mech/four-bar-impossible.mech -o never.mech
  CHECKS STDERR_ONE_LINE=ON "STDERR_REGEX=^mechstudio-cli: error: .*joint 'rocker-pivot' stays 0\\.657.*nothing written" FILE_ABSENT=never.mech)
mechstudio_cli_bad(assemble_generated REASON "joint 'bottom1' is made by repeat/chain"
  ARGS assemble ${CMAKE_SOURCE_DIR}/models/four-link-segments.mech -o out.mech)
# --hold BODY: that body stays where its written values put it; the loop closes through the others.
mechstudio_cli_test(assemble_hold EXIT 0 ARGS assemble ${CMAKE_SOURCE_DIR}/tests/data/mech/four-bar-open.mech -o held.mech --hold crank
  CHECKS FILE=held.mech "FILE_REGEX=\\(position -0\\.3184\\)"
  "STDERR_REGEX=joint 'crank-pin': position -0\\.5 -> -0\\.6058.*3 joint\\(s\\) rewritten")
mechstudio_cli_bad(assemble_hold_unreachable REASON "joint 'joint23' stays 0\\.62.*holding 'link3' where the written values put it"
  ARGS assemble ${CMAKE_SOURCE_DIR}/models/three-link-loop.mech -o never.mech --hold link3)
mechstudio_cli_bad(assemble_hold_unknown REASON "cannot hold 'crack' in place: there is no body of that name"
  ARGS assemble ${CMAKE_SOURCE_DIR}/tests/data/mech/four-bar-open.mech -o never.mech --hold crack)
mechstudio_cli_bad(assemble_hold_no_name REASON "option --hold needs a body name"
  ARGS assemble ${CMAKE_SOURCE_DIR}/tests/data/mech/four-bar-open.mech -o never.mech --hold)
mechstudio_cli_bad(assemble_no_output REASON "usage: assemble" ARGS assemble ${CMAKE_SOURCE_DIR}/models/four-bar.mech)
mechstudio_cli_bad(assemble_urdf REASON "reads and writes .mech files"
  ARGS assemble ${CMAKE_SOURCE_DIR}/models/urdf/two-link-arm.urdf -o arm.mech)

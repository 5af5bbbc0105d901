# SPDX-License-Identifier: GPL-3.0-or-later
# CTest tests of "mechstudio-cli lesson" and "lessons" (the teaching presets of engine/scenes/lessons.h).
# Included by tests/CMakeLists.txt after cli_tests.cmake (which defines the helper functions).

mechstudio_cli_test(lessons_list EXIT 0 ARGS lessons CHECKS "STDOUT_REGEX=1  drift.*6  stiff-contact")
mechstudio_cli_bad(lesson_unknown REASON "unknown lesson '12'; give 1-11" ARGS lesson 12)
mechstudio_cli_bad(lesson_missing REASON "lesson needs a number or a name" ARGS lesson)
mechstudio_cli_bad(lesson_two REASON "give one lesson" ARGS lesson 1 2)
mechstudio_cli_bad(lesson_bad_duration REASON "--duration must be positive" ARGS lesson drift --duration 0)
mechstudio_cli_bad(lesson_bad_option REASON "unknown option '--dt' of lesson" ARGS lesson drift --dt 0.1)
# Every lesson runs briefly (both copies step; a diverging copy is a result, exit 0) and writes one CSV
# row per step of every copy: header + (1 + steps) per copy.
foreach(n 1 2 3 5)
  mechstudio_cli_test(lesson_${n} EXIT 0 ARGS lesson ${n} --duration 0.5 --csv lesson.csv --quiet
    CHECKS FILE=lesson.csv "FILE_FIRST_LINE=copy,label,step,time,energy,constraint_violation,penetration,angular_momentum,status"
           "STDOUT_REGEX=Summary over 0.5 s")
endforeach()
mechstudio_cli_test(lesson_4 EXIT 0 ARGS lesson contact --duration 0.5 --quiet CHECKS "STDOUT_REGEX=exponential, soft")
# Lessons 7 and 8 (generalized coordinates): every copy of lesson 7 is listed with its tolerance;
# lesson 8 runs both copies.
mechstudio_cli_test(lesson_7 EXIT 0 ARGS lesson tolerance --duration 0.05 --quiet
  CHECKS "STDOUT_REGEX=riqn, dt 0.01 s, tol 1e-10" "STDOUT_REGEX=midpoint-gc, dt 0.01 s, tol 1e-06")
mechstudio_cli_test(lesson_8 EXIT 0 ARGS lesson singular --duration 0.5 --quiet CHECKS "STDOUT_REGEX=midpoint-gc, dt 0.01 s")
mechstudio_cli_test(lesson_6 EXIT 0 ARGS lesson stiff-contact --duration 0.5 --quiet CHECKS "STDOUT_REGEX=explicit Euler, soft")
# Lesson 2 over 0.5 s: 50 steps of each copy at dt = 0.01 -> 1 + 2 x 51 rows.
mechstudio_cli_test(lesson_rows EXIT 0 ARGS lesson energy --duration 0.5 --csv - --quiet CHECKS STDOUT_REGEX=^copy,label
  "STDOUT_REGEX=\n1,Heun,50,0.5")

# Experiment files ("lesson FILE.experiment"). The built-in lessons run from their files in
# models/lessons give the same figures as "lesson N": the per-step CSV of every copy is identical.
set(MECHSTUDIO_LESSON_DIR "${CMAKE_SOURCE_DIR}/models/lessons")
set(MECHSTUDIO_EXPERIMENT_DATA "${CMAKE_SOURCE_DIR}/tests/data/experiment")
foreach(spec "1;01-drift" "2;02-energy" "3;03-dissipation" "4;04-contact" "5;05-intermediate-axis" "6;06-stiff-contact"
            "7;07-tolerance" "8;08-singular")
  list(GET spec 0 n)
  list(GET spec 1 file)
  # (Lesson 7 steps 300-link chains: 0.1 s of them in the sanitizer build.)
  set(duration 0.3)
  if(MECHSTUDIO_SANITIZE AND n EQUAL 7)
    set(duration 0.1)
  endif()
  add_test(NAME cli.lesson_file_same_${n}
           COMMAND ${CMAKE_COMMAND} "-DEXE=$<TARGET_FILE:mechstudio-cli>"
                   "-DARGS_A=lesson|${n}|--duration|${duration}|--csv|-|--quiet"
                   "-DARGS_B=lesson|${MECHSTUDIO_LESSON_DIR}/${file}.experiment|--duration|${duration}|--csv|-|--quiet"
                   "-DWORKDIR=${MECHSTUDIO_CLI_WORKDIR}/lesson_file_same_${n}" -P ${CMAKE_CURRENT_LIST_DIR}/run_same_output.cmake)
  set_tests_properties(cli.lesson_file_same_${n} PROPERTIES LABELS cli TIMEOUT 300)
endforeach()
# A file's table: its title, its three copies (the model file named relative to the experiment,
# with its parameter set), the summary.
mechstudio_cli_test(lesson_file EXIT 0 ARGS lesson ${MECHSTUDIO_EXPERIMENT_DATA}/pendulums.experiment --duration 1
  CHECKS "STDOUT_REGEX=^Experiment pendulums: Pendulum: VI vs RK4 vs symplectic Euler\n"
         "STDOUT_REGEX=t \\[s\\] +VI +RK4 +symplectic Euler +\\(energy error"
         "STDOUT_REGEX=\n1 +[-0-9.e]+ +[-0-9.e]+ +[-0-9.e]+\n" "STDOUT_REGEX=Summary over 1 s"
         "STDOUT_REGEX=symplectic-euler, dt 0.0025 s" STDERR_EMPTY=ON)
# A keyframe to start from: every copy's first row has the keyframe's energy (the double pendulum
# hanging and turning at 1 rad/s: E = 2.5 J + the boxes' spin − 3·9.81 J = −26.9 J, against 0 J in
# the model's horizontal start); an unknown keyframe is refused.
mechstudio_cli_test(lesson_keyframe EXIT 0 ARGS lesson ${MECHSTUDIO_EXPERIMENT_DATA}/keyframe.experiment --duration 0.1 --csv - --quiet
  CHECKS "STDOUT_REGEX=\n0,VI,0,0,-26\\.9[0-9]*,.*\n1,RK4,0,0,-26\\.9[0-9]*,")
mechstudio_cli_bad(lesson_keyframe_unknown REASON "no keyframe 'nope'"
  ARGS lesson ${MECHSTUDIO_EXPERIMENT_DATA}/keyframe-unknown.experiment --duration 0.1)
# A body to follow that the model does not have is refused; the learned-gait experiment (written by
# python/examples/quadruped_gait_learning.py) runs and follows the torso.
mechstudio_cli_bad(lesson_follow_unknown REASON "\\(follow tail\\): the model has no body of that name"
  ARGS lesson ${MECHSTUDIO_EXPERIMENT_DATA}/follow-unknown.experiment --duration 0.1)
mechstudio_cli_test(lesson_quadruped_learned EXIT 0 ARGS lesson ${CMAKE_SOURCE_DIR}/models/quadruped-learned.experiment
  --duration 1 --quiet CHECKS "STDOUT_REGEX=Summary over 1 s")
# Rows per copy: 100 reference steps of 0.01 s, 400 of symplectic Euler: 1 + 101 + 101 + 401 lines.
mechstudio_cli_test(lesson_file_rows EXIT 0 ARGS lesson ${MECHSTUDIO_EXPERIMENT_DATA}/pendulums.experiment --duration 1
  --csv rows.csv --quiet CHECKS FILE=rows.csv FILE_LINES=604 "STDOUT_REGEX=Summary over 1 s")
# An inline (mechanism …) model, run for the file's own duration.
mechstudio_cli_test(lesson_inline EXIT 0 ARGS lesson ${MECHSTUDIO_EXPERIMENT_DATA}/inline.experiment --quiet
  CHECKS "STDOUT_REGEX=^Experiment inline: Inline pendulum" "STDOUT_REGEX=Summary over 1 s" "STDOUT_REGEX=heun, dt 0.005 s")
# Malformed files and models: one line with the file:line:column.
mechstudio_cli_bad(lesson_file_bad_integrator
  REASON "bad-integrator.experiment:6:27: unknown integrator 'rk5' \\(did you mean 'rk4'\\?\\)"
  ARGS lesson ${MECHSTUDIO_EXPERIMENT_DATA}/bad-integrator.experiment)
mechstudio_cli_bad(lesson_file_bad_model REASON "bad-inline-model.experiment:6:26: undefined name 'heavy'"
  ARGS lesson ${MECHSTUDIO_EXPERIMENT_DATA}/bad-inline-model.experiment)
mechstudio_cli_bad(lesson_file_missing REASON "none.experiment: cannot open the file" ARGS lesson none.experiment)

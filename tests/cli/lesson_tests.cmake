# SPDX-License-Identifier: GPL-3.0-or-later
# CTest tests of "mechstudio-cli lesson" and "lessons" (the teaching presets of engine/scenes/lessons.h).
# Included by tests/CMakeLists.txt after cli_tests.cmake (which defines the helper functions).

mechstudio_cli_test(lessons_list EXIT 0 ARGS lessons CHECKS "STDOUT_REGEX=1  drift.*6  stiff-contact")
mechstudio_cli_bad(lesson_unknown REASON "unknown lesson '11'; give 1-10" ARGS lesson 11)
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

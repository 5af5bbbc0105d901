# SPDX-License-Identifier: GPL-3.0-or-later
# Simulates one gallery model with mechstudio-cli and checks the metrics CSV. Used by
# gallery_tests.cmake:
#   cmake -DEXE=<cli> -DMODEL=<file> -DDURATION=<s> -DMIN_LAST_TIME=<s> -DMAX_VIOLATION=<x>
#         -DWORKDIR=<dir> -P run_gallery.cmake
# Runs `simulate MODEL --duration DURATION --quiet --csv metrics.csv` in WORKDIR through
# run_cli.cmake (exit 0, stderr empty, the CSV written with a "step,time,..." header), then checks
# every data row of the CSV:
#   - the step column counts 0, 1, 2, ... (one row per step, none missing);
#   - the last row's time is >= MIN_LAST_TIME and the row before it is at a time < DURATION: the
#     run made exactly ceil(DURATION / dt) steps at the model's own dt;
#   - constraint_violation <= MAX_VIOLATION at every step;
#   - no NaN or infinity anywhere.
# (CMake's if(... LESS/GREATER ...) compares decimal numbers as doubles.)
cmake_minimum_required(VERSION 3.25)

foreach(v EXE MODEL DURATION MIN_LAST_TIME MAX_VIOLATION WORKDIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_gallery.cmake needs -D${v}=...")
  endif()
endforeach()

# The sanitizer build (scripts/test.sh sets MECHSTUDIO_SANITIZER_BUILD) looks for memory errors,
# not for 10 s of physics: 1 s there.
if(DEFINED ENV{MECHSTUDIO_SANITIZER_BUILD})
  set(DURATION 1)
  set(MIN_LAST_TIME 0.999)
endif()

# The run itself, with run_cli.cmake's checks (it stops with FATAL_ERROR on a failure).
set(ARGS "simulate|${MODEL}|--duration|${DURATION}|--quiet|--csv|metrics.csv")
set(EXPECT_EXIT 0)
set(STDERR_EMPTY ON)
set(FILE metrics.csv)
include(${CMAKE_CURRENT_LIST_DIR}/run_cli.cmake)

set(csv "${WORKDIR}/metrics.csv")
file(READ "${csv}" text)
string(TOLOWER "${text}" lower)
set(failures "")
if(lower MATCHES "nan|inf")
  string(APPEND failures "  - the CSV contains NaN or infinity\n")
endif()

file(STRINGS "${csv}" lines)
list(LENGTH lines n_lines)
if(n_lines LESS 3)
  message(FATAL_ERROR "${MODEL}: ${csv} has ${n_lines} lines, expected a header and at least two rows")
endif()
list(GET lines 0 header)
string(REPLACE "," ";" columns "${header}")
list(FIND columns "step" c_step)
list(FIND columns "time" c_time)
list(FIND columns "constraint_violation" c_viol)
if(c_step LESS 0 OR c_time LESS 0 OR c_viol LESS 0)
  message(FATAL_ERROR "${MODEL}: CSV header '${header}' lacks step, time or constraint_violation")
endif()

math(EXPR last "${n_lines} - 1")
list(REMOVE_AT lines 0)
set(worst 0)
set(previous_time "")
set(time "")
set(i 0)
foreach(row IN LISTS lines)
  math(EXPR i "${i} + 1")
  string(REPLACE "," ";" fields "${row}")
  list(GET fields ${c_step} step)
  list(GET fields ${c_viol} violation)
  set(previous_time "${time}")
  list(GET fields ${c_time} time)
  math(EXPR expected "${i} - 1")
  if(NOT step STREQUAL "${expected}")
    string(APPEND failures "  - row ${i} has step '${step}', expected ${expected}\n")
    break()
  endif()
  if(violation GREATER worst)
    set(worst "${violation}")
    set(worst_step ${step})
  endif()
endforeach()

if(worst GREATER MAX_VIOLATION)
  string(APPEND failures "  - step ${worst_step}: constraint violation ${worst} > ${MAX_VIOLATION}\n")
endif()

if(time LESS MIN_LAST_TIME)
  string(APPEND failures "  - the last row is at t = ${time} s, expected >= ${MIN_LAST_TIME} s\n")
endif()
if(NOT previous_time LESS DURATION)
  string(APPEND failures "  - the row before the last is at t = ${previous_time} s, not before ${DURATION} s: too many steps\n")
endif()

if(NOT failures STREQUAL "")
  message(FATAL_ERROR "mechstudio-cli simulate ${MODEL} --duration ${DURATION}\n${failures}")
endif()
message(STATUS "${MODEL}: ${last} rows up to t = ${time} s, max constraint violation ${worst}")

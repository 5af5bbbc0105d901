# SPDX-License-Identifier: GPL-3.0-or-later
# Runs mechstudio-cli once and checks what it did. Used by cli_tests.cmake:
#   cmake -DEXE=<cli> -DARGS=<arg|arg|...> -DEXPECT_EXIT=<code> [checks...] -P run_cli.cmake
# ARGS separates arguments with '|' (a ';' would be split by add_test). Optional checks:
#   STDERR_ONE_LINE=ON           stderr is exactly one line
#   STDERR_REGEX=<re>            stderr matches <re>
#   STDERR_LAST_LINE_REGEX=<re>  the last line of stderr matches <re>
#   STDERR_EMPTY=ON              stderr is empty
#   STDOUT_REGEX=<re>            stdout matches <re>
#   STDOUT_FIRST_LINE=<text>     the first line of stdout is exactly <text>
#   STDOUT_LINES=<n>             stdout has exactly <n> lines
#   FILE=<path>                  a file the run wrote (relative to WORKDIR); removed before the run
#   FILE_FIRST_LINE=<text>       the first line of FILE is exactly <text>
#   FILE_LINES=<n>               FILE has exactly <n> lines
#   FILE_REGEX=<re>              FILE matches <re>
#   FILE_NOT_REGEX=<re>          FILE does not match <re>
#   FILE_ABSENT=<path>           a file the run must not leave behind (relative to WORKDIR; also
#                                <path>.tmp); removed before the run
#   WORKDIR=<dir>                run in <dir> (created)
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED EXE OR NOT DEFINED EXPECT_EXIT)
  message(FATAL_ERROR "run_cli.cmake needs -DEXE=... and -DEXPECT_EXIT=...")
endif()
set(args "")
if(DEFINED ARGS AND NOT ARGS STREQUAL "")
  string(REPLACE "|" ";" args "${ARGS}")
endif()
if(NOT DEFINED WORKDIR)
  set(WORKDIR "${CMAKE_CURRENT_BINARY_DIR}")
endif()
file(MAKE_DIRECTORY "${WORKDIR}")
if(DEFINED FILE)
  if(NOT IS_ABSOLUTE "${FILE}")
    set(FILE "${WORKDIR}/${FILE}")
  endif()
  file(REMOVE "${FILE}")
endif()

if(DEFINED FILE_ABSENT)
  if(NOT IS_ABSOLUTE "${FILE_ABSENT}")
    set(FILE_ABSENT "${WORKDIR}/${FILE_ABSENT}")
  endif()
  file(REMOVE "${FILE_ABSENT}" "${FILE_ABSENT}.tmp")
endif()

execute_process(COMMAND "${EXE}" ${args}
                WORKING_DIRECTORY "${WORKDIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)

set(failures "")
# rc is a number, or a text such as "Child aborted" when the process died from a signal.
if(NOT rc STREQUAL "${EXPECT_EXIT}")
  string(APPEND failures "  - exit status '${rc}', expected ${EXPECT_EXIT}\n")
endif()

# Line counts without lists (messages may contain ';'): newlines, plus one for an unterminated tail.
function(count_lines text outvar)
  string(REGEX MATCHALL "\n" nl "${text}")
  list(LENGTH nl n)
  if(NOT text STREQUAL "" AND NOT text MATCHES "\n$")
    math(EXPR n "${n} + 1")
  endif()
  set(${outvar} ${n} PARENT_SCOPE)
endfunction()
# First and last line of a text (without regular expressions, which reject empty matches).
function(first_line text outvar)
  string(FIND "${text}" "\n" nl)
  if(nl GREATER -1)
    string(SUBSTRING "${text}" 0 ${nl} text)
  endif()
  set(${outvar} "${text}" PARENT_SCOPE)
endfunction()
function(last_line text outvar)
  if(text MATCHES "\n$")
    string(LENGTH "${text}" len)
    math(EXPR len "${len} - 1")
    string(SUBSTRING "${text}" 0 ${len} text)
  endif()
  string(FIND "${text}" "\n" nl REVERSE)
  if(nl GREATER -1)
    math(EXPR nl "${nl} + 1")
    string(SUBSTRING "${text}" ${nl} -1 text)
  endif()
  set(${outvar} "${text}" PARENT_SCOPE)
endfunction()
count_lines("${err}" n_err)
count_lines("${out}" n_out)

if(STDERR_ONE_LINE)
  if(NOT n_err EQUAL 1)
    string(APPEND failures "  - stderr has ${n_err} lines, expected exactly 1\n")
  endif()
endif()
if(STDERR_EMPTY AND NOT err STREQUAL "")
  string(APPEND failures "  - stderr is not empty\n")
endif()
if(DEFINED STDERR_REGEX AND NOT err MATCHES "${STDERR_REGEX}")
  string(APPEND failures "  - stderr does not match '${STDERR_REGEX}'\n")
endif()
if(DEFINED STDERR_LAST_LINE_REGEX)
  last_line("${err}" last)
  if(NOT last MATCHES "${STDERR_LAST_LINE_REGEX}")
    string(APPEND failures "  - last line of stderr '${last}' does not match '${STDERR_LAST_LINE_REGEX}'\n")
  endif()
endif()
if(DEFINED STDOUT_REGEX AND NOT out MATCHES "${STDOUT_REGEX}")
  string(APPEND failures "  - stdout does not match '${STDOUT_REGEX}'\n")
endif()
if(DEFINED STDOUT_LINES AND NOT n_out EQUAL STDOUT_LINES)
  string(APPEND failures "  - stdout has ${n_out} lines, expected ${STDOUT_LINES}\n")
endif()
if(DEFINED STDOUT_FIRST_LINE)
  first_line("${out}" first)
  if(NOT first STREQUAL STDOUT_FIRST_LINE)
    string(APPEND failures "  - first line of stdout is '${first}', expected '${STDOUT_FIRST_LINE}'\n")
  endif()
endif()
if(DEFINED FILE)
  if(NOT EXISTS "${FILE}")
    string(APPEND failures "  - ${FILE} was not written\n")
  else()
    file(READ "${FILE}" content)
    count_lines("${content}" n_file)
    if(DEFINED FILE_LINES AND NOT n_file EQUAL FILE_LINES)
      string(APPEND failures "  - ${FILE} has ${n_file} lines, expected ${FILE_LINES}\n")
    endif()
    if(DEFINED FILE_REGEX AND NOT content MATCHES "${FILE_REGEX}")
      string(APPEND failures "  - ${FILE} does not match '${FILE_REGEX}'\n")
    endif()
    if(DEFINED FILE_NOT_REGEX AND content MATCHES "${FILE_NOT_REGEX}")
      string(APPEND failures "  - ${FILE} matches '${FILE_NOT_REGEX}'\n")
    endif()
    if(DEFINED FILE_FIRST_LINE)
      first_line("${content}" first)
      if(NOT first STREQUAL FILE_FIRST_LINE)
        string(APPEND failures "  - first line of ${FILE} is '${first}', expected '${FILE_FIRST_LINE}'\n")
      endif()
    endif()
  endif()
endif()

if(DEFINED FILE_ABSENT)
  foreach(f "${FILE_ABSENT}" "${FILE_ABSENT}.tmp")
    if(EXISTS "${f}")
      string(APPEND failures "  - ${f} was written\n")
    endif()
  endforeach()
endif()

if(NOT failures STREQUAL "")
  string(REPLACE ";" " " shown "${args}")
  string(LENGTH "${out}" out_len)
  if(out_len GREATER 2000)
    string(SUBSTRING "${out}" 0 2000 out)
    string(APPEND out "...")
  endif()
  message(FATAL_ERROR "mechstudio-cli ${shown}\n${failures}--- stderr ---\n${err}--- stdout ---\n${out}")
endif()

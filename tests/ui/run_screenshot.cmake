# SPDX-License-Identifier: GPL-3.0-or-later
# Runs `CMD OUT` (mechstudio … --screenshot OUT) and checks: exit 0, OUT exists and is a PNG of
# more than 20 kB (a real window, not an empty image).
file(REMOVE ${OUT})
execute_process(COMMAND ${CMD} ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit ${rc}\n${out}\n${err}")
endif()
if(NOT EXISTS ${OUT})
  message(FATAL_ERROR "no screenshot written\n${err}")
endif()
file(SIZE ${OUT} size)
file(READ ${OUT} magic LIMIT 4 HEX)
if(NOT magic STREQUAL "89504e47" OR size LESS 20000)
  message(FATAL_ERROR "not a plausible PNG (magic ${magic}, ${size} bytes)")
endif()
message(STATUS "screenshot ${OUT}: ${size} bytes")

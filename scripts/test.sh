#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds MechStudio and runs every test: the same command for developers (README) and CI (.ci/run).
#   1. Release build with Ninja in build/ (with the Python module), then ctest (engine, CLI, GUI and
#      the Python module's pytest suite).
#   1b. The .deb of that build (cpack -G DEB) checked by lintian, installed, run and removed again
#       (scripts/package-test.sh; dpkg needs root or sudo).
#   2. Engine + tests + CLI with AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/ (clang), then ctest.
#   2b. libFuzzer runs of the .mech reader, the s-expression layer and the MJCF importer
#       (scripts/fuzz.sh, clang, FUZZ_SECONDS=60, two fuzzers at a time).
#   3. A smoke run of mechstudio-cli on a built-in scene.
# Prints each phase's wall time and CPU time (user + system) at the end: on a busy machine the CPU
# time is what compares between runs.
# Uses ccache (CCACHE_DIR defaults to ~/.cache/ccache so it persists between runs).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${MECHSTUDIO_JOBS:-$(nproc)}"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
mkdir -p "$CCACHE_DIR"

t_start=$(date +%s)
timings=()
# Each command runs in the background and is waited for, so that a signal reaches the traps at once
# (bash runs a trap only after a foreground child ends); a signal stops the child and fails the run.
child=0
interrupted=""
current=""        # the phase running now (named in the timings when a signal stops it)
current_t0=0
cpu=0
cpu_seconds() {  # sets cpu to the CPU time (user + system, s) of this shell's finished children so far
  local tf
  tf=$(mktemp)
  times >"$tf"  # (in this shell: called in $(...), times would report the subshell's zeros)
  cpu=$(awk 'END { s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); s += a[1] * 60 + a[2] }; printf "%d", s }' "$tf")
  rm -f "$tf"
}
phase() {  # phase <name> <command...>: runs the command, records its wall and CPU time, returns its status
  local name="$1"; shift
  local t0 t1 c0 c1 rc=0
  t0=$(date +%s)
  cpu_seconds
  c0=$cpu
  current="$name"
  current_t0=$t0
  echo "==> $name"
  "$@" &
  child=$!
  wait "$child" || rc=$?
  child=0
  current=""
  [ -z "$interrupted" ] || rc=1
  t1=$(date +%s)
  cpu_seconds
  c1=$cpu
  timings+=("$(printf '%-28s %5d s  %6d CPU-s%s' "$name" $((t1 - t0)) $((c1 - c0)) "$([ $rc -eq 0 ] || echo '  FAILED')")")
  echo "==> $name: $((t1 - t0)) s, $((c1 - c0)) CPU-s$([ $rc -eq 0 ] || echo ", FAILED (exit $rc)")"
  return $rc
}
failed=()
check() {  # check <name> <command...>: like phase, but a failure is recorded and the run goes on
  phase "$@" || failed+=("$1")
}
# "all passed" only when the last line of this script was reached with every check passed.
completed=""
report() {
  local rc=$?
  echo
  echo "test.sh timings:"
  for t in "${timings[@]}"; do echo "  $t"; done
  cpu_seconds
  echo "  $(printf '%-28s %5d s  %6d CPU-s' total $(($(date +%s) - t_start)) "$cpu")"
  echo "  (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
  if [ -n "$interrupted" ]; then
    echo "test.sh: FAILED: interrupted by SIG$interrupted${failed[*]:+ (failed before: ${failed[*]})}"
  elif [ $rc -eq 0 ] && [ -n "$completed" ]; then
    echo "test.sh: all passed"
  else
    echo "test.sh: FAILED (exit $((rc == 0 ? 1 : rc)))${failed[*]:+: ${failed[*]}}"
  fi
}
kill_tree() {  # kill_tree <pid>: SIGTERM to a process and all its descendants, children first
  local c
  for c in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$c"; done
  kill -TERM "$1" 2>/dev/null || true
}
on_signal() {  # stops the running phase (its whole process tree) and exits with 128 + the signal
  interrupted="$1"
  [ "$child" -eq 0 ] || kill_tree "$child"
  [ -z "$current" ] || timings+=("$(printf '%-28s %5d s  INTERRUPTED' "$current" $(($(date +%s) - current_t0)))")
  trap - EXIT
  report
  exit "$2"
}
trap report EXIT
trap 'on_signal TERM 143' TERM
trap 'on_signal INT 130' INT
trap 'on_signal HUP 129' HUP

if command -v ccache >/dev/null; then ccache --zero-stats >/dev/null 2>&1 || true; fi

# 1. Release build and the full test suite.
phase "configure (Release)" cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMECHSTUDIO_BUILD_TESTS=ON -DMECHSTUDIO_BUILD_BENCHMARKS=ON -DMECHSTUDIO_BUILD_PYTHON=ON -DMECHSTUDIO_SANITIZE=OFF
phase "build (Release)" cmake --build build -j "$jobs"
check "ctest (Release)" ctest --test-dir build --output-on-failure -j "$jobs"
# 1b. The Debian package of that build: lintian, contents, validators, install, run, remove.
check "package (install test)" bash scripts/package-test.sh build

# 2. Sanitizer build of the engine, its tests and the CLI, with clang (as the fuzzers in 2b): it
#    compiles the sanitized engine and tests in 36 % less CPU time than g++ (measured: engine
#    870 -> 555 s as a unity build), and a second compiler's warnings and evaluation orders come
#    with it. -g1 (line tables only) keeps file:line in sanitizer reports and compiles Eigen-heavy
#    files ~40 % faster than full -g; -O1 keeps the build within the CI budget (the optimised build
#    is tested in step 1). A build-asan/ configured with another compiler is started afresh.
if [ -f build-asan/CMakeCache.txt ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' build-asan/CMakeCache.txt; then
  rm -rf build-asan
fi
phase "configure (ASan+UBSan)" cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DMECHSTUDIO_SANITIZE=ON -DMECHSTUDIO_ENGINE_ONLY=ON -DMECHSTUDIO_BUILD_BENCHMARKS=OFF -DMECHSTUDIO_BUILD_TESTS=ON
phase "build (ASan+UBSan)" cmake --build build-asan -j "$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# (MECHSTUDIO_SANITIZER_BUILD shortens the hour-long physics runs that step 1 already measured.)
export MECHSTUDIO_SANITIZER_BUILD=1
check "ctest (ASan+UBSan)" ctest --test-dir build-asan --output-on-failure -j "$jobs"
unset MECHSTUDIO_SANITIZER_BUILD

# 2b. libFuzzer runs of the .mech reader (${FUZZ_SECONDS:-60} s) and the s-expression layer (clang, ASan+UBSan).
check "fuzz (mech reader, sexpr)" bash scripts/fuzz.sh

# 3. Smoke run of the CLI.
smoke() {
  build/app/mechstudio-cli scenes >/dev/null || return 1
  build/app/mechstudio-cli simulate scene:double-pendulum --duration 1 --csv build/smoke.csv || return 1
  local rows
  rows=$(($(wc -l <build/smoke.csv) - 1))
  [ "$rows" -eq 101 ] || { echo "smoke: expected 101 rows, got $rows" >&2; return 1; }
}
check "smoke (mechstudio-cli)" smoke

if command -v ccache >/dev/null; then ccache --show-stats 2>/dev/null | grep -Ei 'hit|miss' | head -4 || true; fi
[ ${#failed[@]} -eq 0 ] || exit 1
completed=1

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer targets with clang in build-fuzz/ and runs fuzz_sexpr for ${FUZZ_SECONDS:-60} s
# on a copy of tests/fuzz/corpus (the seeds stay untouched). Exits non-zero on any crash, leak,
# timeout (> 5 s for one input) or out-of-memory (> 2048 MB); the failing input is written to
# build-fuzz/artifacts/. Usage: FUZZ_SECONDS=300 bash scripts/fuzz.sh
# The build uses tests/fuzz/CMakeLists.txt as its own project (no Qt, no Eigen, nothing gcc-built).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${FUZZ_SECONDS:-60}"
jobs="${MECHSTUDIO_JOBS:-$(nproc)}"
build=build-fuzz
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
mkdir -p "$CCACHE_DIR"

# clang is required (scripts/install-deps.sh installs clang and libclang-rt-14-dev).
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (run scripts/install-deps.sh)" >&2; exit 1; }

# Configure and build the fuzz target with clang.
CC=clang CXX=clang++ cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMECHSTUDIO_BUILD_FUZZERS=ON
cmake --build "$build" --target fuzz_sexpr -j "$jobs"

# Fresh working corpus (seeds + what this run discovers) and artifact directory.
rm -rf "$build/corpus-sexpr" "$build/artifacts"
mkdir -p "$build/corpus-sexpr" "$build/artifacts"
cp tests/fuzz/corpus/* "$build/corpus-sexpr/"

# Run: libFuzzer exits non-zero on a crash, leak, timeout or OOM (and set -e passes that on).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
echo "fuzz.sh: running fuzz_sexpr for $seconds s"
"$build/fuzz_sexpr" "$build/corpus-sexpr" \
  -dict=tests/fuzz/sexpr.dict \
  -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -detect_leaks=1 -max_len=16384 \
  -artifact_prefix="$build/artifacts/" -print_final_stats=1

# Belt and braces: any artifact means a failure even if the exit status did not say so.
if [ -n "$(ls -A "$build/artifacts")" ]; then
  echo "fuzz.sh: failing inputs in $build/artifacts:" >&2
  ls -l "$build/artifacts" >&2
  exit 1
fi
echo "fuzz.sh: no crash, leak or timeout in $seconds s ($(ls "$build/corpus-sexpr" | wc -l) corpus entries)"

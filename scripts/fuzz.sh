#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer targets with clang in build-fuzz/ and runs fuzz_mech_reader for
# ${FUZZ_SECONDS:-60} s and, beside it, fuzz_sexpr for a third of that then fuzz_mjcf_import for
# half, each on a copy of its seeds.
# Exits non-zero on any crash, leak, timeout (> 5 s for one input) or out-of-memory (> 2048 MB); the failing input is written to
# build-fuzz/artifacts/. Usage: FUZZ_SECONDS=300 bash scripts/fuzz.sh
# The build uses tests/fuzz/CMakeLists.txt as its own project (no Qt, Eigen headers only, nothing gcc-built).
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

# Configure and build the fuzz targets with clang.
CC=clang CXX=clang++ cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMECHSTUDIO_BUILD_FUZZERS=ON
cmake --build "$build" --target fuzz_sexpr fuzz_mech_reader fuzz_mjcf_import -j "$jobs"
rm -rf "$build/artifacts"
mkdir -p "$build/artifacts"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# run <target> <seconds> <dict> <seed dirs...>: a fresh working corpus (seeds copied, never
# modified), then libFuzzer; it exits non-zero on a crash, leak, timeout or OOM (set -e passes it on).
run() {
  local target="$1" secs="$2" dict="$3"
  shift 3
  local corpus="$build/corpus-${target#fuzz_}"
  rm -rf "$corpus"
  mkdir -p "$corpus"
  for d in "$@"; do cp "$d"/* "$corpus/"; done
  echo "fuzz.sh: running $target for $secs s"
  "$build/$target" "$corpus" -dict="$dict" \
    -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 -detect_leaks=1 -max_len=16384 \
    -artifact_prefix="$build/artifacts/" -print_final_stats=1 2>&1 | grep -v "^#[0-9]" || return 1
  echo "fuzz.sh: $target: no crash, leak or timeout in $secs s ($(ls "$corpus" | wc -l) corpus entries)"
}

# Two lanes side by side (each fuzzer is one process on one core): the .mech reader (s-expressions,
# parameters, arithmetic, repeat, every form, the writer) for the full time; the s-expression layer
# alone (round trip byte-identical) for a third of it, then the MJCF importer for half of it. Each
# lane writes its own log, shown when both are done.
tmpseeds="$build/seeds-mech"
rm -rf "$tmpseeds" && mkdir -p "$tmpseeds"
cp models/*.mech tests/data/mech/bad/*.mech "$tmpseeds/"
mjcfseeds="$build/seeds-mjcf"
rm -rf "$mjcfseeds" && mkdir -p "$mjcfseeds"
cp tests/data/mjcf/*.xml tests/data/mjcf/bad/*.xml "$mjcfseeds/"
laneA() { run fuzz_mech_reader "$seconds" tests/fuzz/mech.dict tests/fuzz/corpus "$tmpseeds"; }
laneB() {
  run fuzz_sexpr "$(( (seconds + 2) / 3 ))" tests/fuzz/sexpr.dict tests/fuzz/corpus &&
    run fuzz_mjcf_import "$(( (seconds + 1) / 2 ))" tests/fuzz/mjcf.dict "$mjcfseeds"
}
laneA >"$build/lane-a.log" 2>&1 &
pidA=$!
laneB >"$build/lane-b.log" 2>&1 &
pidB=$!
rcA=0 rcB=0
wait "$pidA" || rcA=$?
wait "$pidB" || rcB=$?
cat "$build/lane-a.log" "$build/lane-b.log"
[ "$rcA" -eq 0 ] && [ "$rcB" -eq 0 ] || { echo "fuzz.sh: a fuzzer failed (exit $rcA, $rcB)" >&2; exit 1; }

# Belt and braces: any artifact means a failure even if the exit status did not say so.
if [ -n "$(ls -A "$build/artifacts")" ]; then
  echo "fuzz.sh: failing inputs in $build/artifacts:" >&2
  ls -l "$build/artifacts" >&2
  exit 1
fi

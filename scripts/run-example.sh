#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds mechstudio (Release, build/) if needed and opens it on its built-in example (the double
# pendulum, paused: press Space to run). Extra arguments go to mechstudio, e.g.
#   bash scripts/run-example.sh models/four-bar.mech
# Without a display (no $DISPLAY / $WAYLAND_DISPLAY, e.g. over ssh) it renders the example under
# Xvfb after 2 s of simulated time, saves build/example.png and says so.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
mkdir -p "$CCACHE_DIR"

# Configure once, then build only the application (and the CLI it ships with).
if [ ! -f build/CMakeCache.txt ]; then
  echo "==> configuring build/ (Release)"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
echo "==> building mechstudio (the first build takes a few minutes)"
if ! log=$(cmake --build build --target mechstudio mechstudio-cli -j "$(nproc)" 2>&1); then
  echo "$log" >&2
  exit 1
fi

app=build/app/mechstudio
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  echo "==> $app $*"
  exec "$app" "$@"
fi
# No display: a screenshot under Xvfb instead.
echo "==> no display found; rendering under Xvfb: $app $* --screenshot build/example.png --steps 200"
xvfb-run -a -s "-screen 0 1280x800x24" "$app" "$@" --screenshot build/example.png --steps 200
echo "==> saved build/example.png (open it, or run this script from a desktop session for the live app)"

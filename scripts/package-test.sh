#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian package of a configured and built tree and tests it as a user would get it:
#   scripts/package-test.sh [BUILD_DIR]      (default: build; the tree must be built, with the GUI)
#  1. cpack -G DEB in BUILD_DIR (the .deb goes to BUILD_DIR/package/).
#  2. lintian: fails on any error or warning that has no override (packaging/lintian-overrides).
#  3. dpkg -c: the programs, icon (SVG and every PNG size), MIME types, man pages, desktop entry,
#     metainfo, copyright, changelog and example models are in the package; the newest version of
#     packaging/changelog.Debian is the package's and the newest <release> of the metainfo.
#  4. desktop-file-validate and appstreamcli validate --no-net (strict: warnings fail) on the files
#     of the package, and the size of every icon PNG.
#  5. Installs it (dpkg -i, then apt-get -f install if dependencies are missing), runs the installed
#     mechstudio-cli and a screenshot of the installed mechstudio on an installed example under
#     xvfb-run, checks the MIME database, and removes the package again (also when a step fails:
#     the packages it installed are purged, the machine is left as it was).
# Root is needed for step 5 only (dpkg, apt-get): sudo is used when not root. Without root and sudo,
# step 5 is skipped with the reason (exit 0), except in CI (CI set), where that is a failure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="$(cd "${1:-build}" && pwd)"
t0=$(date +%s)
say() { echo "package-test: $*"; }
fail() { echo "package-test: FAILED: $*" >&2; exit 1; }

for tool in cpack lintian dpkg-deb desktop-file-validate appstreamcli dpkg-parsechangelog; do
  command -v "$tool" >/dev/null || fail "$tool not found (bash scripts/install-deps.sh installs it)"
done
[ -x "$build/app/mechstudio" ] || fail "$build/app/mechstudio not built (configure without MECHSTUDIO_ENGINE_ONLY and build first)"

work="$(mktemp -d "${TMPDIR:-/tmp}/mechstudio-package-test.XXXXXX")"
SUDO=()
installed=0
skipped=""
extra=()
cleanup() {
  local rc=$?
  set +e
  if [ "$installed" -eq 1 ]; then
    say "removing the package"
    "${SUDO[@]}" dpkg --purge mechstudio >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; rc=1; }
    if [ ${#extra[@]} -gt 0 ]; then
      say "removing the packages apt-get installed for it: ${extra[*]}"
      "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${extra[@]}" >"$work/purge-extra.log" 2>&1 ||
        { cat "$work/purge-extra.log"; rc=1; }
    fi
    if dpkg-query -W -f='${Status}' mechstudio 2>/dev/null | grep -q "installed"; then
      echo "package-test: mechstudio is still installed" >&2
      rc=1
    fi
  fi
  rm -rf "$work"
  say "$([ $rc -eq 0 ] && echo passed || echo FAILED)$skipped in $(($(date +%s) - t0)) s"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1. the package ------------------------------------------------------------------------------
say "cpack -G DEB in $build"
rm -f "$build"/package/mechstudio_*.deb
(cd "$build" && cpack -G DEB -B "$build/package") >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack"; }
debs=("$build"/package/mechstudio_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then fail "cpack made no single mechstudio_*.deb in $build/package"; fi
deb="${debs[0]}"
say "$(basename "$deb"): $(stat -c %s "$deb") bytes"

# ---- 2. lintian ----------------------------------------------------------------------------------
say "lintian"
lintian_rc=0
lintian --info --display-info --pedantic --fail-on error,warning "$deb" >"$work/lintian.log" 2>&1 || lintian_rc=$?
grep -v -e '^N:' -e 'running with root privileges' "$work/lintian.log" | sed 's/^/  /' || true
[ $lintian_rc -eq 0 ] || fail "lintian found errors or warnings (exit $lintian_rc): fix them or override them with a reason in packaging/lintian-overrides"

# ---- 3. contents and versions --------------------------------------------------------------------
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$work/contents"
expect=(
  /usr/bin/mechstudio /usr/bin/mechstudio-cli
  /usr/share/applications/io.mechstudio.MechStudio.desktop
  /usr/share/metainfo/io.mechstudio.MechStudio.metainfo.xml
  /usr/share/mime/packages/io.mechstudio.MechStudio.xml
  /usr/share/icons/hicolor/scalable/apps/io.mechstudio.MechStudio.svg
  /usr/share/man/man1/mechstudio.1.gz /usr/share/man/man1/mechstudio-cli.1.gz
  /usr/share/doc/mechstudio/copyright /usr/share/doc/mechstudio/changelog.Debian.gz
  /usr/share/lintian/overrides/mechstudio
  /usr/share/mechstudio/models/four-bar.mech /usr/share/mechstudio/models/urdf/meshes/forearm.stl
)
for size in 16 24 32 48 64 128 256; do
  expect+=("/usr/share/icons/hicolor/${size}x${size}/apps/io.mechstudio.MechStudio.png")
done
# The Python module, when the build has it (-DMECHSTUDIO_BUILD_PYTHON=ON).
python_module=0
if grep -q '^MECHSTUDIO_BUILD_PYTHON:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  python_module=1
  expect+=(/usr/lib/python3/dist-packages/mechstudio/__init__.py)
fi
missing=0
for f in "${expect[@]}"; do
  grep -qxF "$f" "$work/contents" || { echo "package-test: not in the package: $f" >&2; missing=1; }
done
[ $missing -eq 0 ] || fail "files missing from the package"
say "all ${#expect[@]} expected files are in the package"

version="$(dpkg-deb -f "$deb" Version)"
cl_version="$(dpkg-parsechangelog -l packaging/changelog.Debian -SVersion)"
cl_date="$(date -u -d "$(dpkg-parsechangelog -l packaging/changelog.Debian -SDate)" +%F)"
[ "$version" = "$cl_version" ] || fail "package version $version, newest changelog.Debian entry $cl_version"
release="$(grep -m1 -o '<release [^>]*>' packaging/io.mechstudio.MechStudio.metainfo.xml)"
[[ "$release" == *"version=\"${cl_version%-*}\""* && "$release" == *"date=\"$cl_date\""* ]] ||
  fail "newest metainfo release ($release) is not the newest changelog.Debian entry (${cl_version%-*}, $cl_date)"
say "version $version, released $cl_date (changelog.Debian and metainfo agree)"

# ---- 4. validators on the packaged files ---------------------------------------------------------
mkdir "$work/root"
dpkg-deb -x "$deb" "$work/root"
# Strict: any message of desktop-file-validate (errors, warnings, hints) and any AppStream issue
# above the pedantic level fails.
validate_desktop() {
  local out
  out="$(desktop-file-validate "$1" 2>&1)" || { echo "$out"; return 1; }
  [ -z "$out" ] || { echo "$out"; return 1; }
}
say "desktop-file-validate"
validate_desktop "$work/root/usr/share/applications/io.mechstudio.MechStudio.desktop" || fail "desktop-file-validate"
say "appstreamcli validate --no-net --strict"
appstreamcli validate --no-net --strict "$work/root/usr/share/metainfo/io.mechstudio.MechStudio.metainfo.xml" ||
  fail "appstreamcli validate"
# ... and the metainfo together with the desktop entry it launches.
appstreamcli validate-tree --no-net --strict "$work/root" >/dev/null || fail "appstreamcli validate-tree"
for size in 16 24 32 48 64 128 256; do  # every PNG has the size of its directory
  png="$work/root/usr/share/icons/hicolor/${size}x${size}/apps/io.mechstudio.MechStudio.png"
  dims="$(od -An -tu1 -j16 -N8 "$png" | awk '{print $3*256+$4 "x" $7*256+$8}')"
  [ "$dims" = "${size}x${size}" ] || fail "$png is $dims"
done

# ---- 5. install, run, remove ---------------------------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    SUDO=(sudo -n)
    "${SUDO[@]}" true 2>/dev/null || SUDO=(sudo)  # may ask for a password when run by hand
  else
    if [ -n "${CI:-}" ]; then fail "installing needs root: not root and no sudo (CI=$CI)"; fi
    say "SKIPPED the install test: it needs root for dpkg and apt-get, and this is not root and has no sudo"
    skipped=" (without the install test)"
    exit 0
  fi
fi
if dpkg-query -W -f='${Status}' mechstudio 2>/dev/null | grep -q "installed"; then
  fail "mechstudio is already installed here: remove it first (dpkg -r mechstudio), the test installs and removes its own"
fi

dpkg-query -W -f='${Package}\n' | sort >"$work/before"
say "dpkg -i"
installed=1
if ! "${SUDO[@]}" dpkg -i "$deb" >"$work/dpkg.log" 2>&1; then
  cat "$work/dpkg.log"
  say "dpkg -i failed: apt-get -f install"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get -f install"; }
fi
dpkg-query -W -f='${Package}\n' | sort >"$work/after"
mapfile -t extra < <(comm -13 "$work/before" "$work/after" | grep -vx mechstudio || true)
dpkg-query -W -f='${Status}' mechstudio | grep -q "install ok installed" || fail "mechstudio is not installed after dpkg -i"
dpkg --verify mechstudio || fail "dpkg --verify: installed files differ from the package's md5sums"

say "installed mechstudio-cli"
out="$(/usr/bin/mechstudio-cli --version)"
[ "$out" = "mechstudio-cli ${version%-*}" ] || fail "mechstudio-cli --version printed '$out'"
/usr/bin/mechstudio-cli simulate scene:double-pendulum --steps 10 --quiet --csv "$work/steps.csv" ||
  fail "mechstudio-cli simulate"
[ "$(wc -l <"$work/steps.csv")" -eq 12 ] || fail "simulate --steps 10 wrote $(wc -l <"$work/steps.csv") lines, expected 12"
/usr/bin/mechstudio-cli check /usr/share/mechstudio/models/urdf/two-link-arm.urdf >/dev/null ||
  fail "mechstudio-cli check on an installed example"
if [ $python_module -eq 1 ]; then
  say "installed Python module"
  (cd "$work" && /usr/bin/python3 -c '
import mechstudio
sim = mechstudio.Simulation("scene:double-pendulum")
sim.step(10)
assert sim.steps == 10 and sim.positions.shape == (2, 3), sim.positions
') || fail "import mechstudio (installed) and step scene:double-pendulum"
fi

say "installed mechstudio --screenshot (xvfb-run)"
mkdir -p "$work/home/config" "$work/home/data" "$work/home/cache" "$work/home/runtime"
chmod 700 "$work/home/runtime"
# A home of its own: the run leaves no settings or caches in the user's.
HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" XDG_DATA_HOME="$work/home/data" \
  XDG_CACHE_HOME="$work/home/cache" XDG_RUNTIME_DIR="$work/home/runtime" \
  timeout 120 xvfb-run -a -s "-screen 0 1280x800x24" \
  /usr/bin/mechstudio /usr/share/mechstudio/models/four-bar.mech --screenshot "$work/four-bar.png" --steps 50 \
  >"$work/gui.log" 2>&1 || { cat "$work/gui.log"; fail "mechstudio --screenshot"; }
shot_size=$(stat -c %s "$work/four-bar.png" 2>/dev/null || echo 0)
[ "$shot_size" -gt 10000 ] || fail "the screenshot has $shot_size bytes (expected > 10 kB)"
say "screenshot of the four-bar: $shot_size bytes"
if [ -n "${PACKAGE_TEST_KEEP_SCREENSHOT:-}" ]; then cp "$work/four-bar.png" "$PACKAGE_TEST_KEEP_SCREENSHOT"; fi

if command -v update-mime-database >/dev/null; then  # shared-mime-info's trigger has run
  grep -qx 'text/x-mechstudio:\*\.mech' /usr/share/mime/globs ||
    fail "the MIME database has no *.mech after installing"
  say "MIME database: *.mech is text/x-mechstudio"
fi
say "installed desktop entry and metainfo"
validate_desktop /usr/share/applications/io.mechstudio.MechStudio.desktop || fail "desktop-file-validate (installed)"
appstreamcli validate --no-net --strict /usr/share/metainfo/io.mechstudio.MechStudio.metainfo.xml >/dev/null ||
  fail "appstreamcli validate (installed)"
# cleanup (trap) removes the package

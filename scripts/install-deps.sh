#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs every Debian 12 package MechStudio needs to build, test and run.
# Idempotent: packages already present are skipped by apt.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  clang libclang-rt-14-dev
  libeigen3-dev
  qt6-base-dev libqt6opengl6-dev qt6-tools-dev qt6-svg-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  libopenscenegraph-dev openscenegraph
  liburdfdom-dev libtinyxml2-dev
  libqhull-dev  # convex hulls of collision meshes (engine/contact/convex_hull.cc, reentrant libqhull_r)
  libboost-dev  # header-only Boost (contact geometry)
  libmujoco-dev  # optional for the build: the MuJoCo comparison copy (--integrator mujoco)
  libdart-dev libode-dev  # optional: the peer benchmark (benchmarks/peers, mechstudio-peers)
  libbenchmark-dev
  pybind11-dev python3-dev python3-numpy python3-pytest  # the Python module (python/, MECHSTUDIO_BUILD_PYTHON) and its tests
  python3-pandas python3-distributed  # mechstudio.sweep: rollouts on Dask, results as DataFrames
  python3-matplotlib  # the figures of the Python examples (python/examples)
  python3
  xvfb xauth libgl1-mesa-dri fonts-dejavu-core
  # Packaging (packaging/CPack.cmake, scripts/package-test.sh):
  librsvg2-bin  # rsvg-convert: the PNG sizes of the application icon, rendered from its SVG at build time
  help2man  # the man pages of mechstudio and mechstudio-cli, generated at build time from --help/--version
  file  # CPack's DEB generator finds the ELF files for dpkg-shlibdeps (Depends:) with it
  lintian  # checks the .deb against Debian policy
  desktop-file-utils  # desktop-file-validate: the desktop entry
  appstream  # appstreamcli validate: the AppStream metainfo
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

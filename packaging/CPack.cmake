# SPDX-License-Identifier: GPL-3.0-or-later
# Debian package of MechStudio. Included at the end of the top-level CMakeLists.txt (after the
# targets and their install() rules):  include(packaging/CPack.cmake)
# Build it with:  cmake --build build && (cd build && cpack -G DEB)  →  build/mechstudio_<version>-<revision>_<arch>.deb
# Check it (lintian, contents, validators, install, run, remove): scripts/package-test.sh build
# (docs/packaging.md).
#
# Besides the programs (app/CMakeLists.txt) the package holds the desktop integration (desktop
# entry, AppStream metainfo, icons, MIME types), the man pages, the example models, and the Debian
# documentation files (copyright, changelog.Debian.gz, lintian overrides). The icon PNGs and the man
# pages are made at build time (targets mechstudio_icons and mechstudio_man, part of "all").

include(GNUInstallDirs)

# Directories created by installing get 0755 whatever the umask (lintian: non-standard-dir-perm);
# set in the top directory, it applies to the whole install (cmake_install.cmake of every directory).
set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(_pkg_src ${CMAKE_CURRENT_LIST_DIR})
set(_pkg_bin ${CMAKE_BINARY_DIR}/packaging)
set(_pkg_doc ${CMAKE_INSTALL_DATADIR}/doc/mechstudio)

# ---- version and date from the Debian changelog ------------------------------------------------
# packaging/changelog.Debian is the list of package versions: its newest entry gives the Debian
# revision (0.1.0-1 → 1) and, as SOURCE_DATE_EPOCH, the date in the man pages (reproducible builds).
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_pkg_src}/changelog.Debian)
file(STRINGS ${_pkg_src}/changelog.Debian _pkg_head LIMIT_COUNT 1)
if(NOT _pkg_head MATCHES "^mechstudio \\(([^)-]+)-([^)]+)\\) ")
  message(FATAL_ERROR "packaging/changelog.Debian: first line '${_pkg_head}' is not 'mechstudio (VERSION-REVISION) ...'")
endif()
set(_pkg_upstream ${CMAKE_MATCH_1})
set(_pkg_revision ${CMAKE_MATCH_2})
if(NOT _pkg_upstream STREQUAL PROJECT_VERSION)
  message(WARNING "packaging/changelog.Debian: newest entry is ${_pkg_upstream}-${_pkg_revision}, the project is "
                  "${PROJECT_VERSION}: add a changelog entry (and a <release> to the metainfo) before packaging")
endif()
set(_pkg_epoch "")
find_program(DPKG_PARSECHANGELOG dpkg-parsechangelog)
if(DPKG_PARSECHANGELOG)
  execute_process(COMMAND ${DPKG_PARSECHANGELOG} -l ${_pkg_src}/changelog.Debian -STimestamp
                  OUTPUT_VARIABLE _pkg_epoch OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
set(_pkg_env LC_ALL=C.UTF-8)
if(_pkg_epoch MATCHES "^[0-9]+$")
  list(APPEND _pkg_env SOURCE_DATE_EPOCH=${_pkg_epoch})
endif()

# ---- desktop integration (with the GUI) -------------------------------------------------------
if(TARGET mechstudio)
  install(FILES ${_pkg_src}/mechstudio.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications RENAME io.mechstudio.MechStudio.desktop)
  install(FILES ${_pkg_src}/io.mechstudio.MechStudio.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  # MIME types of .mech, .experiment and .trep (the desktop entry's MimeType=).
  install(FILES ${_pkg_src}/mechstudio-mime.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME io.mechstudio.MechStudio.xml)

  # The icon: the SVG for scalable themes and PNGs for the fixed sizes of the hicolor theme.
  # The PNGs are rendered at build time by rsvg-convert (Debian's librsvg2-bin): librsvg is the
  # renderer that desktops themselves use for SVG icons, so the PNGs look as the SVG does there; a
  # Qt Svg program would need no extra package but renders only SVG Tiny 1.2 and would be one more
  # target to build. Without rsvg-convert the build goes on without the PNGs (a warning here, and
  # scripts/package-test.sh fails).
  install(FILES ${_pkg_src}/io.mechstudio.MechStudio.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  find_program(RSVG_CONVERT rsvg-convert)
  if(RSVG_CONVERT)
    set(_pkg_pngs)
    foreach(size 16 24 32 48 64 128 256)
      set(png ${_pkg_bin}/icons/${size}x${size}/io.mechstudio.MechStudio.png)
      add_custom_command(OUTPUT ${png}
                         COMMAND ${CMAKE_COMMAND} -E make_directory ${_pkg_bin}/icons/${size}x${size}
                         COMMAND ${RSVG_CONVERT} --width ${size} --height ${size} --format png
                                 --output ${png} ${_pkg_src}/io.mechstudio.MechStudio.svg
                         DEPENDS ${_pkg_src}/io.mechstudio.MechStudio.svg
                         COMMENT "Rendering the ${size}x${size} application icon" VERBATIM)
      list(APPEND _pkg_pngs ${png})
      install(FILES ${png} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps)
    endforeach()
    add_custom_target(mechstudio_icons ALL DEPENDS ${_pkg_pngs})
  else()
    message(WARNING "rsvg-convert (Debian: librsvg2-bin) not found: the package will have no PNG icons")
  endif()

  # The example models, so that an installed application has files to open (the same models are
  # compiled into File ▸ Examples as Qt resources, ui/CMakeLists.txt). Kept as one tree: models
  # refer to their meshes and lessons to their models by relative paths. The READMEs go to the
  # documentation (lintian: package-contains-documentation-outside-usr-share-doc).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mechstudio/models
          PATTERN README.md EXCLUDE)
  install(FILES ${PROJECT_SOURCE_DIR}/models/README.md DESTINATION ${_pkg_doc} RENAME README.models.md)
endif()

# ---- man pages (help2man from --help and --version) --------------------------------------------
# help2man runs the programs just built; the GUI needs no display for --help with the offscreen
# platform. packaging/<program>.h2m adds the name line and sections that --help lacks. gzip -n: no
# name or time stamp in the .gz (reproducible). Not in sanitizer builds, which are never packaged.
find_program(HELP2MAN help2man)
if(HELP2MAN AND NOT MECHSTUDIO_SANITIZE)
  set(_pkg_mans)
  foreach(prog mechstudio-cli mechstudio)
    if(NOT TARGET ${prog})
      continue()
    endif()
    set(man ${_pkg_bin}/man/${prog}.1)
    add_custom_command(OUTPUT ${man}.gz
                       COMMAND ${CMAKE_COMMAND} -E make_directory ${_pkg_bin}/man
                       COMMAND ${CMAKE_COMMAND} -E env ${_pkg_env} QT_QPA_PLATFORM=offscreen
                               ${HELP2MAN} --no-info --include=${_pkg_src}/${prog}.h2m --output=${man}
                               $<TARGET_FILE:${prog}>
                       # Optional line breaks (roff \:) after the commas of the long CSV headers in
                       # mechstudio-cli --help, which groff cannot break otherwise (lintian: groff-message).
                       COMMAND sed -i -E "/[a-z_]+(,[a-z_]+){4,}/s/,/,\\\\:/g" ${man}
                       COMMAND gzip -9nf ${man}
                       DEPENDS ${prog} ${_pkg_src}/${prog}.h2m ${_pkg_src}/changelog.Debian
                       COMMENT "Generating the man page ${prog}(1)" VERBATIM)
    list(APPEND _pkg_mans ${man}.gz)
    install(FILES ${man}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endforeach()
  add_custom_target(mechstudio_man ALL DEPENDS ${_pkg_mans})
elseif(NOT HELP2MAN)
  message(WARNING "help2man (Debian: help2man) not found: the package will have no man pages")
endif()

# ---- Debian documentation files -----------------------------------------------------------------
# Machine-readable copyright (DEP-5), the Debian changelog (gzip -9n) and the lintian overrides,
# each justified in its file.
install(FILES ${_pkg_src}/copyright DESTINATION ${_pkg_doc})
add_custom_command(OUTPUT ${_pkg_bin}/changelog.Debian.gz
                   COMMAND ${CMAKE_COMMAND} -E copy ${_pkg_src}/changelog.Debian ${_pkg_bin}/changelog.Debian
                   COMMAND gzip -9nf ${_pkg_bin}/changelog.Debian
                   DEPENDS ${_pkg_src}/changelog.Debian
                   COMMENT "Compressing the Debian changelog" VERBATIM)
add_custom_target(mechstudio_changelog ALL DEPENDS ${_pkg_bin}/changelog.Debian.gz)
install(FILES ${_pkg_bin}/changelog.Debian.gz DESTINATION ${_pkg_doc})
install(FILES ${_pkg_src}/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME mechstudio)

# ---- the package ----------------------------------------------------------------------------------
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "mechstudio")
set(CPACK_PACKAGE_VENDOR "MechStudio")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "accurate multibody mechanism simulator")
# The extended description of the Debian control file: lines of at most 79 characters, a line of
# its own per paragraph break (CPack writes it as " .").
set(CPACK_PACKAGE_DESCRIPTION [=[
MechStudio simulates mechanisms of rigid bodies and joints - pendulums,
chains, linkages, closed kinematic loops, joint limits and bodies in contact
with the ground and with each other - with a variational integrator in
maximal coordinates: joint constraints are satisfied to solver tolerance at
every step instead of drifting, and the energy error stays bounded over long
runs.

This package contains the desktop application mechstudio (3D view, live
plots of energy and constraint violation, a model editor, history scrubbing,
lessons that compare integrators) and the command-line tool mechstudio-cli,
which runs simulations headless and writes CSV. Models are read from
MechStudio's own text format, trep's syntax, URDF and MuJoCo's MJCF, and
written as MechStudio text, URDF or MJCF; example models are installed in
/usr/share/mechstudio/models. The Python module mechstudio (import mechstudio)
steps the same engine from python3 with NumPy arrays in and out.]=])
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)  # stripped binaries (lintian: unstripped-binary-or-object)
# ... and without the .comment and .note sections, as dh_strip leaves them.
set(CPACK_MECHSTUDIO_STRIP "${CMAKE_STRIP}")
set(CPACK_PRE_BUILD_SCRIPTS "${_pkg_src}/strip-staged.cmake")

set(CPACK_DEBIAN_PACKAGE_RELEASE "${_pkg_revision}")  # 0.1.0-1: the version of changelog.Debian
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "MechStudio maintainers <maintainers@mechstudio.invalid>")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://mechstudio.io/")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends: computed by dpkg-shlibdeps from the binaries
if(MECHSTUDIO_PYTHON_DEPENDS)  # the Python module (python/CMakeLists.txt); shlibdeps adds the libraries
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${MECHSTUDIO_PYTHON_DEPENDS}")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "ffmpeg")  # File ▸ Record writes an MP4 when ffmpeg is installed
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)  # control files 0644, not the umask's
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # mechstudio_<version>-<revision>_<arch>.deb

include(CPack)

# SPDX-License-Identifier: GPL-3.0-or-later
# Debian package of MechStudio. Included at the end of the top-level CMakeLists.txt (after the
# targets and their install() rules):  include(packaging/CPack.cmake)
# Build it with:  cmake --build build && (cd build && cpack)   →  build/mechstudio_<version>_<arch>.deb

include(GNUInstallDirs)

# Desktop integration, once the GUI target exists (issue 4).
if(TARGET mechstudio)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/mechstudio.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications RENAME io.mechstudio.MechStudio.desktop)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/io.mechstudio.MechStudio.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/io.mechstudio.MechStudio.svg)
    install(FILES ${CMAKE_CURRENT_LIST_DIR}/io.mechstudio.MechStudio.svg
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  endif()
endif()
# Debian policy: the license goes to /usr/share/doc/<package>/copyright.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/../LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/mechstudio RENAME copyright)

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "mechstudio")
set(CPACK_PACKAGE_VENDOR "MechStudio")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Accurate multibody mechanism simulator (variational integrator)")
set(CPACK_PACKAGE_DESCRIPTION
    "MechStudio simulates mechanisms of rigid bodies and joints with a variational integrator in maximal coordinates: joint constraints do not drift and the energy error stays bounded. Includes the headless mechstudio-cli tool.")
set(CPACK_RESOURCE_FILE_LICENSE "${CMAKE_CURRENT_LIST_DIR}/../LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_PACKAGE_MAINTAINER "MechStudio maintainers <maintainers@mechstudio.invalid>")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends: computed by dpkg-shlibdeps from the binaries
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # mechstudio_<version>_<arch>.deb

include(CPack)

# CPack: `cpack --config build/<preset>/CPackConfig.cmake` (or `cmake --build ... --target package`)
# builds one Debian package and one .tar.gz per component (packaging/CMakeLists.txt lists what each
# installs). Runtime dependencies come from dpkg-shlibdeps over the installed binaries, so the
# ckpt-tool package depends on no Qt library (tests/release checks it).
set(CPACK_PACKAGE_NAME "ckpt")
set(CPACK_PACKAGE_VENDOR "the ckpt authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "${CKPT_MAINTAINER}")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_COMPONENTS_ALL ckpt-tool ckpt-engine ckpt-inspector)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_FILE_NAME "ckpt-${PROJECT_VERSION}")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_SET_DESTDIR OFF)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CKPT_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_DEBIAN_COMPRESSION_TYPE "xz")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_CKPT-TOOL_PACKAGE_NAME "ckpt-tool")
set(CPACK_DEBIAN_CKPT-TOOL_PACKAGE_SECTION "utils")
set(CPACK_COMPONENT_CKPT-TOOL_DESCRIPTION
    "inspect, validate and repair stream-processing checkpoints offline\nckpt-tool reads checkpoints and savepoints of Apache Flink-style stream\nprocessing jobs without a JVM or a cluster: list, show, dump, validate\nagainst a job spec (JUnit and GitHub Actions output for CI), statistics,\ndiff, prune, remap and relocate. Exit codes: 0 clean, 1 findings, 2 usage or\nI/O error.")
set(CPACK_DEBIAN_CKPT-ENGINE_PACKAGE_NAME "ckpt-engine")
set(CPACK_COMPONENT_CKPT-ENGINE_DESCRIPTION
    "reference stream-processing engine with Flink-style checkpoints\nckpt-engine runs jobs defined in a JSON job spec with aligned or\nat-least-once checkpoints, savepoints, stop-with-savepoint, restore and\nrescale, writing the documented checkpoint format that ckpt-tool and\nckpt-inspector read.")
set(CPACK_DEBIAN_CKPT-INSPECTOR_PACKAGE_NAME "ckpt-inspector")
set(CPACK_DEBIAN_CKPT-INSPECTOR_PACKAGE_SECTION "devel")
set(CPACK_COMPONENT_CKPT-INSPECTOR_DESCRIPTION
    "desktop inspector for stream-processing checkpoints (Qt 6)\nckpt-inspector opens a checkpoint or savepoint and shows its operators,\nstate sizes as a treemap, key-group skew charts, files with a hex view and\nevery key and value; it validates, compares, remaps and prunes snapshots in\nthe background.")
include(CPack)

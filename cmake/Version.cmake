# The one version number: project(ckpt VERSION ...) in the top-level CMakeLists.txt, exposed to C++
# as <ckpt/version.h> (ckpt::kVersion, CKPT_VERSION_STRING) through the ckpt::version target.
configure_file(${CMAKE_CURRENT_LIST_DIR}/ckpt_version.h.in
               ${CMAKE_BINARY_DIR}/generated/ckpt/version.h @ONLY)
add_library(ckpt_version INTERFACE)
add_library(ckpt::version ALIAS ckpt_version)
target_include_directories(ckpt_version INTERFACE ${CMAKE_BINARY_DIR}/generated)

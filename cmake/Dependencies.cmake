# Every third-party dependency comes from a Debian 12 package (see scripts/install-deps.sh).
# Foreign libraries are wrapped in ckpt_dep:: targets here, in one place.
find_package(Threads REQUIRED)
find_package(Protobuf 3.21 REQUIRED)
find_package(zstd REQUIRED CONFIG)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
find_package(Snappy REQUIRED CONFIG)  # Flink's compressed key groups (format/flink)

add_library(ckpt_dep_zstd INTERFACE)
if(TARGET zstd::libzstd_shared)
  target_link_libraries(ckpt_dep_zstd INTERFACE zstd::libzstd_shared)
else()
  target_link_libraries(ckpt_dep_zstd INTERFACE zstd::libzstd_static)
endif()
add_library(ckpt_dep::zstd ALIAS ckpt_dep_zstd)
add_library(ckpt_dep::xxhash ALIAS PkgConfig::XXHASH)

# Optional parts: each is found quietly and the part that needs it checks for the target.
find_package(RocksDB CONFIG QUIET)
# One RocksDB for the whole process: the engine's backend and the tools' Flink reader both link
# ckpt_dep::rocksdb. Linking Debian's librocksdb.a into one and librocksdb.so into the other gave
# a binary with two copies of RocksDB's globals (a double free at exit).
if(TARGET RocksDB::rocksdb-shared OR TARGET RocksDB::rocksdb)
  add_library(ckpt_dep_rocksdb INTERFACE)
  if(TARGET RocksDB::rocksdb-shared)
    target_link_libraries(ckpt_dep_rocksdb INTERFACE RocksDB::rocksdb-shared)
  else()
    target_link_libraries(ckpt_dep_rocksdb INTERFACE RocksDB::rocksdb)
  endif()
  add_library(ckpt_dep::rocksdb ALIAS ckpt_dep_rocksdb)
endif()
find_package(CLI11 CONFIG QUIET)
find_path(HTTPLIB_INCLUDE_DIR httplib.h)
# The engine's REST endpoint (engine/src/rest): cpp-httplib (built as a shared library by Debian,
# libcpp-httplib-dev; its pkg-config file carries the feature defines the header must see) and
# nlohmann-json3-dev for the JSON bodies.
pkg_check_modules(CPP_HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
add_library(ckpt_dep::httplib ALIAS PkgConfig::CPP_HTTPLIB)
find_package(nlohmann_json 3.10 REQUIRED CONFIG)
add_library(ckpt_dep_json INTERFACE)
target_link_libraries(ckpt_dep_json INTERFACE nlohmann_json::nlohmann_json)
add_library(ckpt_dep::json ALIAS ckpt_dep_json)
if(CKPT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(CKPT_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
if(CKPT_BUILD_GUI)
  find_package(Qt6 6.4 COMPONENTS Core Gui Widgets Concurrent Network Test)
  if(NOT Qt6_FOUND)
    message(WARNING "Qt 6 not found: the inspector is not built")
    set(CKPT_BUILD_GUI OFF)
  endif()
endif()

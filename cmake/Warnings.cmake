# ckpt_set_warnings(target): the warning set for the project's own code (never third-party code).
function(ckpt_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
                                           -Wnull-dereference -Wimplicit-fallthrough)
  # A unity build compiles each .cpp as if included from a header, so GCC's -Wsubobject-linkage
  # (a class in a header with a member of an anonymous-namespace type) fires on classes that are
  # defined in their own .cpp. The dev preset compiles one file per unit and keeps it.
  if(CMAKE_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
  if(CKPT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# False warnings of GCC 12 at -O2 (the release preset) from libstdc++ code inlined into ours:
# -Wnull-dereference, -Wrestrict and -Wmaybe-uninitialized fire on paths the optimizer invents
# inside std::string, std::vector, std::optional and std::function (e.g. GCC bugs 105329 and
# 105651 for -Wrestrict in basic_string). They are silenced per file, for GCC only, with the
# reason recorded; everything else stays on. A real warning is fixed, never listed here.
# scripts/test.sh fails when the release build prints any warning.
#   ckpt_silence_false_warnings(TARGET <target> FILES <source>... WARNINGS <name>... REASON <text>)
set_property(GLOBAL PROPERTY CKPT_FALSE_WARNING_SILENCES "")
function(ckpt_silence_false_warnings)
  cmake_parse_arguments(arg "" "TARGET;REASON" "FILES;WARNINGS" ${ARGN})
  if(NOT arg_TARGET OR NOT arg_WARNINGS OR NOT arg_REASON)
    message(FATAL_ERROR "ckpt_silence_false_warnings needs TARGET, WARNINGS and REASON")
  endif()
  string(REPLACE ";" "," files "${arg_FILES}")
  string(REPLACE ";" "," warnings "${arg_WARNINGS}")
  set_property(GLOBAL APPEND PROPERTY CKPT_FALSE_WARNING_SILENCES "${arg_TARGET}|${files}|${warnings}")
endfunction()

# Applied once every target exists (targets are defined after this file is included).
function(ckpt_apply_false_warning_silences)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    return()
  endif()
  get_property(entries GLOBAL PROPERTY CKPT_FALSE_WARNING_SILENCES)
  foreach(entry IN LISTS entries)
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 target)
    list(GET parts 1 files)
    list(GET parts 2 warnings)
    if(NOT TARGET ${target})
      continue()
    endif()
    string(REPLACE "," ";" files "${files}")
    string(REPLACE "," ";" warnings "${warnings}")
    set(flags "")
    foreach(w IN LISTS warnings)
      list(APPEND flags "-Wno-${w}")
    endforeach()
    if(files)
      get_target_property(dir ${target} SOURCE_DIR)
      foreach(f IN LISTS files)
        set_property(SOURCE ${dir}/${f} TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS ${flags})
      endforeach()
    else()
      target_compile_options(${target} PRIVATE ${flags})
    endif()
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL ckpt_apply_false_warning_silences)

# ---- the list (file paths relative to the target's source directory) ----
ckpt_silence_false_warnings(TARGET ckpt-engine FILES cli/main.cpp WARNINGS null-dereference
  REASON "GCC 12 -O2: std::string::_M_data() inlined from CLI11's detail::split (CLI/StringTools.hpp) into the option setup; no pointer of ours is involved")
ckpt_silence_false_warnings(TARGET ckpt_ops FILES src/read/dump.cpp WARNINGS null-dereference
  REASON "GCC 12 -O2: std::vector<bool>::push_back's _Bit_reference inlined from JsonWriter::Open; the vector is never empty at that point")
ckpt_silence_false_warnings(TARGET ckpt-tool FILES cli/main.cpp cli/write_verb.cpp cli/cmd_validate.cpp
  WARNINGS null-dereference
  REASON "GCC 12 -O2: std::string::_M_data() inlined from CLI11's detail::split (CLI/StringTools.hpp), as in ckpt-engine's main (cmd_validate.cpp: once the unity batch put it beside the render_*.cpp files)")
ckpt_silence_false_warnings(TARGET ops_test FILES cli_test.cpp golden_util.cpp test_snapshots.cpp
  WARNINGS null-dereference
  REASON "GCC 12 -O2: std::basic_streambuf pointers inlined from std::ifstream/std::ostringstream (streambuf:490/493) in test helpers that read goldens and files")
ckpt_silence_false_warnings(TARGET ckpt_tool_s3_test WARNINGS null-dereference
  REASON "GCC 12 -O2: std::basic_streambuf pointers inlined from std::ifstream (streambuf:490/493) in ExpectGolden of ../golden_util.cpp, which the unity build compiles into the target's one translation unit")
ckpt_silence_false_warnings(TARGET integration_test FILES itcase_util.cpp WARNINGS null-dereference
  REASON "GCC 12 -O2: std::basic_streambuf pointers inlined from std::ifstream (streambuf:490/493) in the ITCase file readers")
ckpt_silence_false_warnings(TARGET engine_s3_test WARNINGS null-dereference
  REASON "GCC 12 -O2: std::basic_streambuf pointers inlined from std::ifstream (streambuf:490/493) in ../itcase_util.cpp's file readers, which the unity build compiles into the target's one translation unit")

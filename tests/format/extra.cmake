# Format checks beyond the GoogleTest binary (included by tests/format/CMakeLists.txt).

# FORMAT.md's `protoc --decode` recipe, run verbatim on the frozen savepoint fixture.
find_program(CKPT_BASH bash)
add_test(NAME format_protoc_recipe
         COMMAND ${CKPT_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/protoc_recipe_test.sh ${PROJECT_SOURCE_DIR}
                 $<TARGET_FILE:protobuf::protoc>)
set_tests_properties(format_protoc_recipe PROPERTIES LABELS "format" TIMEOUT 60)

# The fixture generator reproduces the committed fixtures byte for byte.
if(TARGET ckpt-fixture-gen)
  add_test(NAME format_fixtures_frozen
           COMMAND ${CKPT_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fixtures_frozen_test.sh
                   ${PROJECT_SOURCE_DIR} $<TARGET_FILE:ckpt-fixture-gen>)
  set_tests_properties(format_fixtures_frozen PROPERTIES LABELS "format" TIMEOUT 60)
endif()

# The demo runs end to end (writes, verifies every checksum, prints).
if(TARGET ckpt-format-demo)
  add_test(NAME format_demo_runs COMMAND ckpt-format-demo ${CMAKE_CURRENT_BINARY_DIR}/demo-out)
  set_tests_properties(format_demo_runs PROPERTIES LABELS "format" TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "uid hash=a2469328b540934507249cbf9b294c51")
endif()

# cmake -DBIN=<binary> -DKIND=<tool|engine|inspector> -DOUT_DIR=<dir> -P GenerateMan.cmake
# Runs the binary's own man-page writer (its CLI definition is the only source) and gzips each
# page as Debian policy wants (gzip -9n: no timestamp, reproducible).
file(REMOVE_RECURSE ${OUT_DIR})
file(MAKE_DIRECTORY ${OUT_DIR})
if(KIND STREQUAL "inspector")
  # No display needed: --man is answered before a QApplication exists.
  set(ENV{QT_QPA_PLATFORM} "offscreen")
  execute_process(COMMAND ${BIN} --man OUTPUT_FILE ${OUT_DIR}/ckpt-inspector.1
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
else()
  execute_process(COMMAND ${BIN} help --man-dir ${OUT_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err)
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN}: writing the man pages failed (${rc}): ${err}")
endif()
file(GLOB pages ${OUT_DIR}/*.1)
if(NOT pages)
  message(FATAL_ERROR "${BIN} wrote no man page into ${OUT_DIR}")
endif()
foreach(page IN LISTS pages)
  execute_process(COMMAND gzip -9nf ${page} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip ${page} failed")
  endif()
endforeach()

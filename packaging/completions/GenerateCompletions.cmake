# cmake -DBIN=<ckpt-tool> -DOUT_DIR=<dir> -P GenerateCompletions.cmake
# Writes the bash, zsh and fish completion scripts that `ckpt-tool completion SHELL` generates from
# the CLI definition, under the names each shell's vendor directory expects.
file(MAKE_DIRECTORY ${OUT_DIR})
foreach(pair "bash;ckpt-tool" "zsh;_ckpt-tool" "fish;ckpt-tool.fish")
  list(GET pair 0 shell)
  list(GET pair 1 name)
  execute_process(COMMAND ${BIN} completion ${shell} OUTPUT_FILE ${OUT_DIR}/${name}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} completion ${shell} failed (${rc}): ${err}")
  endif()
endforeach()

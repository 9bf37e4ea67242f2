# ckpt_set_warnings(target): the warning set for the project's own code (never third-party code).
function(ckpt_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
                                           -Wnull-dereference -Wimplicit-fallthrough)
  if(CKPT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Warning flags for every btaudit target.
function(btaudit_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wcast-align -Wunused -Woverloaded-virtual -Wnull-dereference
                                           -Wimplicit-fallthrough)
  if(BTAUDIT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Warning flags for every btaudit target.
function(btaudit_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wcast-align -Wunused -Woverloaded-virtual
                                           -Wimplicit-fallthrough)
  # Not -Wnull-dereference: GCC 12 reports false positives at -O2 inside
  # boost::program_options' typed_value::notify (any_cast), in our own TUs.
  if(BTAUDIT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Run by ctest (tests/CMakeLists.txt, btaudit_test_suites): every top-level test unit of a
# Boost.Test executable must be a suite that is registered as a ctest test. ctest runs each
# suite by name (--run_test=SUITE), so a test case left outside its suite, or a suite missing
# from the SUITES list, would compile and never run.
#   cmake -DEXE=path -DSUITES="a;b;c" -P check_suites.cmake
execute_process(COMMAND "${EXE}" --list_content OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --list_content failed (${rc}): ${err}")
endif()
string(REPLACE "\n" ";" lines "${out}${err}")
set(unrun "")
foreach(line IN LISTS lines)
  # Top-level units are the unindented lines, "name*" (the '*' marks an enabled unit).
  if(line MATCHES "^([A-Za-z_0-9]+)\\*?$")
    list(FIND SUITES "${CMAKE_MATCH_1}" at)
    if(at EQUAL -1)
      list(APPEND unrun "${CMAKE_MATCH_1}")
    endif()
  endif()
endforeach()
if(unrun)
  message(FATAL_ERROR "${EXE}: top-level test units no ctest test runs (outside a registered suite): ${unrun}")
endif()

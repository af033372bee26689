# Runs PROGRAM (through RUNNER when cross-compiled) and fails unless its output equals EXPECTED.
execute_process(COMMAND ${RUNNER} ${PROGRAM} OUTPUT_VARIABLE actual RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${status}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "output of ${PROGRAM} differs from ${EXPECTED}:\n${actual}")
endif()

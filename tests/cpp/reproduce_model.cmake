# Retrains a shipped model with the documented command (TRAIN TASK --out OUT) and fails unless
# the three files equal the committed ones in SHIPPED byte for byte.
execute_process(COMMAND ${TRAIN} ${TASK} --out ${OUT} --eval 0 RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "attnlab-train ${TASK} exited with ${status}")
endif()
foreach(file config.json model.safetensors vocab.json)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${file} ${SHIPPED}/${file} RESULT_VARIABLE differs)
  if(differs)
    message(FATAL_ERROR "retrained ${TASK}/${file} differs from the shipped one")
  endif()
endforeach()

# onnxc_add_model(<target> <model.onnx> [NAME <prefix>] [OPTIONS <onnxc flags>...]
#                 [DEPENDS <files>...])
#
# Compiles <model.onnx> to C with onnxc and adds the generated file to <target>. The C is
# regenerated whenever the model, the onnxc executable or one of the DEPENDS files (e.g. a
# --custom-ops spec file; relative paths are from the current source dir) changes. The generated
# header <prefix>.h lands in a directory added to <target>'s include path; <target> is linked
# with onnxc::onnxc_rt. onnxc runs in the current binary dir: give file paths in OPTIONS as
# absolute paths (${CMAKE_CURRENT_SOURCE_DIR}/ops.txt).
function(onnxc_add_model target model)
  cmake_parse_arguments(ARG "" "NAME" "OPTIONS;DEPENDS" ${ARGN})
  get_filename_component(model_abs "${model}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT ARG_NAME)
    get_filename_component(ARG_NAME "${model}" NAME_WE)
  endif()
  if(NOT ONNXC_EXECUTABLE)
    message(FATAL_ERROR "onnxc_add_model: ONNXC_EXECUTABLE is not set (use find_package(onnxc))")
  endif()
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/onnxc_${ARG_NAME}")
  file(MAKE_DIRECTORY "${out_dir}")
  set(deps "${model_abs}")
  foreach(dep ${ARG_DEPENDS})
    get_filename_component(dep_abs "${dep}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND deps "${dep_abs}")
  endforeach()
  if(TARGET "${ONNXC_EXECUTABLE}")
    set(cmd $<TARGET_FILE:${ONNXC_EXECUTABLE}>)
    list(APPEND deps ${ONNXC_EXECUTABLE})
  else()
    set(cmd "${ONNXC_EXECUTABLE}")
    list(APPEND deps "${ONNXC_EXECUTABLE}")
  endif()
  add_custom_command(
    OUTPUT "${out_dir}/${ARG_NAME}.c" "${out_dir}/${ARG_NAME}.h"
    COMMAND ${cmd} "${model_abs}" -o "${out_dir}/${ARG_NAME}.c" --name "${ARG_NAME}" ${ARG_OPTIONS}
    DEPENDS ${deps}
    COMMENT "onnxc ${model} -> ${ARG_NAME}.c"
    VERBATIM)
  target_sources(${target} PRIVATE "${out_dir}/${ARG_NAME}.c")
  target_include_directories(${target} PRIVATE "${out_dir}")
  if(TARGET onnxc::onnxc_rt)
    target_link_libraries(${target} PRIVATE onnxc::onnxc_rt)
  elseif(TARGET onnxc_rt)
    target_link_libraries(${target} PRIVATE onnxc_rt)
  endif()
endfunction()

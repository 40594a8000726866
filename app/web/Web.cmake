# The browser app: build-web/site/ is the whole static site (index.html, attnscope.js,
# attnscope.wasm, attnscope.data: the GPT-2 vocabulary, lessons, shaders, colour maps
# and fonts). Dear ImGui's sources come from Debian's source package: scripts/web.sh
# fetches them into IMGUI_SOURCE_DIR (nothing of imgui's is committed).
set(IMGUI_SOURCE_DIR "" CACHE PATH "Dear ImGui 1.86's sources (scripts/web.sh fetches them)")
if(NOT EXISTS ${IMGUI_SOURCE_DIR}/imgui_widgets.cpp)
  message(STATUS "The browser app is not built: IMGUI_SOURCE_DIR holds no Dear ImGui sources")
  return()
endif()

add_library(imgui STATIC ${IMGUI_SOURCE_DIR}/imgui.cpp ${IMGUI_SOURCE_DIR}/imgui_draw.cpp
            ${IMGUI_SOURCE_DIR}/imgui_tables.cpp ${IMGUI_SOURCE_DIR}/imgui_widgets.cpp
            ${IMGUI_SOURCE_DIR}/misc/cpp/imgui_stdlib.cpp ${IMGUI_SOURCE_DIR}/backends/imgui_impl_glfw.cpp
            ${IMGUI_SOURCE_DIR}/backends/imgui_impl_opengl3.cpp)
target_include_directories(imgui PUBLIC ${IMGUI_SOURCE_DIR} ${IMGUI_SOURCE_DIR}/misc/cpp)
target_compile_definitions(imgui PUBLIC IMGUI_IMPL_OPENGL_ES3)  # WebGL2 is OpenGL ES 3.0
target_compile_options(imgui PRIVATE -w)                        # Debian's sources, as they are
# The backend's state queries answered without stalling on the GPU process, its vertices
# in new storage each frame (web/imgui_backend_gl.cpp).
set_source_files_properties(${IMGUI_SOURCE_DIR}/backends/imgui_impl_opengl3.cpp PROPERTIES COMPILE_DEFINITIONS
  "glGetIntegerv=attnscope_imgui_get_integerv;glScissor=attnscope_imgui_scissor;glBlendEquation=attnscope_imgui_blend_equation;glBlendEquationSeparate=attnscope_imgui_blend_equation_separate;glBlendFuncSeparate=attnscope_imgui_blend_func_separate;glBufferSubData=attnscope_imgui_buffer_sub_data")

list(REMOVE_ITEM APP_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/main.cpp
     ${CMAKE_CURRENT_SOURCE_DIR}/graphics/driver_pinning.cpp)  # the desktop's main and Mesa's workaround
list(APPEND APP_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/web/main.cpp ${CMAKE_CURRENT_SOURCE_DIR}/web/stb_image_write.cpp
     ${CMAKE_CURRENT_SOURCE_DIR}/web/imgui_backend_gl.cpp
     ${CMAKE_CURRENT_SOURCE_DIR}/platform/web.cpp ${CMAKE_CURRENT_SOURCE_DIR}/platform/web_hub.cpp)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/web/stb_image_write.cpp PROPERTIES COMPILE_OPTIONS
                            -Wno-missing-field-initializers)  # Debian's stb, as it is
add_executable(attnscope-web ${APP_SOURCES})
target_include_directories(attnscope-web PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${host_headers}/stb)
target_link_libraries(attnscope-web PRIVATE attnstate attncore imgui)
attnscope_precompile_headers(attnscope-web <imgui.h>)
set(site ${CMAKE_BINARY_DIR}/site)
set_target_properties(attnscope-web PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${site} OUTPUT_NAME attnscope)
# The page's files lie in its file system as an installed tree (core/base/data_dir.cpp):
# /share/attnscope, and the fonts where Debian puts them (graphics/fonts.cpp).
set(fonts /usr/share/fonts/truetype)
set(preload
  ${CMAKE_SOURCE_DIR}/assets/gpt2@/share/attnscope/gpt2
  ${CMAKE_SOURCE_DIR}/assets/lessons@/share/attnscope/lessons
  ${CMAKE_SOURCE_DIR}/shaders@/share/attnscope/shaders
  ${fonts}/dejavu/DejaVuSans.ttf@${fonts}/dejavu/DejaVuSans.ttf
  ${fonts}/dejavu/DejaVuSans-Bold.ttf@${fonts}/dejavu/DejaVuSans-Bold.ttf
  ${fonts}/droid/DroidSansFallbackFull.ttf@${fonts}/droid/DroidSansFallbackFull.ttf)
list(TRANSFORM preload PREPEND "--preload-file=")
target_link_options(attnscope-web PRIVATE -sUSE_GLFW=3 -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2
                    -sENVIRONMENT=web -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB ${preload}
                    --pre-js ${CMAKE_CURRENT_SOURCE_DIR}/web/hub.js)  # the Hub's downloads (platform/web_hub.cpp)
file(GLOB site_data CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/assets/gpt2/* ${CMAKE_SOURCE_DIR}/assets/lessons/*
     ${CMAKE_SOURCE_DIR}/shaders/*)
set_property(TARGET attnscope-web APPEND PROPERTY LINK_DEPENDS ${site_data} ${CMAKE_CURRENT_SOURCE_DIR}/web/index.html
             ${CMAKE_CURRENT_SOURCE_DIR}/web/hub.js)  # relinked when they change
# The shipped models are downloaded only when chosen (platform/web.cpp): their files lie
# beside the page, and the page knows their sizes before it asks (shipped_bytes.inc).
# Every folder of assets/models/ (core/model/model_source.cpp's shipped_models() names them).
set(shipped_rows "")
file(GLOB shipped_dirs LIST_DIRECTORIES true CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/assets/models/*)
foreach(shipped ${shipped_dirs})
  get_filename_component(name ${shipped} NAME)
  file(SIZE ${shipped}/config.json config_bytes)
  file(SIZE ${shipped}/model.safetensors weights_bytes)
  math(EXPR shipped_bytes "${config_bytes} + ${weights_bytes}")
  string(APPEND shipped_rows "{\"${name}\", ${shipped_bytes}.0},\n")
  add_custom_command(TARGET attnscope-web POST_BUILD
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${site}/models/${name}
                     COMMAND ${CMAKE_COMMAND} -E copy_if_different ${shipped}/config.json ${shipped}/model.safetensors
                             ${shipped}/MODEL_CARD.md ${site}/models/${name}/)
endforeach()
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/generated/shipped_bytes.inc CONTENT "${shipped_rows}")
target_include_directories(attnscope-web PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/generated)
add_custom_command(TARGET attnscope-web POST_BUILD COMMAND ${CMAKE_COMMAND} -E copy_if_different
                   ${CMAKE_CURRENT_SOURCE_DIR}/web/index.html ${site}/index.html)

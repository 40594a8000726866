# The web build (scripts/web.sh runs `emcmake cmake`): the engine and attnscope-cli as
# WebAssembly, run by node, and the app as a page (app/web/Web.cmake, in WebGL2). No
# OpenBLAS and no OpenMP there: the engine's products are its own in wasm's 128-bit SIMD
# (numerics/gemm_simd128.cpp) and, below 16 rows, Eigen's (numerics/gemm_eigen.cpp).
#
# Debian's header-only libraries are used as they are installed, but each from its own
# folder: adding /usr/include itself would put the host's C library before emscripten's.
set(ATTNSCOPE_BENCH OFF CACHE BOOL "" FORCE)  # Google Benchmark is built for the host
set(ATTNSCOPE_BLAS OFF CACHE BOOL "" FORCE)
set(host_headers ${CMAKE_BINARY_DIR}/host-headers)
file(MAKE_DIRECTORY ${host_headers})
foreach(dir nlohmann catch2 stb)
  file(CREATE_LINK /usr/include/${dir} ${host_headers}/${dir} SYMBOLIC)
endforeach()
add_library(Eigen3::Eigen INTERFACE IMPORTED)
target_include_directories(Eigen3::Eigen INTERFACE /usr/include/eigen3)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${host_headers})

# C++ exceptions carry every bad-input message (the CLI's exit 2); emscripten leaves them
# off unless asked. -msimd128: Eigen's products and the softmax in wasm SIMD.
add_compile_options(-fexceptions -msimd128)
add_link_options(-fexceptions)
# Programs for node: the real file system (the data folder, files named on the command
# line), memory that grows as a long text needs it, the .wasm loaded synchronously (node
# 20 cannot fetch a file:// URL), and the process's exit code passed on.
set(ATTNSCOPE_NODE_LINK_OPTIONS -sENVIRONMENT=node -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1
    -sMAXIMUM_MEMORY=4GB -sWASM_ASYNC_COMPILATION=0 -sEXIT_RUNTIME=1)

# Oniguruma (text/onig_regex.h: a tokenizer.json's regex, as Hugging Face's tokenizers runs
# it) is plain C: its sources come from Debian's source package, fetched by scripts/web.sh
# into build-web/oniguruma (nothing of it is committed), and build here with its own
# CMakeLists as a static library for WebAssembly.
if(NOT ONIGURUMA_SOURCE_DIR OR NOT EXISTS ${ONIGURUMA_SOURCE_DIR}/src/oniguruma.h)
  message(FATAL_ERROR "the web build needs Oniguruma's sources: -DONIGURUMA_SOURCE_DIR=DIR (scripts/web.sh fetches them)")
endif()
set(BUILD_SHARED_LIBS OFF CACHE BOOL "" FORCE)
set(INSTALL_DOCUMENTATION OFF CACHE BOOL "" FORCE)
add_subdirectory(${ONIGURUMA_SOURCE_DIR} ${CMAKE_BINARY_DIR}/oniguruma-build EXCLUDE_FROM_ALL)
target_compile_options(onig PRIVATE -w)  # its own code: its warnings are not ours to fix
add_library(attnscope::oniguruma ALIAS onig)

# Precompiled headers (the web build only): clang's front end is most of a file's time
# here (the headers parsed and their templates instantiated again for every file), and
# the engine's files compile in about a quarter less time with them. The native builds
# keep none, so each file is still compiled with only what it includes itself. Files with
# options of their own (-O0, -ffp-contract=off, ...) would not match the header's: skipped.
set(ATTNSCOPE_PRECOMPILED <Eigen/Core> <nlohmann/json.hpp> <algorithm> <cmath> <filesystem> <functional> <map>
    <memory> <optional> <sstream> <string> <vector>)
function(attnscope_precompile_headers target)
  target_precompile_headers(${target} PRIVATE ${ATTNSCOPE_PRECOMPILED} ${ARGN})
  get_target_property(sources ${target} SOURCES)
  foreach(source ${sources})
    get_source_file_property(own ${source} COMPILE_OPTIONS)
    if(own)
      set_source_files_properties(${source} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
endfunction()

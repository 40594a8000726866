# attnscope_python_scripts(TARGET SOURCE_DIR): compiles the project's Python scripts that
# the emitted GPT program quotes (scripts/book_gpt.py: the book's chapter 4 classes;
# scripts/gpt2_safetensors.py: the safetensors reader and chapter 5's loader; scripts/llama_family.py:
# the Llama family as transformers computes it, for a Llama-family model's program;
# scripts/attnscope_record.py: the recorder --print-recorder prints, for --check) into TARGET
# as text (core/output/python_scripts.h). One copy of the classes in the repository: the
# program shows the code that trained the shipped model and made the golden data, and an
# edit of a script reconfigures the build (CMAKE_CONFIGURE_DEPENDS) and reaches the program.
function(attnscope_python_scripts target source_dir)
  set(book_gpt ${source_dir}/scripts/book_gpt.py)
  set(safetensors ${source_dir}/scripts/gpt2_safetensors.py)
  set(llama_family ${source_dir}/scripts/llama_family.py)
  set(recorder ${source_dir}/scripts/attnscope_record.py)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${book_gpt} ${safetensors} ${llama_family} ${recorder})
  file(READ ${book_gpt} BOOK_GPT_PY)
  file(READ ${safetensors} GPT2_SAFETENSORS_PY)
  file(READ ${llama_family} LLAMA_FAMILY_PY)
  file(READ ${recorder} ATTNSCOPE_RECORD_PY)
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/generated/python_scripts_text.cpp)
  configure_file(${source_dir}/cmake/python_scripts_text.cpp.in ${generated} @ONLY)
  target_sources(${target} PRIVATE ${generated})
endfunction()

#pragma once
// The project's Python scripts that an emitted model program quotes, compiled in as text
// (cmake/PythonScripts.cmake), so that the book's chapter 4 classes and chapter 5's
// loader exist once in the repository: the program shows the very code that trained the
// shipped model and made the golden data.
#include <string>
#include <string_view>

namespace attn {

extern const char* const kBookGptPy;          // scripts/book_gpt.py
extern const char* const kGpt2SafetensorsPy;  // scripts/gpt2_safetensors.py
extern const char* const kLlamaFamilyPy;      // scripts/llama_family.py
extern const char* const kAttnscopeRecordPy;  // scripts/attnscope_record.py: attnscope-cli --print-recorder

// The top-level statement of Python `source` that defines `name` ("class NAME", "def
// NAME" or "NAME = ..."): its first line and every line after it up to the next one at
// column 0, without trailing blank lines. Throws std::logic_error when there is none (a
// script lost a definition the emitter quotes: tests/test_pytorch_emit_model.cpp).
std::string python_definition(std::string_view source, std::string_view name);

}  // namespace attn

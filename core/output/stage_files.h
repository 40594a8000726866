#pragma once
// Stages as files other tools read: NumPy .npy (v1.0, little-endian float32, C order)
// and CSV, one file per stage and head, plus the CLI's JSON. Shared by the CLI's
// --export and the app's export menu.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/user_error.h"
#include "run/pipeline.h"

namespace attn {

// Thrown when a file or directory cannot be written; what() is one line for a user.
struct ExportError : UserError {
    using UserError::UserError;
};

// A float32 array of the given shape (C order, data holds the product of shape values).
void write_npy(std::ostream& out, const std::vector<std::size_t>& shape, const float* data);
// A matrix as a 2-D array, or as a 1-D array of its first row when as_vector (biases).
void write_npy(std::ostream& out, const Matrix& m, bool as_vector = false);

// One line per matrix row, values separated by commas in their shortest round-trip form;
// -inf (a masked score) is written as -inf, which NumPy and Python's float() read back.
void write_csv(std::ostream& out, const Matrix& m);

// What `write` writes, in memory, then to path through write_file_atomically (file_io.h):
// a temporary file in the same directory renamed over it at the end, so that path either
// keeps its old content or holds the whole new one. Throws ExportError.
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

// One line per token: its id, a tab, and the token with \ \n \t \r escaped so that a
// token holding a newline stays on its line (tokens.txt).
void write_tokens_txt(std::ostream& out, const Tokenized& t);

// An export's directory (made with its parents when missing) and the files written into
// it, in order. Every file is written atomically. Throws ExportError.
struct ExportDir {
    explicit ExportDir(std::filesystem::path directory);
    void file(const std::string& name, const std::function<void(std::ostream&)>& write);
    // NAME.npy and NAME.csv; as_vector: a 1-D array of the first row (biases).
    void matrix(const std::string& name, const Matrix& m, bool as_vector = false);

    std::filesystem::path dir;
    std::vector<std::string> written;
};

// Writes the run into dir (created if missing): model stages as NAME.npy and NAME.csv,
// each head's stages as headH_NAME.npy/.csv, the output as output.npy (B x T x out) and
// output.csv (B*T rows), the CLI's JSON as trace.json, and the tokens as tokens.txt
// (tokens2.txt for cross-attention's second text). keep filters stages as --stages does.
// Returns the names of the files written. Throws ExportError.
std::vector<std::string> export_run(const std::filesystem::path& dir, const Run& run,
                                    const std::vector<std::string>& keep = {});

}  // namespace attn

#include "output/stage_files.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <utility>

#include "base/file_io.h"
#include "attention/stage_catalogue.h"
#include "output/trace_json.h"
#include "base/decimal_text.h"

namespace attn {

namespace {

namespace fs = std::filesystem;

// NumPy's header: magic, version 1.0, a little-endian uint16 length, then a Python dict
// literal padded with spaces and ended by '\n' so the data starts at a multiple of 64.
std::string npy_header(const std::vector<std::size_t>& shape) {
    std::string dims;
    for (std::size_t d : shape) dims += std::to_string(d) + ", ";
    if (shape.size() > 1) dims.erase(dims.size() - 2);  // (6, 3), but (3,) for one dimension
    else if (shape.size() == 1) dims.pop_back();
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
    constexpr std::size_t kPrefix = 10;  // magic (6) + version (2) + length (2)
    const std::size_t total = (kPrefix + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - kPrefix - dict.size() - 1, ' ');
    dict += '\n';
    const auto len = static_cast<uint16_t>(dict.size());
    std::string header("\x93NUMPY\x01\x00", 8);
    header += static_cast<char>(len & 0xff);
    header += static_cast<char>(len >> 8);
    return header + dict;
}

void write_float_text(std::ostream& out, float v) {
    if (std::isinf(v)) {
        out << (v < 0 ? "-inf" : "inf");
        return;
    }
    out << shortest_decimal(v);
}

std::string escape_token(const std::string& token) {
    std::string out;
    for (char c : token) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\r') out += "\\r";
        else out += c;
    }
    return out;
}

}  // namespace

void write_tokens_txt(std::ostream& out, const Tokenized& t) {
    for (std::size_t i = 0; i < t.tokens.size(); ++i) out << t.ids[i] << '\t' << escape_token(t.tokens[i]) << '\n';
}

ExportDir::ExportDir(fs::path directory) : dir(std::move(directory)) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw ExportError("cannot create directory '" + dir.string() + "': " +
                          (ec ? ec.message() : std::string("a file of that name exists")));
}

void ExportDir::file(const std::string& name, const std::function<void(std::ostream&)>& write) {
    write_file_atomically(dir / name, write);
    written.push_back(name);
}

void ExportDir::matrix(const std::string& name, const Matrix& m, bool as_vector) {
    file(name + ".npy", [&](std::ostream& o) { write_npy(o, m, as_vector); });
    file(name + ".csv", [&](std::ostream& o) { write_csv(o, m); });
}

void write_npy(std::ostream& out, const std::vector<std::size_t>& shape, const float* data) {
    out << npy_header(shape);
    std::size_t count = 1;
    for (std::size_t d : shape) count *= d;
    std::string bytes(count * 4, '\0');
    for (std::size_t i = 0; i < count; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &data[i], 4);
        for (int b = 0; b < 4; ++b) bytes[i * 4 + static_cast<std::size_t>(b)] = static_cast<char>((bits >> (8 * b)) & 0xff);
    }
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void write_npy(std::ostream& out, const Matrix& m, bool as_vector) {
    const auto rows = static_cast<std::size_t>(m.rows()), cols = static_cast<std::size_t>(m.cols());
    if (as_vector) write_npy(out, {cols}, m.data());
    else write_npy(out, {rows, cols}, m.data());  // Matrix is row-major: already C order
}

void write_csv(std::ostream& out, const Matrix& m) {
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            if (c) out << ',';
            write_float_text(out, m(r, c));
        }
        out << '\n';
    }
}

void write_file_atomically(const fs::path& path, const std::function<void(std::ostream&)>& write) {
    std::ostringstream out;
    write(out);  // a writer that throws leaves no file behind: none is opened before it ends
    try {
        // Not durable: an export is many files, made again in a moment if a crash loses one.
        write_file_atomically(path.string(), out.str(), /*durable=*/false);
    } catch (const FileError& e) {
        throw ExportError("cannot write '" + path.string() + "': " + e.reason);
    }
}

std::vector<std::string> export_run(const fs::path& dir, const Run& run, const std::vector<std::string>& keep) {
    ExportDir out(dir);
    const auto stage_files = [&](const std::string& prefix, const Stage& s) {
        if (stage_kept(keep, s.name)) out.matrix(prefix + s.name, s.value, s.rows == Axis::One);
    };

    for (const Stage& s : run.trace.model.stages) stage_files("", s);
    for (std::size_t h = 0; h < run.trace.heads.size(); ++h)
        for (const Stage& s : run.trace.heads[h].stages) stage_files("head" + std::to_string(h) + "_", s);

    const std::vector<Matrix>& output = run.trace.output;
    if (stage_kept(keep, "output") && !output.empty()) {
        const auto T = static_cast<std::size_t>(output[0].rows()), D = static_cast<std::size_t>(output[0].cols());
        std::vector<float> all;  // B x T x D, batch elements one after another
        for (const Matrix& m : output) all.insert(all.end(), m.data(), m.data() + m.size());
        out.file("output.npy", [&](std::ostream& o) { write_npy(o, {output.size(), T, D}, all.data()); });
        out.file("output.csv", [&](std::ostream& o) {
            for (const Matrix& m : output) write_csv(o, m);
        });
    }

    out.file("trace.json", [&](std::ostream& o) { write_run_json(o, run, keep, std::nullopt); });
    out.file("tokens.txt", [&](std::ostream& o) { write_tokens_txt(o, run.tokens); });
    if (run.tokens2) out.file("tokens2.txt", [&](std::ostream& o) { write_tokens_txt(o, *run.tokens2); });
    return out.written;
}

}  // namespace attn

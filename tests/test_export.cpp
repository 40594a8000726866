// Exports (issue 5): .npy headers and bytes as NumPy reads them, CSV that parses back to
// the same floats (-inf included), export_run's files, and the errors for a directory
// that cannot be written.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/stage_files.h"
#include "run/pipeline.h"

namespace fs = std::filesystem;

namespace {

struct Npy {
    std::string dict;          // the header's Python dict, padding included
    std::size_t data_offset;   // where the array's bytes start
    std::vector<float> values;
};

Npy parse_npy(const std::string& bytes) {
    REQUIRE(bytes.size() >= 10);
    REQUIRE(bytes.substr(0, 6) == "\x93NUMPY");
    REQUIRE(bytes[6] == 1);  // version 1.0
    REQUIRE(bytes[7] == 0);
    const std::size_t len = static_cast<unsigned char>(bytes[8]) | static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
    Npy npy{bytes.substr(10, len), 10 + len, {}};
    for (std::size_t i = npy.data_offset; i + 4 <= bytes.size(); i += 4) {
        uint32_t bits = 0;
        for (int b = 0; b < 4; ++b) bits |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + static_cast<std::size_t>(b)])) << (8 * b);
        float v;
        std::memcpy(&v, &bits, 4);
        npy.values.push_back(v);
    }
    return npy;
}

std::vector<std::vector<float>> parse_csv(const std::string& text) {
    std::vector<std::vector<float>> rows;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::vector<float> row;
        std::istringstream cells(line);
        for (std::string cell; std::getline(cells, cell, ',');) {
            char* end = nullptr;
            row.push_back(std::strtof(cell.c_str(), &end));
            REQUIRE(*end == '\0');
        }
        rows.push_back(row);
    }
    return rows;
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A fresh directory under the system's temporary directory, removed at the end.
struct TempDir {
    fs::path path = fs::temp_directory_path() / ("attnscope_export_" + std::to_string(::getpid()));
    TempDir() { fs::remove_all(path); }
    ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("export npy: header names <f4, C order and the shape, and the data starts at a multiple of 64", "[export]") {
    attn::Matrix m(2, 3);
    m << 1.5f, -0.25f, 3.0f, 1e-30f, -std::numeric_limits<float>::infinity(), 65504.0f;
    std::ostringstream out;
    attn::write_npy(out, m);
    const Npy npy = parse_npy(out.str());
    CHECK(npy.dict.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0) == 0);
    CHECK(npy.dict.back() == '\n');
    CHECK(npy.data_offset % 64 == 0);
    REQUIRE(out.str().size() == npy.data_offset + 6 * 4);
    REQUIRE(npy.values.size() == 6);
    for (int i = 0; i < 6; ++i) CHECK(npy.values[static_cast<std::size_t>(i)] == m(i / 3, i % 3));  // C order
}

TEST_CASE("export npy: a vector is 1-D (d,), and any shape is written as given", "[export]") {
    attn::Matrix bias(1, 3);
    bias << 0.1f, 0.2f, 0.3f;
    std::ostringstream vec;
    attn::write_npy(vec, bias, true);
    CHECK(parse_npy(vec.str()).dict.find("'shape': (3,), }") != std::string::npos);

    const std::vector<float> data(2 * 3 * 4, 0.5f);
    std::ostringstream cube;
    attn::write_npy(cube, {2, 3, 4}, data.data());
    const Npy npy = parse_npy(cube.str());
    CHECK(npy.dict.find("'shape': (2, 3, 4), }") != std::string::npos);
    CHECK(npy.values == data);
}

TEST_CASE("export csv: one line per row, parsing back to exactly the same floats, -inf as -inf", "[export]") {
    attn::Matrix m(3, 3);
    const float inf = std::numeric_limits<float>::infinity();
    m << 0.1f, 1.0f / 3.0f, -2.5e-7f, 123456.79f, -inf, 0.0f, std::nextafter(1.0f, 2.0f), 1e38f, -1e-38f;
    std::ostringstream out;
    attn::write_csv(out, m);
    CHECK(out.str().find("-inf") != std::string::npos);
    const auto rows = parse_csv(out.str());
    REQUIRE(rows.size() == 3);
    for (int r = 0; r < 3; ++r) {
        REQUIRE(rows[static_cast<std::size_t>(r)].size() == 3);
        for (int c = 0; c < 3; ++c) CHECK(rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] == m(r, c));
    }
}

TEST_CASE("export_run: every stage per head, the output as B x T x out, trace.json and tokens.txt", "[export]") {
    TempDir dir;
    attn::Settings s;
    s.attention.variant = attn::Variant::Mha;
    s.attention.heads = 2;
    s.attention.batch = 2;
    s.attention.dropout = 0.5;
    const attn::Run run = attn::compute(s);
    const fs::path out = dir.path / "new" / "nested";  // created, parents too
    const auto files = attn::export_run(out, run);

    for (const char* name : {"inputs.npy", "inputs.csv", "W_out.npy", "concat.csv", "head0_weights.npy",
                             "head1_masked_scores.csv", "head1_dropout_mask.npy", "output.npy", "output.csv",
                             "trace.json", "tokens.txt"})
        CHECK(fs::is_regular_file(out / name));
    CHECK(files.size() == static_cast<std::size_t>(std::distance(fs::directory_iterator(out), fs::directory_iterator())));

    const Npy output = parse_npy(read_file(out / "output.npy"));
    CHECK(output.dict.find("'shape': (2, 6, 2), }") != std::string::npos);
    const Npy weights = parse_npy(read_file(out / "head1_weights.npy"));
    const attn::Matrix& w = run.trace.heads[1].at("weights");
    REQUIRE(weights.values.size() == static_cast<std::size_t>(w.size()));
    for (Eigen::Index i = 0; i < w.size(); ++i) CHECK(weights.values[static_cast<std::size_t>(i)] == w.data()[i]);

    const auto json = nlohmann::json::parse(read_file(out / "trace.json"));
    CHECK(json["variant"] == "mha");
    CHECK(json["heads"].size() == 2);
    CHECK(read_file(out / "tokens.txt") == "0\tYour\n1\tjourney\n2\tstarts\n3\twith\n4\tone\n5\tstep\n");
}

TEST_CASE("export_run: --stages keeps only the named stages", "[export]") {
    TempDir dir;
    const attn::Run run = attn::compute(attn::Settings{});
    const auto files = attn::export_run(dir.path, run, {"weights"});
    CHECK(files == std::vector<std::string>{"head0_weights.npy", "head0_weights.csv", "trace.json", "tokens.txt"});
}

TEST_CASE("export_run: a directory that cannot be made is an ExportError naming it", "[export]") {
    TempDir dir;
    fs::create_directories(dir.path);
    std::ofstream(dir.path / "a_file") << "x";
    const attn::Run run = attn::compute(attn::Settings{});
    const fs::path bad = dir.path / "a_file" / "sub";  // unwritable even for root
    CHECK_THROWS_WITH(attn::export_run(bad, run), Catch::Contains("cannot create directory") && Catch::Contains("a_file"));
    CHECK_THROWS_AS(attn::export_run(dir.path / "a_file", run), attn::ExportError);
}

TEST_CASE("export write_file_atomically: a writer that fails leaves the old file and no temporary", "[export]") {
    TempDir dir;
    fs::create_directories(dir.path);
    const fs::path target = dir.path / "weights.csv";
    attn::write_file_atomically(target, [](std::ostream& o) { o << "old\n"; });
    CHECK_THROWS(attn::write_file_atomically(target, [](std::ostream& o) {
        o << "half of a new";
        throw std::runtime_error("disk gone");
    }));
    CHECK(read_file(target) == "old\n");
    CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
}

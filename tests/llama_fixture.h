#pragma once
// The golden Llama-family models (tests/golden/llama/, written by make_llama_golden.py)
// have no tokenizer.json: their vocabulary is 96 random tokens. Tests that go through a
// text give a copy of one a tokenizer.json whose tokens are single characters (94
// printable ASCII, the space, one special), so that a text of the ids' characters
// tokenizes back to exactly the golden ids.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn::test {

inline const std::string kLlamaGolden = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/llama/";

// id i < 94 is the character 33 + i: "!" .. "~" (byte-level BPE keeps these bytes as they are).
inline nlohmann::json one_character_tokenizer() {
    using nlohmann::json;
    json vocab = json::object();
    for (int i = 0; i < 94; ++i) vocab[std::string(1, static_cast<char>(33 + i))] = i;
    vocab["\xC4\xA0"] = 94;  // "Ġ": byte-level BPE's space
    json added = json::array({{{"id", 95}, {"content", "<|end|>"}, {"special", true}, {"normalized", false},
                               {"single_word", false}, {"lstrip", false}, {"rstrip", false}}});
    return {{"version", "1.0"},
            {"added_tokens", added},
            {"normalizer", nullptr},
            {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
            {"decoder", {{"type", "ByteLevel"}}},
            {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array()}}}};
}

// A copy of golden model `name` in `dir` (replaced), with that tokenizer.json or none.
inline void copy_golden_llama(const std::string& name, const std::string& dir, bool with_tokenizer) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(std::filesystem::path(dir).parent_path());
    std::filesystem::copy(kLlamaGolden + name, dir);
    if (with_tokenizer) std::ofstream(dir + "/tokenizer.json") << one_character_tokenizer().dump();
}

// The text whose one-character tokens are `ids`.
inline std::string text_of(const std::vector<int64_t>& ids) {
    std::string text;
    for (const int64_t id : ids) text += static_cast<char>(33 + id);
    return text;
}

}  // namespace attn::test

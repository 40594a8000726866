#pragma once
// The BPE model of a Hugging Face tokenizer.json: a vocabulary of byte-level strings and
// ranked merges. A word is split into its characters, then the adjacent pair with the
// lowest merge rank is merged (the leftmost of equal ranks) until no pair has a merge,
// exactly as tokenizers' Word::merge_all does it with its priority queue.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attn {

struct HfBpe {
    std::unordered_map<std::string, int32_t> vocab;  // byte-level string -> id
    // (left id << 32 | right id) -> (rank, id of the merged token)
    std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges;
    bool ignore_merges = false;     // a word that is itself in the vocabulary is one token
    std::optional<int32_t> unk;     // unk_token's id: for a character outside the vocabulary
    bool fuse_unk = false;          // consecutive unknown characters become one unk

    // Appends the ids of one pre-tokenized word (its byte-level spelling) to `out`.
    void encode_word(std::string_view word, std::vector<int32_t>& out) const;

    // The merge table's key for a pair of ids.
    static uint64_t pair_key(int32_t left, int32_t right) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
    }
};

}  // namespace attn

#pragma once
// Token ids -> input vectors: the book's hand-written table, or seeded
// nn.Embedding tables (token and positional) exactly as torch initialises them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "numerics/tensor.h"

namespace attn {

// "Your journey starts with one step": the 3-d vectors of chapter 3 (rows = ids 0..5).
const std::vector<std::string>& book_words();
const Matrix& book_inputs();
// The id of a book word, or nothing if it is not one.
std::optional<int64_t> book_word_id(const std::string& word);

struct EmbeddingStages {
    Matrix token_embeddings;                 // T x d_in: rows of the token table
    std::optional<Matrix> pos_embeddings;    // T x d_in: rows 0..T-1 of the positional table
    Matrix inputs;                           // token + position
};

// torch.manual_seed(seed); tok = nn.Embedding(vocab_size, d_in);
// [pos = nn.Embedding(context_length, d_in)]; inputs = tok(ids) [+ pos(arange(T))].
// With several id lists (cross-attention's two texts) both tables serve every list.
std::vector<EmbeddingStages> embed_random(uint64_t seed, int64_t vocab_size, int d_in,
                                          const std::vector<std::vector<int64_t>>& ids,
                                          std::optional<int64_t> context_length);

// The book's rows for the given ids, plus a seeded positional table if asked for.
std::vector<EmbeddingStages> embed_book(uint64_t seed, const std::vector<std::vector<int64_t>>& ids,
                                        std::optional<int64_t> context_length);

}  // namespace attn

#include "attention/embedding.h"

#include "numerics/torch_random.h"

namespace attn {

const std::vector<std::string>& book_words() {
    static const std::vector<std::string> words = {"Your", "journey", "starts", "with", "one", "step"};
    return words;
}

const Matrix& book_inputs() {
    static const Matrix inputs = [] {
        Matrix m(6, 3);
        m << 0.43f, 0.15f, 0.89f,  // Your     (x^1)
            0.55f, 0.87f, 0.66f,   // journey  (x^2)
            0.57f, 0.85f, 0.64f,   // starts   (x^3)
            0.22f, 0.58f, 0.33f,   // with     (x^4)
            0.77f, 0.25f, 0.10f,   // one      (x^5)
            0.05f, 0.80f, 0.55f;   // step     (x^6)
        return m;
    }();
    return inputs;
}

std::optional<int64_t> book_word_id(const std::string& word) {
    const auto& words = book_words();
    for (size_t i = 0; i < words.size(); ++i)
        if (words[i] == word) return static_cast<int64_t>(i);
    return std::nullopt;
}

namespace {

// Adds rows 0..T-1 of the positional table (drawn from gen, after whatever it drew before).
void add_positions(TorchGenerator& gen, int d_in, std::vector<EmbeddingStages>& out,
                   std::optional<int64_t> context_length) {
    if (!context_length) return;
    const Matrix pos = torch_normal(gen, *context_length, d_in);
    for (EmbeddingStages& e : out) {
        e.pos_embeddings = pos.topRows(e.token_embeddings.rows());
        e.inputs = e.token_embeddings + *e.pos_embeddings;
    }
}

}  // namespace

std::vector<EmbeddingStages> embed_random(uint64_t seed, int64_t vocab_size, int d_in,
                                          const std::vector<std::vector<int64_t>>& ids,
                                          std::optional<int64_t> context_length) {
    TorchGenerator gen(seed);
    std::vector<int64_t> wanted;
    for (const auto& list : ids) wanted.insert(wanted.end(), list.begin(), list.end());
    const Matrix rows = torch_normal_rows(gen, vocab_size, d_in, wanted);
    std::vector<EmbeddingStages> out;
    Eigen::Index next = 0;
    for (const auto& list : ids) {
        EmbeddingStages e;
        e.token_embeddings = rows.middleRows(next, static_cast<Eigen::Index>(list.size()));
        e.inputs = e.token_embeddings;
        next += static_cast<Eigen::Index>(list.size());
        out.push_back(std::move(e));
    }
    add_positions(gen, d_in, out, context_length);
    return out;
}

std::vector<EmbeddingStages> embed_book(uint64_t seed, const std::vector<std::vector<int64_t>>& ids,
                                        std::optional<int64_t> context_length) {
    std::vector<EmbeddingStages> out;
    for (const auto& list : ids) {
        EmbeddingStages e;
        e.token_embeddings.resize(static_cast<Eigen::Index>(list.size()), 3);
        for (size_t i = 0; i < list.size(); ++i)
            e.token_embeddings.row(static_cast<Eigen::Index>(i)) = book_inputs().row(list[i]);
        e.inputs = e.token_embeddings;
        out.push_back(std::move(e));
    }
    TorchGenerator gen(seed);
    add_positions(gen, 3, out, context_length);
    return out;
}

}  // namespace attn

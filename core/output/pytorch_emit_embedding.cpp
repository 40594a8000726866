// The emitted program's second section: the input vectors the attention module reads.
#include <algorithm>

#include "output/pytorch_emit_parts.h"
#include "text/tokenizer_table.h"

namespace attn::pytorch_emit_parts {

namespace {

const char* kBookTable = R"PY(torch.tensor(
  [[0.43, 0.15, 0.89], # Your     (x^1)
   [0.55, 0.87, 0.66], # journey  (x^2)
   [0.57, 0.85, 0.64], # starts   (x^3)
   [0.22, 0.58, 0.33], # with     (x^4)
   [0.77, 0.25, 0.10], # one      (x^5)
   [0.05, 0.80, 0.55]] # step     (x^6)
))PY";

}  // namespace

// The input vectors; defines names.inputs (and the embedding stages, inputs2 for two texts).
void emit_embedding(std::ostream& py, const Settings& s, const Run& run, Names& names) {
    py << "\n" << section("The embedding");
    const bool two = run.tokens2.has_value();
    const auto longest = static_cast<int64_t>(std::max(run.tokens.ids.size(), two ? run.tokens2->ids.size() : 0));
    const int64_t context_length = s.context_length.value_or(longest);
    const auto positions = [&]() {
        py << "context_length = " << context_length
           << (s.context_length ? "  # --context-length" : "  # the longest text's token count") << "\n"
           << "pos_embedding_layer = torch.nn.Embedding(context_length, " << s.d_in
           << ")  # chapter 2's absolute positions\n";
    };
    std::string second_rows;  // the second text's token embeddings
    if (run.embedding == "book") {
        if (is_book_sentence(run) && !s.pos) {
            py << "inputs = " << kBookTable << "\n";
            names.token_embeddings = names.inputs = "inputs";
            return;
        }
        if (is_book_sentence(run)) {
            py << "token_embeddings = " << kBookTable << "\n";
        } else {
            py << "# The book's hand-written 3-d vectors (chapter 3.3), one row per word of its sentence\n"
               << "book_words = [\"Your\", \"journey\", \"starts\", \"with\", \"one\", \"step\"]\n"
               << "book_inputs = " << kBookTable << "\n"
               << "token_ids = [book_words.index(w) for w in tokens]\n"
               << "token_embeddings = book_inputs[token_ids]\n";
            if (two)
                py << "token_ids2 = [book_words.index(w) for w in tokens2]\n"
                   << "token_embeddings2 = book_inputs[token_ids2]\n";
        }
        if (s.pos) {
            py << "\ntorch.manual_seed(" << s.embed_seed << ")\n";
            positions();
        }
        names.token_embeddings = "token_embeddings";
        second_rows = "token_embeddings2";
    } else {
        const int64_t vocab = run.vocab_size;
        const TokenizerRow& tokenizer = tokenizer_row(s.tokenizer);
        const bool words = tokenizer.kind == TokenizerKind::Words;
        const std::string layer = words ? "embed" : "token_embedding_layer";  // seed 004's name, else chapter 2's
        names.token_embeddings = words ? "embedded_sentence" : "token_embeddings";
        const std::string why = s.vocab_size ? "--vocab-size" : tokenizer.python_vocab;
        py << "vocab_size = " << vocab << "  # " << why << "\n"
           << "\n"
           << "torch.manual_seed(" << s.embed_seed << ")\n"
           << layer << " = torch.nn.Embedding(vocab_size, " << s.d_in << ")  # create an embedding layer\n";
        if (s.pos) positions();
        py << names.token_embeddings << " = " << layer << "(torch.tensor(token_ids)).detach()\n";
        second_rows = names.token_embeddings + "2";
        if (two) py << second_rows << " = " << layer << "(torch.tensor(token_ids2)).detach()\n";
    }
    names.inputs = names.token_embeddings;
    if (two) names.inputs2 = second_rows;
    if (s.pos) {
        names.pos_embeddings = "pos_embeddings";
        py << "pos_embeddings = pos_embedding_layer(torch.arange(len(token_ids))).detach()\n"
           << "inputs = " << names.token_embeddings << " + pos_embeddings\n";
        names.inputs = "inputs";
        if (two) {
            py << "inputs2 = " << second_rows << " + pos_embedding_layer(torch.arange(len(token_ids2))).detach()\n";
            names.inputs2 = "inputs2";
        }
    }
}

}  // namespace attn::pytorch_emit_parts

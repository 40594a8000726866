#include "run/pipeline.h"

#include <algorithm>

#include "run/memory_budget.h"
#include "text/tokenizer_table.h"

namespace attn {

namespace {

// A longer text is refused before it is embedded. At 8192 tokens, 12 heads of a 768-wide
// mha are 3 GB of weights alone: the budget decides what of such a run can be kept.
constexpr size_t kMaxTokens = 8192;
constexpr int64_t kMaxTableElements = 400'000'000;

// Tokenizes the texts; vocab_size is set to the tokenizer's vocabulary size.
std::vector<Tokenized> tokenize(const Settings& s, const std::vector<std::string>& texts, int64_t& vocab_size) {
    const TokenizerRow& row = tokenizer_row(s.tokenizer);
    if (s.corpus_file && !row.takes_corpus) throw InputError("a corpus file is only used by the simple tokenizer");
    Encoded encoded = row.encode(s.tokenizer, s.corpus_file, texts);
    vocab_size = encoded.vocab_size;
    return std::move(encoded.texts);
}

bool all_book_words(const std::vector<Tokenized>& texts) {
    for (const Tokenized& t : texts)
        for (const std::string& w : t.tokens)
            if (!book_word_id(w)) return false;
    return true;
}

std::vector<EmbeddingStages> embed(const Settings& s, std::vector<Tokenized>& texts, int64_t tokenizer_vocab,
                                   Embedded& out) {
    size_t longest = 0;
    for (const Tokenized& t : texts) longest = std::max(longest, t.ids.size());
    std::optional<int64_t> context_length;
    if (s.pos) context_length = s.context_length.value_or(static_cast<int64_t>(longest));
    if (s.context_length && static_cast<int64_t>(longest) > *s.context_length)
        throw InputError("the text has " + std::to_string(longest) + " tokens, more than context_length " +
                         std::to_string(*s.context_length));

    const bool book = s.embedding == "book" ||
                      (s.embedding == "auto" && tokenizer_row(s.tokenizer).book_vectors && s.d_in == 3 && !s.vocab_size &&
                       all_book_words(texts));
    std::vector<std::vector<int64_t>> ids;
    if (book) {
        if (s.d_in != 3) throw InputError("the book embedding is 3-dimensional: d_in must be 3, got " + std::to_string(s.d_in));
        if (!tokenizer_row(s.tokenizer).book_vectors) throw InputError("the book embedding takes the words tokenizer");
        for (Tokenized& t : texts) {
            for (size_t i = 0; i < t.tokens.size(); ++i) {
                const auto id = book_word_id(t.tokens[i]);
                if (!id) throw InputError("'" + t.tokens[i] + "' is not a word of the book's sentence (Your journey starts with one step)");
                t.ids[i] = *id;
            }
            ids.push_back(t.ids);
        }
        out.embedding = "book";
        return embed_book(s.embed_seed, ids, context_length);
    }
    const int64_t vocab = s.vocab_size.value_or(tokenizer_vocab);
    if (vocab * s.d_in > kMaxTableElements)
        throw InputError("the embedding table vocab_size x d_in = " + std::to_string(vocab * s.d_in) +
                         " is larger than " + std::to_string(kMaxTableElements));
    for (Tokenized& t : texts) {
        for (size_t i = 0; i < t.ids.size(); ++i)
            if (t.ids[i] >= vocab)
                throw InputError("token '" + t.tokens[i] + "' has id " + std::to_string(t.ids[i]) +
                                 ", outside vocab_size " + std::to_string(vocab));
        ids.push_back(t.ids);
    }
    out.embedding = "random";
    out.vocab_size = vocab;
    return embed_random(s.embed_seed, vocab, s.d_in, ids, context_length);
}

}  // namespace

AttentionConfig attention_config(const Settings& s) {
    AttentionConfig cfg = s.attention;
    cfg.d_out_v = s.d_out_v.value_or(cfg.d_out);
    return cfg;
}

bool same_embedding(const Settings& a, const Settings& b) {
    // A second text is embedded only for a variant that takes one.
    const auto second_text = [](const Settings& s) { return variant_info(s.attention.variant).second_text; };
    return same_up_to(a, b, Reruns::Embedding) && second_text(a) == second_text(b);
}

Embedded embed_texts(const Settings& s) { return embed_texts(s, budget_for(s)); }

namespace {

// The texts of `s` as tokens, each checked for length; sets the tokenizer's vocabulary size.
std::vector<Tokenized> tokenize_texts(const Settings& s, int64_t& tokenizer_vocab) {
    const bool cross = variant_info(s.attention.variant).second_text;
    if (s.text2 && !cross) throw InputError("a second text is only used by the cross variant");
    std::vector<std::string> texts{s.text};
    if (cross && s.text2) texts.push_back(*s.text2);
    std::vector<Tokenized> tokenized = tokenize(s, texts, tokenizer_vocab);
    for (size_t i = 0; i < tokenized.size(); ++i) {
        const std::string which = i == 0 ? "the text" : "the second text";
        if (tokenized[i].ids.empty()) throw InputError(which + " is empty");
        if (tokenized[i].ids.size() > kMaxTokens)
            throw InputError(which + " has " + std::to_string(tokenized[i].ids.size()) + " tokens; at most " +
                             std::to_string(kMaxTokens) + " are shown");
    }
    return tokenized;
}

WorkEstimate estimate_tokenized(const Settings& s, const std::vector<Tokenized>& tokenized,
                                const KeptStages& keep = {}) {
    const int64_t tokens2 = tokenized.size() > 1 ? static_cast<int64_t>(tokenized[1].ids.size()) : 0;
    return estimate_work(s, static_cast<int64_t>(tokenized[0].ids.size()), tokens2, keep);
}

}  // namespace

WorkEstimate estimate_run(const Settings& s) {
    int64_t tokenizer_vocab = 0;
    return estimate_tokenized(s, tokenize_texts(s, tokenizer_vocab));
}

Embedded embed_texts(const Settings& s, const Budget& budget, const KeptStages& keep) {
    check_ranges(s);  // values set by code or typed into the app have not been parsed
    int64_t tokenizer_vocab = 0;
    std::vector<Tokenized> tokenized = tokenize_texts(s, tokenizer_vocab);
    check_budget(estimate_tokenized(s, tokenized, keep), budget);  // before the tables and the trace are allocated
    Embedded e;
    e.stages = embed(s, tokenized, tokenizer_vocab, e);
    e.tokens = std::move(tokenized[0]);
    if (tokenized.size() > 1) e.tokens2 = std::move(tokenized[1]);
    return e;
}

namespace {

// The attention part of a run is checked against the budget first: a front end that keeps
// its Embedded across changes of heads, batch or d_out (the app's worker) reaches here
// without passing embed_texts' check, and 64 heads of 4096 tokens need tens of GB.
AttentionModule checked_module(const Settings& s, const Embedded& e, const Budget& budget, const KeptStages& keep) {
    const int64_t tokens2 = e.tokens2 ? static_cast<int64_t>(e.tokens2->ids.size()) : 0;
    check_budget(estimate_work(s, static_cast<int64_t>(e.tokens.ids.size()), tokens2, keep), budget);
    return build_attention(static_cast<int>(e.stages[0].inputs.cols()), attention_config(s));
}

}  // namespace

AttendSteps::AttendSteps(const Settings& s, const Embedded& e, const Budget& budget, const KeptStages& keep)
    : forward_(checked_module(s, e, budget, keep), e.stages[0].inputs,
               e.stages.size() > 1 ? &e.stages[1].inputs : nullptr, keep),
      embedded_(&e) {
    run_.tokens = e.tokens;
    run_.tokens2 = e.tokens2;
    run_.embedding = e.embedding;
    run_.vocab_size = e.vocab_size;
}

AttendSteps::AttendSteps(std::shared_ptr<const Run> base, const Settings& s)
    : forward_(std::shared_ptr<const Trace>(base, &base->trace), attention_config(s)) {
    // Every field of the Run but its trace, which forward_ copies a head a step (the
    // tests compare the result with a whole copy rerun, field by field).
    run_.tokens = base->tokens;
    run_.tokens2 = base->tokens2;
    run_.embedding = base->embedding;
    run_.vocab_size = base->vocab_size;
    run_.model = base->model;
}

Run AttendSteps::take() {
    run_.trace = forward_.take();
    if (!embedded_) return std::move(run_);
    // The embedding stages come first in the pipeline.
    const EmbeddingStages& first = embedded_->stages[0];
    StageList front;
    front.add("token_embeddings", first.token_embeddings);
    if (first.pos_embeddings) front.add("pos_embeddings", *first.pos_embeddings);
    for (Stage& st : run_.trace.model.stages) front.stages.push_back(std::move(st));
    run_.trace.model = std::move(front);
    return std::move(run_);
}

namespace {

Run attend_within(const Settings& s, const Embedded& e, const Budget& budget, const KeptStages& keep) {
    AttendSteps steps(s, e, budget, keep);
    steps.run_rest();
    return steps.take();
}

}  // namespace

Run attend(const Settings& s, const Embedded& e, const KeptStages& keep) {
    return attend_within(s, e, budget_for(s), keep);
}

Run compute(const Settings& s) { return compute(s, budget_for(s)); }

Run compute(const Settings& s, const Budget& budget, const KeptStages& keep) {
    return attend_within(s, embed_texts(s, budget, keep), budget, keep);
}

void recompute_dropout(Run& run, const Settings& s) { attention_output(run.trace, attention_config(s)); }

}  // namespace attn

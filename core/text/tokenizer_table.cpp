#include "text/tokenizer_table.h"

#include "text/gpt2_tokenizer.h"
#include "text/hf_tokenizer.h"
#include "text/simple_tokenizer.h"

namespace attn {

namespace {

constexpr int64_t kWordsVocabSize = 50000;  // seed 004's nn.Embedding(50_000, 3), whatever the text's words

Encoded encode_words(const std::string&, const std::optional<std::string>&, const std::vector<std::string>& texts) {
    const WordsTokenizer words(texts);
    Encoded out;
    for (const std::string& t : texts) out.texts.push_back(words.encode(t));
    out.vocab_size = kWordsVocabSize;
    return out;
}

Encoded encode_simple(const std::string&, const std::optional<std::string>& corpus_file,
                      const std::vector<std::string>& texts) {
    // The vocabulary comes from a corpus: the file the user chose, else the typed texts.
    std::string corpus;
    if (corpus_file) corpus = SimpleTokenizerV2::load_corpus(*corpus_file);
    else for (const std::string& t : texts) corpus += t + "\n";
    const SimpleTokenizerV2 simple(corpus);
    Encoded out;
    for (const std::string& t : texts) {
        Tokenized tok = simple.encode(t);
        for (const int64_t id : tok.ids) tok.special.push_back(id == simple.end_of_text_id() || id == simple.unknown_id());
        out.texts.push_back(std::move(tok));
    }
    out.vocab_size = simple.vocab_size();
    return out;
}

Encoded encode_gpt2(const std::string&, const std::optional<std::string>&, const std::vector<std::string>& texts) {
    const Gpt2Tokenizer& gpt2 = gpt2_tokenizer();
    Encoded out;
    for (const std::string& t : texts) {
        Gpt2Encoding enc = gpt2.encode_with_spans(t);
        for (size_t i = 0; i < enc.tokenized.ids.size(); ++i) {
            enc.tokenized.special.push_back(gpt2.is_special(enc.tokenized.ids[i]));
            enc.tokenized.word.push_back(static_cast<int64_t>(enc.words[i]));
        }
        out.texts.push_back(std::move(enc.tokenized));
    }
    out.vocab_size = gpt2.vocab_size();
    return out;
}

Encoded encode_tokenizer_json(const std::string& path, const std::optional<std::string>&,
                              const std::vector<std::string>& texts) {
    const std::shared_ptr<const HfTokenizer> hf = HfTokenizer::cached(path);
    Encoded out;
    for (const std::string& t : texts) out.texts.push_back(hf->encode(t));
    out.vocab_size = hf->vocab_size();
    return out;
}

}  // namespace

const std::vector<TokenizerRow>& tokenizer_rows() {
    static const std::vector<TokenizerRow> rows = {
        {TokenizerKind::Words, "words", "words", "split on spaces; the text's words are the vocabulary", kWordsVocabSize, true, false,
         false, "50,000 unique tokens in the vocabulary (seed 004)",
         "# Seed 004's words (commas dropped, split at whitespace) and their ids in the sorted\n"
         "# vocabulary, written out: this text holds characters Python's str.split() treats otherwise.",
         encode_words},
        {TokenizerKind::Simple, "simple", "simple", "chapter 2's SimpleTokenizerV2; <|unk|> for unknown words", 50000, false,
         true, true, "SimpleTokenizerV2's vocabulary",
         "# Chapter 2's SimpleTokenizerV2, its vocabulary the sorted words and punctuation of {corpus}\n"
         "# plus <|endoftext|> and <|unk|>: tokenizer.encode(sentence) gives these ids.",
         encode_simple},
        {TokenizerKind::Gpt2, "gpt2", "GPT-2", "byte-level BPE as tiktoken's \"gpt2\": 50257 sub-word pieces", 50257, false,
         false, false, "GPT-2's vocabulary",
         "# GPT-2's byte-pair encoding (chapter 2): tiktoken.get_encoding(\"gpt2\").encode(sentence,\n"
         "# allowed_special={\"<|endoftext|>\"}) gives these ids; written out so tiktoken is not needed.",
         encode_gpt2},
        {TokenizerKind::TokenizerJson, "PATH/tokenizer.json", "", "a Hugging Face tokenizer.json (byte-level BPE)",
         152064, false, false, false, "the tokenizer.json's vocabulary",
         "# The Hugging Face tokenizer {path}: tokenizers' Tokenizer.from_file(...)\n"
         "# .encode(sentence).ids gives these ids; written out so tokenizers is not needed.",
         encode_tokenizer_json},
    };
    return rows;
}

const TokenizerRow* find_tokenizer(std::string_view setting) {
    for (const TokenizerRow& row : tokenizer_rows()) {
        if (row.kind == TokenizerKind::TokenizerJson ? names_tokenizer_json(setting) : setting == row.name) return &row;
    }
    return nullptr;
}

const TokenizerRow& tokenizer_row(std::string_view setting) {
    if (const TokenizerRow* row = find_tokenizer(setting)) return *row;
    std::string names;
    for (const std::string& name : tokenizer_names()) names += name + ", ";
    throw TokenizeError("unknown tokenizer '" + std::string(setting) + "' (" + names + "or a PATH/tokenizer.json)");
}

const TokenizerRow& tokenizer_row(TokenizerKind kind) {
    for (const TokenizerRow& row : tokenizer_rows())
        if (row.kind == kind) return row;
    throw std::logic_error("tokenizer_table.cpp: no row of a tokenizer kind");
}

std::vector<std::string> tokenizer_names() {
    std::vector<std::string> names;
    for (const TokenizerRow& row : tokenizer_rows())
        if (row.kind != TokenizerKind::TokenizerJson) names.emplace_back(row.name);
    return names;
}

}  // namespace attn

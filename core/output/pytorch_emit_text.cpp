// The emitted program's first section: the sentence(s) and their token ids.
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "output/pytorch_emit_parts.h"
#include "text/tokenizer_table.h"
#include "text/utf8.h"

namespace attn::pytorch_emit_parts {

namespace {

// Whether Python's str.split() finds the same words as the CLI's words tokenizer: Python
// also splits at Unicode's whitespace, C's >> only at ASCII's. When they differ, the
// program gets the words written out instead of splitting the sentence itself.
bool python_splits_like_cli(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const Utf8Char ch = decode_utf8_char(text, i);
        if (ch.len == 0) return false;
        const char32_t c = ch.cp;
        if ((c >= 0x1c && c <= 0x1f) || c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
            c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000)
            return false;
        i += ch.len;
    }
    return true;
}

// `text` with each "{key}" replaced by its value, in one pass: a value (a user's path)
// is never searched for keys.
std::string fill_in(std::string_view text, std::initializer_list<std::pair<std::string_view, std::string>> values) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        bool replaced = false;
        for (const auto& [key, value] : values)
            if (text.substr(i, key.size()) == key) {
                out += value;
                i += key.size();
                replaced = true;
                break;
            }
        if (!replaced) out += text[i++];
    }
    return out;
}

}  // namespace

bool is_book_sentence(const Run& run) {
    if (run.tokens2 || run.tokens.ids.size() != 6) return false;
    for (int64_t i = 0; i < 6; ++i)
        if (run.tokens.ids[static_cast<std::size_t>(i)] != i) return false;
    return true;
}

// The sentence(s) and the token ids; defines tokens, token_ids (and tokens2, token_ids2).
void emit_text(std::ostream& py, const Settings& s, const Run& run, Names& names) {
    py << section("The text and its tokens");
    py << "sentence = " << py_str(s.text) << "\n";
    const bool two = run.tokens2.has_value();
    if (two) py << "sentence2 = " << py_str(*s.text2) << "  # cross-attention's second text: its keys and values\n";

    if (run.embedding == "book" && is_book_sentence(run)) {
        py << "tokens = sentence.split()\n"
           << "token_ids = [0, 1, 2, 3, 4, 5]  # each word's row in the book's table below\n";
        names.print_tokens = "tokens";
        return;
    }
    const bool words_in_python = tokenizer_row(s.tokenizer).kind == TokenizerKind::Words && python_splits_like_cli(s.text) &&
                                 (!two || python_splits_like_cli(*s.text2));
    if (run.embedding == "book" && words_in_python) {
        py << "tokens = sentence.replace(',', '').split()  # seed 004's split: commas dropped, then whitespace\n";
        if (two) py << "tokens2 = sentence2.replace(',', '').split()\n";
        names.print_tokens = "tokens";
        return;  // the ids are the rows of the book's table: see the embedding
    }
    if (words_in_python) {
        const std::string all = two ? "(sentence + ' ' + sentence2)" : "sentence";
        py << "# Seed 004's vocabulary: the sorted words" << (two ? " of both texts" : "")
           << ", commas dropped (set: each word once)\n"
           << "dc = {s:i for i,s in enumerate(sorted(set(" << all << ".replace(',', '').split())))}\n"
           << "tokens = sentence.replace(',', '').split()\n"
           << "token_ids = [dc[s] for s in tokens]\n";
        if (two)
            py << "tokens2 = sentence2.replace(',', '').split()\n"
               << "token_ids2 = [dc[s] for s in tokens2]\n";
        names.print_tokens = "dc";
        return;
    }
    const TokenizerRow& tokenizer = tokenizer_row(s.tokenizer);
    const std::string corpus = s.corpus_file ? "the corpus " + *s.corpus_file : std::string(two ? "both texts" : "the text");
    py << fill_in(tokenizer.python_ids, {{"{path}", s.tokenizer}, {"{corpus}", corpus}}) << "\n";
    py << "token_ids = " << py_ints(run.tokens.ids, 12) << "\n"
       << "tokens = " << py_strs(run.tokens.tokens, 9) << "  # each id's text\n";
    if (two)
        py << "token_ids2 = " << py_ints(run.tokens2->ids, 13) << "\n"
           << "tokens2 = " << py_strs(run.tokens2->tokens, 10) << "\n";
    names.print_tokens = "token_ids";
}

}  // namespace attn::pytorch_emit_parts

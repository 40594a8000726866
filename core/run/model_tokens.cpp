#include "run/model_run.h"

// The tokens a model run reads: --ids checked against the vocabulary, or the text by the
// model's tokenizer, and each token as a reader sees it.
#include <charconv>
#include <sstream>

#include "run/pipeline.h"  // InputError

namespace attn {

std::vector<int64_t> parse_token_ids(const std::string& text) {
    std::vector<int64_t> ids;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        const size_t first = item.find_first_not_of(' '), last = item.find_last_not_of(' ');
        item = first == std::string::npos ? "" : item.substr(first, last - first + 1);
        int64_t id = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
        if (item.empty() || ec != std::errc() || end != item.data() + item.size() || id < 0)
            throw InputError("--ids needs token ids such as 1,2,3, got '" + item + "'");
        ids.push_back(id);
        if (ids.size() > 65536) throw InputError("--ids takes at most 65536 ids");
    }
    if (ids.empty()) throw InputError("--ids needs at least one token id");
    return ids;
}

Tokenized model_input_tokens(const Settings& s, const LoadedModel& model) {
    if (s.ids) {
        const int64_t vocab = model_shape(model).vocab_size;
        Tokenized tokens;
        for (const int64_t id : parse_token_ids(*s.ids)) {
            if (id >= vocab)
                throw InputError("--ids: token id " + std::to_string(id) + " is outside the model's vocabulary (0.." +
                                 std::to_string(vocab - 1) + ")");
            tokens = with_token(model, std::move(tokens), id);
        }
        return tokens;
    }
    return model.model->encode(s.text);
}

Tokenized with_token(const LoadedModel& model, Tokenized tokens, int64_t id) {
    tokens.ids.push_back(id);
    tokens.tokens.push_back(model_token_text(model, id));
    const bool special = model.model->is_special(id);
    if (tokens.special.size() + 1 == tokens.ids.size()) tokens.special.push_back(special);  // kept where known
    if (!tokens.word.empty()) tokens.word.push_back(tokens.word.back() + 1);
    return tokens;
}

std::string model_token_text(const LoadedModel& model, int64_t id) {
    return model.model->token_text(id);
}

std::string quoted_token(const LoadedModel& model, int64_t id) { return "'" + model_token_text(model, id) + "'"; }

}  // namespace attn

// tokenizer.json -> HfTokenizerSpec: what tokenizers' serde reads, for the parts a
// byte-level BPE uses; every other kind of part is refused by name in one line.
#include <nlohmann/json.hpp>

#include "text/hf_tokenizer_spec.h"
#include "text/tokenizer.h"
#include "text/utf8.h"

namespace attn {

namespace {

using json = nlohmann::json;

// Reading one tokenizer.json; every refusal names the file.
class SpecReader {
public:
    explicit SpecReader(std::string where) : where_(std::move(where)) {}

    [[noreturn]] void refuse(const std::string& why) const { throw TokenizeError(where_ + ": " + why); }

    const json& member(const json& object, const char* key, const char* what) const {
        if (!object.is_object() || !object.contains(key)) refuse(std::string(what) + " has no \"" + key + "\"");
        return object[key];
    }
    std::string text(const json& value, const char* what) const {
        if (!value.is_string()) refuse(std::string(what) + " is not a string");
        return value.get<std::string>();
    }
    bool flag(const json& object, const char* key, bool fallback) const {
        if (!object.contains(key) || object[key].is_null()) return fallback;
        if (!object[key].is_boolean()) refuse(std::string("\"") + key + "\" is not true or false");
        return object[key].get<bool>();
    }
    // Ids index a table: they must be about as many as the tokens (a gap of a few is fine).
    int32_t id(const json& value, const char* what) const {
        if (!value.is_number_integer() || value.get<int64_t>() < 0) refuse(std::string(what) + " is not a token id");
        if (value.get<int64_t>() >= max_id_) refuse(std::string(what) + " is far past the number of tokens");
        return static_cast<int32_t>(value.get<int64_t>());
    }
    std::string type_of(const json& part, const char* what) const { return text(member(part, "type", what), what); }

    void read_model(const json& model, HfTokenizerSpec& spec) const;
    void read_merges(const json& merges, HfBpe& bpe) const;
    void read_added_tokens(const json& tokens, HfTokenizerSpec& spec) const;
    void read_normalizer(const json& normalizer, HfTokenizerSpec& spec, int depth = 0) const;
    void read_pre_tokenizer(const json& part, HfTokenizerSpec& spec, int depth = 0) const;
    void read_post_processor(const json& part, HfTokenizerSpec& spec, int depth = 0) const;
    void check_decoder(const json& part, int depth = 0) const;
    // Sequences nest: a file nesting them deeper than any model does is refused before the
    // recursion could exhaust the stack.
    void check_depth(int depth) const {
        if (depth > kMaxNesting) refuse("Sequences nested more than " + std::to_string(kMaxNesting) + " deep");
    }
    static constexpr int kMaxNesting = 8;

    int64_t max_id_ = 65536;

private:
    std::string where_;
};

void SpecReader::read_model(const json& model, HfTokenizerSpec& spec) const {
    if (!model.is_object()) refuse("\"model\" is not an object");
    const std::string type = model.contains("type") ? text(model["type"], "the model's type") : "BPE";
    if (type == "Unigram") refuse("model type Unigram (SentencePiece) is not supported: only byte-level BPE is");
    if (type != "BPE") refuse("model type " + type + " is not supported: only byte-level BPE is");
    if (flag(model, "byte_fallback", false)) refuse("BPE with byte_fallback (SentencePiece-style) is not supported");
    if (model.contains("dropout") && !model["dropout"].is_null() &&
        !(model["dropout"].is_number() && model["dropout"].get<double>() == 0.0))
        refuse("BPE dropout makes encoding random: not supported");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
        if (model.contains(key) && !model[key].is_null() && text(model[key], key) != "")
            refuse(std::string(key) + " is not supported (byte-level BPE has none)");

    HfBpe& bpe = spec.bpe;
    const json& vocab = member(model, "vocab", "the model");
    if (!vocab.is_object()) refuse("the model's vocab is not an object of token -> id");
    for (const auto& [token, id_value] : vocab.items()) {
        const int32_t token_id = id(id_value, "a vocab entry");
        bpe.vocab[token] = token_id;
        if (static_cast<std::size_t>(token_id) >= spec.id_to_token.size()) spec.id_to_token.resize(token_id + 1);
        spec.id_to_token[token_id] = token;
    }
    read_merges(member(model, "merges", "the model"), bpe);
    bpe.ignore_merges = flag(model, "ignore_merges", false);
    bpe.fuse_unk = flag(model, "fuse_unk", false);
    if (model.contains("unk_token") && !model["unk_token"].is_null()) {
        const auto it = bpe.vocab.find(text(model["unk_token"], "unk_token"));
        if (it == bpe.vocab.end()) refuse("unk_token is not in the vocab");
        bpe.unk = it->second;
    }
}

// Merges as "left right" strings (split at the first space) or [left, right] pairs; a
// merge's rank is its place in the list, and a repeated pair keeps its last rank, as
// tokenizers' map insert does.
void SpecReader::read_merges(const json& merges, HfBpe& bpe) const {
    if (!merges.is_array()) refuse("the model's merges are not a list");
    const auto lookup = [&](const std::string& token) {
        const auto it = bpe.vocab.find(token);
        if (it == bpe.vocab.end()) refuse("a merge names '" + token + "', which is not in the vocab");
        return it->second;
    };
    int32_t rank = 0;
    for (const json& merge : merges) {
        std::string left, right;
        if (merge.is_string()) {
            const std::string line = merge.get<std::string>();
            const std::size_t space = line.find(' ');
            if (space == std::string::npos) refuse("merge " + std::to_string(rank) + " is not 'left right'");
            left = line.substr(0, space);
            right = line.substr(space + 1);
        } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
            left = merge[0].get<std::string>();
            right = merge[1].get<std::string>();
        } else {
            refuse("merge " + std::to_string(rank) + " is neither 'left right' nor [left, right]");
        }
        const int32_t left_id = lookup(left), right_id = lookup(right), merged_id = lookup(left + right);
        bpe.merges[HfBpe::pair_key(left_id, right_id)] = {rank++, merged_id};
    }
}

void SpecReader::read_added_tokens(const json& tokens, HfTokenizerSpec& spec) const {
    if (tokens.is_null()) return;
    if (!tokens.is_array()) refuse("added_tokens is not a list");
    for (const json& t : tokens) {
        HfAddedToken token;
        token.id = id(member(t, "id", "an added token"), "an added token's id");
        token.content = text(member(t, "content", "an added token"), "an added token's content");
        token.special = flag(t, "special", false);
        token.lstrip = flag(t, "lstrip", false);
        token.rstrip = flag(t, "rstrip", false);
        if (flag(t, "single_word", false)) refuse("added token '" + token.content + "' has single_word, not supported");
        if (token.content.empty() || !is_valid_utf8(token.content)) refuse("an added token's content is empty or not UTF-8");
        if (static_cast<std::size_t>(token.id) >= spec.id_to_token.size()) spec.id_to_token.resize(token.id + 1);
        spec.id_to_token[token.id] = token.content;
        spec.added.push_back(std::move(token));
    }
}

void SpecReader::read_normalizer(const json& normalizer, HfTokenizerSpec& spec, int depth) const {
    check_depth(depth);
    if (normalizer.is_null()) return;
    const std::string type = type_of(normalizer, "the normalizer");
    if (type == "NFC") {
        spec.nfc = true;
    } else if (type == "Sequence") {
        const json& list = member(normalizer, "normalizers", "the Sequence normalizer");
        if (!list.is_array()) refuse("the Sequence normalizer's normalizers are not a list");
        for (const json& n : list) read_normalizer(n, spec, depth + 1);
    } else {
        refuse("normalizer " + type + " is not supported (none or NFC are)");
    }
}

SplitBehavior behavior_named(const SpecReader& r, const std::string& name) {
    if (name == "Removed") return SplitBehavior::Removed;
    if (name == "Isolated") return SplitBehavior::Isolated;
    if (name == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
    if (name == "MergedWithNext") return SplitBehavior::MergedWithNext;
    if (name == "Contiguous") return SplitBehavior::Contiguous;
    r.refuse("Split behavior '" + name + "' is not one tokenizers knows");
}

void SpecReader::read_pre_tokenizer(const json& part, HfTokenizerSpec& spec, int depth) const {
    check_depth(depth);
    const std::string type = type_of(part, "a pre_tokenizer");
    const bool after_byte_level = !spec.pre_tokenizer.empty() &&
                                  spec.pre_tokenizer.back().kind == PreTokenizerStep::Kind::ByteLevel;
    if (type == "Sequence") {
        const json& list = member(part, "pretokenizers", "the Sequence pre_tokenizer");
        if (!list.is_array()) refuse("the Sequence pre_tokenizer's pretokenizers are not a list");
        for (const json& p : list) read_pre_tokenizer(p, spec, depth + 1);
        return;
    }
    // Steps after ByteLevel would see its byte-level spelling: no model we know does that.
    if (after_byte_level) refuse("a " + type + " pre_tokenizer after ByteLevel is not supported");
    PreTokenizerStep step;
    if (type == "Split") {
        const json& pattern = member(part, "pattern", "the Split pre_tokenizer");
        if (pattern.contains("Regex")) step.regex = std::make_shared<OnigRegex>(text(pattern["Regex"], "a Split regex"));
        else if (pattern.contains("String")) step.literal = text(pattern["String"], "a Split string");
        else refuse("a Split pre_tokenizer's pattern is neither Regex nor String");
        step.behavior = behavior_named(*this, text(member(part, "behavior", "the Split pre_tokenizer"), "behavior"));
        step.invert = flag(part, "invert", false);
    } else if (type == "ByteLevel") {
        step.kind = PreTokenizerStep::Kind::ByteLevel;
        step.add_prefix_space = flag(part, "add_prefix_space", true);
        if (flag(part, "use_regex", true)) step.regex = std::make_shared<OnigRegex>(kByteLevelPattern);
    } else if (type == "Metaspace") {
        refuse("pre_tokenizer Metaspace (SentencePiece's) is not supported: only byte-level BPE is");
    } else {
        refuse("pre_tokenizer " + type + " is not supported (Sequence, Split and ByteLevel are)");
    }
    spec.pre_tokenizer.push_back(std::move(step));
}

void SpecReader::read_post_processor(const json& part, HfTokenizerSpec& spec, int depth) const {
    check_depth(depth);
    if (part.is_null()) return;
    const std::string type = type_of(part, "the post_processor");
    if (type == "ByteLevel") return;  // it only trims offsets: the ids stay
    if (type == "Sequence") {
        const json& list = member(part, "processors", "the Sequence post_processor");
        if (!list.is_array()) refuse("the Sequence post_processor's processors are not a list");
        for (const json& p : list) read_post_processor(p, spec, depth + 1);
        return;
    }
    if (type != "TemplateProcessing") refuse("post_processor " + type + " is not supported (TemplateProcessing is)");
    const json& single = member(part, "single", "TemplateProcessing");
    const json& special = member(part, "special_tokens", "TemplateProcessing");
    if (!single.is_array()) refuse("TemplateProcessing's single is not a list");
    bool seen_text = false;
    for (const json& item : single) {
        if (item.is_object() && item.contains("Sequence")) {
            if (seen_text || text(member(item["Sequence"], "id", "a Sequence item"), "a Sequence id") != "A")
                refuse("TemplateProcessing's single holds more than the sequence A");
            seen_text = true;
            continue;
        }
        const std::string name = text(member(member(item, "SpecialToken", "a template item"), "id", "a SpecialToken"),
                                      "a SpecialToken id");
        const json& ids = member(member(special, name.c_str(), "special_tokens"), "ids", "a special token");
        if (!ids.is_array()) refuse("special token " + name + "'s ids are not a list");
        for (const json& i : ids) (seen_text ? spec.suffix : spec.prefix).push_back(id(i, "a special token's id"));
    }
    if (!seen_text) refuse("TemplateProcessing's single has no sequence A");
}

void SpecReader::check_decoder(const json& part, int depth) const {
    check_depth(depth);
    if (part.is_null()) refuse("it has no decoder: a byte-level BPE needs the ByteLevel decoder");
    const std::string type = type_of(part, "the decoder");
    if (type == "Sequence") {
        const json& list = member(part, "decoders", "the Sequence decoder");
        if (!list.is_array() || list.empty()) refuse("the Sequence decoder's decoders are not a list");
        for (const json& d : list) check_decoder(d, depth + 1);
    } else if (type != "ByteLevel") {
        refuse("decoder " + type + " is not supported (ByteLevel is)");
    }
}

}  // namespace

HfTokenizerSpec parse_hf_tokenizer(const std::string& json_text, const std::string& where) {
    SpecReader r(where);
    const json doc = json::parse(json_text, nullptr, false);
    if (doc.is_discarded()) r.refuse("not valid JSON");
    if (!doc.is_object()) r.refuse("not a tokenizer.json (not a JSON object)");
    if (!doc.contains("model")) r.refuse("not a Hugging Face tokenizer.json (no \"model\"; a SentencePiece "
                                         "tokenizer.model alone is not supported)");
    if (doc.contains("truncation") && !doc["truncation"].is_null())
        r.refuse("truncation is set: attnscope does not cut texts to a length");
    HfTokenizerSpec spec;
    const json& vocab = doc["model"].is_object() && doc["model"].contains("vocab") ? doc["model"]["vocab"] : doc;
    r.max_id_ += static_cast<int64_t>(vocab.size() + doc.value("added_tokens", json()).size());
    r.read_model(doc["model"], spec);
    r.read_added_tokens(doc.value("added_tokens", json()), spec);
    r.read_normalizer(doc.value("normalizer", json()), spec);
    if (doc.contains("pre_tokenizer") && !doc["pre_tokenizer"].is_null()) r.read_pre_tokenizer(doc["pre_tokenizer"], spec);
    bool byte_level = false;
    for (const PreTokenizerStep& s : spec.pre_tokenizer) byte_level |= s.kind == PreTokenizerStep::Kind::ByteLevel;
    if (!byte_level) r.refuse("not a byte-level BPE: its pre_tokenizer has no ByteLevel step");
    r.read_post_processor(doc.value("post_processor", json()), spec);
    r.check_decoder(doc.value("decoder", json()));

    spec.added_by_id.assign(spec.id_to_token.size(), 0);
    for (const HfAddedToken& t : spec.added) spec.added_by_id[t.id] = t.special ? 2 : 1;
    for (const int32_t i : spec.prefix)
        if (static_cast<std::size_t>(i) >= spec.id_to_token.size()) r.refuse("a post_processor token id is outside the vocab");
    for (const int32_t i : spec.suffix)
        if (static_cast<std::size_t>(i) >= spec.id_to_token.size()) r.refuse("a post_processor token id is outside the vocab");
    return spec;
}

}  // namespace attn

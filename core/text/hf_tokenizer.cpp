#include "text/hf_tokenizer.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <mutex>

#include "base/file_io.h"
#include "text/byte_level.h"
#include "text/hf_tokenizer_spec.h"
#include "text/nfc_check.h"
#include "text/utf8.h"

namespace attn {

namespace {

// A stretch of the text: plain text to pre-tokenize, or one added token.
struct Segment {
    std::string_view text;
    int32_t added_id = -1;
};

// Rust's char::is_whitespace (Unicode White_Space), which lstrip and rstrip strip.
bool is_white_space(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::size_t skip_space_back(std::string_view text, std::size_t at, std::size_t floor) {
    while (at > floor) {
        std::size_t start = at - 1;
        while (start > floor && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
        const Utf8Char c = decode_utf8_char(text, start);
        if (c.len == 0 || !is_white_space(c.cp)) break;
        at = start;
    }
    return at;
}

std::size_t skip_space_forward(std::string_view text, std::size_t at) {
    while (at < text.size()) {
        const Utf8Char c = decode_utf8_char(text, at);
        if (c.len == 0 || !is_white_space(c.cp)) break;
        at += c.len;
    }
    return at;
}

// The added token matching at byte i, the longest of those that do (-1: none).
int longest_added_at(const HfTokenizerSpec& spec, std::string_view text, std::size_t i) {
    int best = -1;
    for (std::size_t k = 0; k < spec.added.size(); ++k) {
        const std::string& c = spec.added[k].content;
        if (c.size() <= text.size() - i && text.compare(i, c.size(), c) == 0 &&
            (best < 0 || c.size() > spec.added[best].content.size()))
            best = static_cast<int>(k);
    }
    return best;
}

// Added tokens are cut out of the raw text first, leftmost then longest (tokenizers'
// AddedVocabulary with its LeftmostLongest automaton), each taking the whitespace beside
// it where it has lstrip or rstrip.
std::vector<Segment> split_added_tokens(const HfTokenizerSpec& spec, std::string_view text) {
    std::array<bool, 256> starts{};
    for (const HfAddedToken& t : spec.added) starts[static_cast<unsigned char>(t.content[0])] = true;
    std::vector<Segment> segments;
    std::size_t done = 0;
    for (std::size_t i = 0; i < text.size();) {
        const int k = starts[static_cast<unsigned char>(text[i])] ? longest_added_at(spec, text, i) : -1;
        if (k < 0) {
            ++i;
            continue;
        }
        const HfAddedToken& token = spec.added[k];
        const std::size_t begin = token.lstrip ? skip_space_back(text, i, done) : i;
        const std::size_t end = token.rstrip ? skip_space_forward(text, i + token.content.size()) : i + token.content.size();
        if (begin > done) segments.push_back({text.substr(done, begin - done)});
        segments.push_back({text.substr(begin, end - begin), token.id});
        done = i = end;
    }
    if (done < text.size()) segments.push_back({text.substr(done)});
    return segments;
}

}  // namespace

bool names_tokenizer_json(std::string_view tokenizer) {
    constexpr std::string_view kName = "tokenizer.json";
    return tokenizer.size() >= kName.size() && tokenizer.substr(tokenizer.size() - kName.size()) == kName;
}

std::shared_ptr<const HfTokenizer> HfTokenizer::cached(const std::string& path) {
    struct Entry {
        std::string path;
        std::uintmax_t size = 0;
        std::filesystem::file_time_type time;
        std::shared_ptr<const HfTokenizer> tokenizer;
    };
    static std::mutex mutex;
    static Entry last;
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    const auto time = ec ? std::filesystem::file_time_type() : std::filesystem::last_write_time(path, ec);
    std::lock_guard<std::mutex> lock(mutex);
    if (ec || last.path != path || last.size != size || last.time != time || !last.tokenizer)
        last = {path, size, time, std::make_shared<const HfTokenizer>(from_file(path))};
    return last.tokenizer;
}

HfTokenizer HfTokenizer::from_file(const std::string& path) {
    std::string text;
    try {
        text = read_file_capped(path, kMaxFileBytes, "a tokenizer.json");
    } catch (const FileError& e) {
        if (e.problem == FileError::Problem::Missing) throw TokenizeError("tokenizer.json not found: " + path);
        throw TokenizeError(e.what());
    }
    return from_json(text, path);
}

HfTokenizer HfTokenizer::from_json(const std::string& json_text, const std::string& where) {
    return HfTokenizer(std::make_shared<const HfTokenizerSpec>(parse_hf_tokenizer(json_text, where)));
}

Tokenized HfTokenizer::encode_tokens(std::string_view text) const {
    if (!is_valid_utf8(text)) throw TokenizeError("the text is not valid UTF-8 (a tokenizer.json tokenizes text)");
    const HfTokenizerSpec& spec = *spec_;
    Tokenized out;
    int64_t word = 0;
    const auto add = [&](int32_t id) {
        out.ids.push_back(id);
        out.special.push_back(spec.added_by_id[id] == 2);
        out.word.push_back(word);
    };
    for (const int32_t id : spec.prefix) add(id), ++word;
    std::vector<int32_t> ids;
    for (const Segment& segment : split_added_tokens(spec, text)) {
        if (segment.added_id >= 0) {
            add(segment.added_id), ++word;
            continue;
        }
        if (spec.nfc) {
            // NFC changes only text that fails its quick check: such text is refused, not guessed.
            if (const std::optional<char32_t> cp = first_not_nfc(segment.text))
                throw TokenizeError("the text needs Unicode NFC normalization (at U+" + code_point_hex(*cp) +
                                    "), which attnscope does not do yet: type the composed characters");
        }
        for (const std::string& piece : pre_tokenize(spec.pre_tokenizer, segment.text)) {
            ids.clear();
            spec.bpe.encode_word(to_byte_level(piece), ids);
            for (const int32_t id : ids) add(id);
            ++word;
        }
    }
    for (const int32_t id : spec.suffix) add(id), ++word;
    return out;
}

std::vector<int64_t> HfTokenizer::encode_ids(std::string_view text) const { return encode_tokens(text).ids; }

Tokenized HfTokenizer::encode(std::string_view text) const {
    Tokenized out = encode_tokens(text);
    for (const int64_t id : out.ids) out.tokens.push_back(token_display(id));
    return out;
}

int64_t HfTokenizer::vocab_size() const { return static_cast<int64_t>(spec_->id_to_token.size()); }

bool HfTokenizer::is_special(int64_t id) const {
    return id >= 0 && id < vocab_size() && spec_->added_by_id[id] == 2;
}

// tokenizers' ByteLevel decoder: a token's characters spell bytes; a token with any
// character that spells none (an added token with a space, say) stands for its own text.
std::string HfTokenizer::token_bytes(int64_t id) const {
    if (id < 0 || id >= vocab_size() || spec_->id_to_token[id].empty())
        throw TokenizeError("token id " + std::to_string(id) + " is not in the tokenizer's vocabulary");
    const std::string& token = spec_->id_to_token[id];
    return from_byte_level(token).value_or(token);
}

std::string HfTokenizer::decode(const std::vector<int64_t>& ids) const {
    std::string out;
    for (const int64_t id : ids) out += token_bytes(id);
    return out;
}

std::string HfTokenizer::token_display(int64_t id) const {
    if (id >= 0 && id < vocab_size() && spec_->added_by_id[id] != 0) return spec_->id_to_token[id];
    return readable_bytes(token_bytes(id));
}

}  // namespace attn

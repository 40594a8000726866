#include "text/gpt2_tokenizer.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "base/data_dir.h"
#include "base/file_io.h"
#include "text/gpt2_pretokenizer.h"
#include "text/utf8.h"

namespace attn {

namespace {

constexpr std::string_view kEndOfTextText = "<|endoftext|>";

// encoder.json spells each byte as a printable code point (GPT-2's bytes_to_unicode):
// printable Latin-1 bytes stand for themselves, the other 68 bytes are U+0100.. in order.
// Returns code point -> byte, -1 for code points that spell no byte.
std::array<int, 324> make_byte_decoder() {
    std::array<int, 324> dec{};
    dec.fill(-1);
    auto printable = [](int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); };
    int next = 256;
    for (int b = 0; b < 256; ++b) dec[printable(b) ? b : next++] = b;
    return dec;
}

// Reads {"token": id, ...} without building a DOM: encoder.json holds 50257 entries and a
// DOM would cost most of the load time.
class EncoderJsonReader : public nlohmann::json_sax<nlohmann::json> {
public:
    std::vector<std::pair<std::string, int64_t>> entries;
    std::string error;

    bool key(string_t& k) override {
        key_ = std::move(k);
        return true;
    }
    bool number_integer(number_integer_t v) override { return add(v); }
    bool number_unsigned(number_unsigned_t v) override { return add(static_cast<int64_t>(v)); }
    bool start_object(std::size_t) override { return ++depth_ == 1 || fail("nested object"); }
    bool end_object() override {
        --depth_;
        return true;
    }
    bool null() override { return fail("null value"); }
    bool boolean(bool) override { return fail("boolean value"); }
    bool number_float(number_float_t, const string_t&) override { return fail("fractional id"); }
    bool string(string_t&) override { return fail("string value"); }
    bool binary(binary_t&) override { return fail("binary value"); }
    bool start_array(std::size_t) override { return fail("array"); }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override {
        return fail("syntax error at byte " + std::to_string(position));
    }

private:
    bool add(int64_t id) {
        if (depth_ != 1) return fail("id outside the object");
        entries.emplace_back(std::move(key_), id);
        return true;
    }
    bool fail(const std::string& why) {
        if (error.empty()) error = why;
        return false;
    }
    std::string key_;
    int depth_ = 0;
};

// encoder.json is about 1 MB; the cap only stops a wrong file from filling the memory.
constexpr std::uintmax_t kMaxVocabularyBytes = 16u << 20;

std::string read_file(const std::string& path) {
    try {
        return read_file_capped(path, kMaxVocabularyBytes, "GPT-2's vocabulary");
    } catch (const FileError& e) {
        if (e.problem == FileError::Problem::Missing) throw TokenizeError("GPT-2 vocabulary not found: " + path);
        throw TokenizeError(std::string("GPT-2 vocabulary unusable: ") + e.what());
    }
}

// Keys are short (most tokens are under 8 bytes): mix 8-byte words, then the length.
uint64_t hash_bytes(std::string_view s) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    if (i < s.size()) {
        uint64_t w = 0;
        std::memcpy(&w, s.data() + i, s.size() - i);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    h *= 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 29);
}

}  // namespace

Gpt2Tokenizer::Gpt2Tokenizer() : Gpt2Tokenizer(data_path("gpt2")) {}

Gpt2Tokenizer::Gpt2Tokenizer(const std::string& vocab_dir) {
    const std::string path = vocab_dir + "/encoder.json";
    const std::string json = read_file(path);
    EncoderJsonReader reader;
    const bool ok = nlohmann::json::sax_parse(json, &reader);
    auto bad = [&](const std::string& why) {
        return TokenizeError("GPT-2 vocabulary " + path + " is unusable: " + why);
    };
    if (!ok) throw bad(reader.error.empty() ? "not JSON" : reader.error);
    if (reader.entries.size() != static_cast<std::size_t>(kVocabSize))
        throw bad(std::to_string(reader.entries.size()) + " entries, expected " + std::to_string(kVocabSize));

    static const std::array<int, 324> byte_decoder = make_byte_decoder();
    std::vector<std::string> by_id(kVocabSize);
    std::vector<bool> seen(kVocabSize, false);
    for (auto& [spelled, id] : reader.entries) {
        if (id < 0 || id >= kVocabSize || seen[id]) throw bad("id " + std::to_string(id) + " out of range or repeated");
        seen[id] = true;
        std::string bytes;
        for (std::size_t i = 0; i < spelled.size();) {
            const Utf8Char c = decode_utf8_char(spelled, i);
            if (c.len == 0 || c.cp >= byte_decoder.size() || byte_decoder[c.cp] < 0)
                throw bad("token " + std::to_string(id) + " is not spelled in GPT-2's byte alphabet");
            bytes.push_back(static_cast<char>(byte_decoder[c.cp]));
            i += c.len;
        }
        by_id[id] = std::move(bytes);
    }
    if (by_id[kEndOfText] != kEndOfTextText) throw bad("id 50256 is not <|endoftext|>");

    offsets_.reserve(kVocabSize + 1);
    for (const std::string& t : by_id) {
        offsets_.push_back(static_cast<uint32_t>(bytes_.size()));
        bytes_ += t;
    }
    offsets_.push_back(static_cast<uint32_t>(bytes_.size()));

    // Load factor under 0.4 keeps probe chains short.
    slots_.assign(std::size_t{1} << 17, -1);
    slot_mask_ = slots_.size() - 1;
    for (int32_t id = 0; id < kEndOfText; ++id) {  // the special token is never merged into
        const std::string_view t = token_bytes(id);
        std::size_t slot = hash_bytes(t) & slot_mask_;
        while (slots_[slot] >= 0) {
            if (token_bytes(slots_[slot]) == t) throw bad("token " + std::to_string(id) + " repeats the bytes of another");
            slot = (slot + 1) & slot_mask_;
        }
        slots_[slot] = id;
    }
    for (int b = 0; b < 256; ++b)
        if (rank_of(std::string_view(reinterpret_cast<const char*>(&b), 1)) < 0)
            throw bad("byte " + std::to_string(b) + " has no token");
}

std::string_view Gpt2Tokenizer::token_bytes(int64_t id) const {
    check_id(id);
    return std::string_view(bytes_).substr(offsets_[id], offsets_[id + 1] - offsets_[id]);
}

void Gpt2Tokenizer::check_id(int64_t id) const {
    if (id < 0 || id >= kVocabSize)
        throw TokenizeError("token id " + std::to_string(id) + " is outside GPT-2's vocabulary (0.." +
                            std::to_string(kVocabSize - 1) + ")");
}

int32_t Gpt2Tokenizer::rank_of(std::string_view bytes) const {
    std::size_t slot = hash_bytes(bytes) & slot_mask_;
    for (;;) {
        const int32_t id = slots_[slot];
        if (id < 0) return -1;
        if (offsets_[id + 1] - offsets_[id] == bytes.size() &&
            std::memcmp(bytes_.data() + offsets_[id], bytes.data(), bytes.size()) == 0)
            return id;
        slot = (slot + 1) & slot_mask_;
    }
}

// tiktoken's byte-pair merge: repeatedly join the adjacent pair whose joined bytes have the
// lowest rank (leftmost on ties) until no joined pair is a token. A heap of candidate pairs
// makes this O(n log n), so a 1 MB run of letters doesn't take O(n^2); stale candidates are
// skipped when popped. In GPT-2 a token's rank is its id.
template <class Sink>
void Gpt2Tokenizer::merge_piece(std::string_view piece, std::size_t offset, std::vector<uint32_t>& scratch,
                                Sink&& sink) const {
    const int32_t whole = rank_of(piece);  // tiktoken's shortcut, and most English words
    if (whole >= 0) {
        sink(whole, offset, offset + piece.size());
        return;
    }
    const auto n = static_cast<uint32_t>(piece.size());
    // end[i]: end of the part starting at byte i (0 once that part was merged leftwards);
    // prev[i]: start of the part before it.
    scratch.resize(2 * std::size_t{n});
    uint32_t* end = scratch.data();
    uint32_t* prev = end + n;
    struct Candidate {
        int32_t rank;
        uint32_t start, mid, stop;  // parts [start, mid) and [mid, stop)
    };
    auto later = [](const Candidate& a, const Candidate& b) {
        return a.rank != b.rank ? a.rank > b.rank : a.start > b.start;
    };
    std::vector<Candidate> heap;
    auto offer = [&](uint32_t start, uint32_t mid, uint32_t stop) {
        const int32_t r = rank_of(piece.substr(start, stop - start));
        if (r < 0) return;
        heap.push_back({r, start, mid, stop});
        std::push_heap(heap.begin(), heap.end(), later);
    };
    for (uint32_t i = 0; i < n; ++i) {
        end[i] = i + 1;
        prev[i] = i - 1;
    }
    for (uint32_t i = 0; i + 1 < n; ++i) offer(i, i + 1, i + 2);
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const Candidate c = heap.back();
        heap.pop_back();
        if (end[c.start] != c.mid || end[c.mid] != c.stop) continue;  // a part changed since
        end[c.start] = c.stop;
        end[c.mid] = 0;
        if (c.stop < n) prev[c.stop] = c.start;
        if (c.start > 0) offer(prev[c.start], c.start, c.stop);
        if (c.stop < n) offer(c.start, c.stop, end[c.stop]);
    }
    for (uint32_t i = 0; i < n; i = end[i]) sink(rank_of(piece.substr(i, end[i] - i)), offset + i, offset + end[i]);
}

template <class Sink>
void Gpt2Tokenizer::encode_into(std::string_view text, Sink&& sink) const {
    std::vector<uint32_t> scratch;
    std::size_t word = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t special = text.find(kEndOfTextText, pos);
        const std::size_t seg_end = special == std::string_view::npos ? text.size() : special;
        // The regex sees only the text up to the special token (its lookahead stops there).
        const std::string_view segment = text.substr(0, seg_end);
        for (std::size_t i = pos; i < seg_end; ++word) {
            const std::size_t j = gpt2_piece_end(segment, i);
            merge_piece(segment.substr(i, j - i), i, scratch,
                        [&](int64_t id, std::size_t b, std::size_t e) { sink(id, b, e, word); });
            i = j;
        }
        if (special == std::string_view::npos) break;
        sink(kEndOfText, special, special + kEndOfTextText.size(), word++);
        pos = special + kEndOfTextText.size();
    }
}

std::vector<int64_t> Gpt2Tokenizer::encode_ids(std::string_view text) const {
    std::vector<int64_t> ids;
    ids.reserve(text.size() / 4);
    encode_into(text, [&](int64_t id, std::size_t, std::size_t, std::size_t) { ids.push_back(id); });
    return ids;
}

Tokenized Gpt2Tokenizer::encode(std::string_view text) const {
    return encode_with_spans(text).tokenized;
}

Gpt2Encoding Gpt2Tokenizer::encode_with_spans(std::string_view text) const {
    Gpt2Encoding out;
    encode_into(text, [&](int64_t id, std::size_t b, std::size_t e, std::size_t word) {
        out.tokenized.ids.push_back(id);
        out.tokenized.tokens.push_back(token_display(id));
        out.spans.push_back({b, e});
        out.words.push_back(word);
    });
    return out;
}

std::string Gpt2Tokenizer::decode(const std::vector<int64_t>& ids) const {
    std::string out;
    for (const int64_t id : ids) out += token_bytes(id);
    return out;
}

std::string Gpt2Tokenizer::token_display(int64_t id) const { return readable_bytes(token_bytes(id)); }

const Gpt2Tokenizer& gpt2_tokenizer() {
    static const Gpt2Tokenizer tokenizer;
    return tokenizer;
}

}  // namespace attn

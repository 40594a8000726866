#pragma once
// The one writer of the CLI's JSON: numbers in their shortest round-trip form, inf and nan
// (a masked score, a checked module's own) as null, text as UTF-8 (a stray byte as
// U+FFFD), matrices as nested lists (a vector as one list).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

#include "numerics/tensor.h"
#include "text/tokenizer.h"
#include "base/decimal_text.h"

namespace attn {

class JsonWriter {
public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}

    void number(float v) {
        if (!std::isfinite(v)) {  // a masked -inf, or a checked module's own inf or nan: JSON has neither
            out_ << "null";
            return;
        }
        out_ << shortest_decimal(v);
    }

    void string(const std::string& s) {
        out_ << '"';
        for (size_t i = 0; i < s.size();) {
            const auto c = static_cast<unsigned char>(s[i]);
            const size_t len = utf8_length(s, i);
            if (len == 0) {  // not UTF-8: JSON must be, so say U+FFFD
                out_ << "\\ufffd";
                ++i;
                continue;
            }
            if (c == '"' || c == '\\') out_ << '\\' << static_cast<char>(c);
            else if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out_ << buf;
            } else out_.write(s.data() + i, static_cast<std::streamsize>(len));
            i += len;
        }
        out_ << '"';
    }

    void matrix(const Matrix& m, bool as_vector) {
        if (as_vector) {
            row(m, 0);
            return;
        }
        out_ << '[';
        for (Eigen::Index r = 0; r < m.rows(); ++r) {
            if (r) out_ << ',';
            row(m, r);
        }
        out_ << ']';
    }

    std::ostream& raw() { return out_; }

private:
    void row(const Matrix& m, Eigen::Index r) {
        out_ << '[';
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            if (c) out_ << ',';
            number(m(r, c));
        }
        out_ << ']';
    }

    // Length of the valid UTF-8 sequence at s[i], or 0 if there is none.
    static size_t utf8_length(const std::string& s, size_t i) {
        const auto c = static_cast<unsigned char>(s[i]);
        size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        if (len == 0 || i + len > s.size()) return 0;
        for (size_t k = 1; k < len; ++k)
            if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
        return len;
    }

    std::ostream& out_;
};

// ,"tokens_key":[...],"ids_key":[...]
inline void write_tokens(JsonWriter& w, const char* tokens_key, const char* ids_key, const Tokenized& t) {
    w.raw() << ",\"" << tokens_key << "\":[";
    for (size_t i = 0; i < t.tokens.size(); ++i) {
        if (i) w.raw() << ',';
        w.string(t.tokens[i]);
    }
    w.raw() << "],\"" << ids_key << "\":[";
    for (size_t i = 0; i < t.ids.size(); ++i) w.raw() << (i ? "," : "") << t.ids[i];
    w.raw() << ']';
}

}  // namespace attn

#pragma once
// A regular expression run by Oniguruma, the engine Hugging Face's `tokenizers` runs a
// tokenizer.json's patterns with (its SysRegex: onig::Regex::new, i.e. Oniguruma's default
// syntax over UTF-8). The same engine gives the same matches, including \p{L}, (?i:...)
// and lookahead, which a hand-written matcher per model would only approximate.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn {

struct Utf8Match {
    std::size_t begin;
    std::size_t end;  // exclusive byte offsets
};

class OnigRegex {
public:
    // Throws TokenizeError with Oniguruma's message for a pattern it does not compile.
    explicit OnigRegex(std::string_view pattern);
    ~OnigRegex();
    OnigRegex(const OnigRegex&) = delete;
    OnigRegex& operator=(const OnigRegex&) = delete;
    OnigRegex(OnigRegex&& other) noexcept : regex_(std::exchange(other.regex_, nullptr)) {}
    OnigRegex& operator=(OnigRegex&&) = delete;

    // Every match, left to right, as the onig crate's find_iter yields them: a search from
    // the end of the previous match; an empty match right where the previous one ended is
    // skipped by stepping one character. `text` must be valid UTF-8.
    std::vector<Utf8Match> find_all(std::string_view text) const;

private:
    void* regex_ = nullptr;  // regex_t*
};

}  // namespace attn

#include "text/onig_regex.h"

#include <oniguruma.h>

#include <memory>
#include <mutex>

#include "text/tokenizer.h"
#include "text/utf8.h"

namespace attn {

namespace {

regex_t* as_regex(void* r) { return static_cast<regex_t*>(r); }

std::string onig_message(int code, OnigErrorInfo* info) {
    UChar text[ONIG_MAX_ERROR_MESSAGE_LEN];
    onig_error_code_to_str(text, code, info);
    return reinterpret_cast<const char*>(text);
}

// Oniguruma wants its encodings registered once per process before the first pattern.
void initialize_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
        onig_initialize(encodings, 1);
    });
}

}  // namespace

OnigRegex::OnigRegex(std::string_view pattern) {
    initialize_once();
    if (!is_valid_utf8(pattern)) throw TokenizeError("a pre-tokenizer pattern is not valid UTF-8");
    const auto* p = reinterpret_cast<const UChar*>(pattern.data());
    regex_t* regex = nullptr;
    OnigErrorInfo info{};
    const int rc = onig_new(&regex, p, p + pattern.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8,
                            ONIG_SYNTAX_DEFAULT, &info);
    if (rc != ONIG_NORMAL) {
        throw TokenizeError("a pre-tokenizer pattern does not compile (" + onig_message(rc, &info) + "): " +
                            std::string(pattern.substr(0, 120)));
    }
    regex_ = regex;
}

OnigRegex::~OnigRegex() {
    if (regex_) onig_free(as_regex(regex_));
}

std::vector<Utf8Match> OnigRegex::find_all(std::string_view text) const {
    std::unique_ptr<OnigRegion, void (*)(OnigRegion*)> region(onig_region_new(),
                                                              [](OnigRegion* r) { onig_region_free(r, 1); });
    const auto* str = reinterpret_cast<const UChar*>(text.data());
    const UChar* end = str + text.size();
    std::vector<Utf8Match> matches;
    std::size_t from = 0;
    bool matched_before = false;
    std::size_t last_match_end = 0;
    while (from <= text.size()) {
        onig_region_clear(region.get());
        const int rc = onig_search(as_regex(regex_), str, end, str + from, end, region.get(), ONIG_OPTION_NONE);
        if (rc == ONIG_MISMATCH) break;
        if (rc < 0) throw TokenizeError("the pre-tokenizer's regex failed on this text (" + onig_message(rc, nullptr) + ")");
        const auto b = static_cast<std::size_t>(region->beg[0]);
        const auto e = static_cast<std::size_t>(region->end[0]);
        if (b == e && matched_before && last_match_end == e) {
            // No empty match right after the previous match: step over one character.
            const std::size_t len = from < text.size() ? decode_utf8_char(text, from).len : 1;
            from += len > 0 ? len : 1;
            continue;
        }
        from = e;
        matched_before = true;
        last_match_end = e;
        matches.push_back({b, e});
    }
    return matches;
}

}  // namespace attn

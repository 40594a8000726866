// The simple tokenizer's corpus file (--corpus FILE, the app's corpus picker): the input is
// the file's bytes. load_corpus accepts exactly non-empty UTF-8 text without NUL bytes;
// an accepted corpus then gives the vocabulary of a whole pipeline run.
#include "fuzz_common.h"
#include "text/simple_tokenizer.h"
#include "text/utf8.h"

using namespace attn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = fuzz::write_temp("fuzz-corpus", data, size);
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    std::string text;
    const bool loaded = fuzz::refusals_are_fine([&] { text = SimpleTokenizerV2::load_corpus(path); });
    const bool text_file = size > 0 && bytes.find('\0') == std::string_view::npos && is_valid_utf8(bytes);
    fuzz::check(loaded == text_file, "load_corpus accepts exactly non-empty UTF-8 without NUL");
    if (!loaded) return 0;
    fuzz::check(text == bytes, "load_corpus returns the file's bytes");

    Settings s;
    s.tokenizer = "simple";
    s.corpus_file = path;
    s.text = "I HAD always thought Jack Gisburn rather a cheap genius--though a good fellow enough";
    fuzz::refusals_are_fine([&] { compute(s); });
    return 0;
}

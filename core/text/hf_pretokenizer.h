#pragma once
// A tokenizer.json's pre_tokenizer: steps that cut the text into the words the BPE model
// merges within. Each step cuts every piece the previous steps left, as tokenizers'
// PreTokenizedString::split does: Split (a regex or a literal, with a behaviour for the
// matches) and ByteLevel (an optional leading space, then GPT-2's regex if use_regex).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text/onig_regex.h"

namespace attn {

// What happens to the matched parts (tokenizers' SplitDelimiterBehavior).
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

struct PreTokenizerStep {
    enum class Kind { Split, ByteLevel } kind = Kind::Split;
    std::shared_ptr<const OnigRegex> regex;  // Split's Regex pattern; ByteLevel's GPT-2 regex if use_regex
    std::string literal;                     // Split's String pattern (when regex is null)
    SplitBehavior behavior = SplitBehavior::Isolated;
    bool invert = false;                     // Split: the matches are the parts between
    bool add_prefix_space = false;           // ByteLevel: a space before a piece not starting with one
};

// GPT-2's pattern, which ByteLevel with use_regex splits with (tokenizers' byte_level.rs).
extern const char* const kByteLevelPattern;

// The words of `text` (one segment between added tokens, already normalized), in order;
// empty pieces are dropped as tokenizers drops them.
std::vector<std::string> pre_tokenize(const std::vector<PreTokenizerStep>& steps, std::string_view text);

}  // namespace attn

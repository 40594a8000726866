#pragma once
// What hf_tokenizer_json.cpp reads out of a tokenizer.json, for hf_tokenizer.cpp to run.
#include <cstdint>
#include <string>
#include <vector>

#include "text/hf_bpe.h"
#include "text/hf_pretokenizer.h"

namespace attn {

struct HfAddedToken {
    int32_t id = 0;
    std::string content;
    bool special = false;
    bool lstrip = false;      // the match takes the whitespace before it
    bool rstrip = false;      // ... and after it
};

struct HfTokenizerSpec {
    HfBpe bpe;
    std::vector<std::string> id_to_token;        // id -> vocabulary string or added token's content
    std::vector<HfAddedToken> added;             // matched in the raw text
    std::vector<char> added_by_id;               // id -> 1 for an added token, 2 for a special one
    bool nfc = false;                            // normalizer NFC
    std::vector<PreTokenizerStep> pre_tokenizer;
    std::vector<int32_t> prefix, suffix;         // TemplateProcessing's single: ids around the text
};

// Parses tokenizer.json's text (hf_tokenizer_json.cpp). Throws TokenizeError "WHERE: REASON".
HfTokenizerSpec parse_hf_tokenizer(const std::string& json_text, const std::string& where);

}  // namespace attn

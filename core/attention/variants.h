#pragma once
// The variant table: one row per attention variant, in the order the book builds
// them. Which settings a variant takes is a column here; the settings table
// (setting_table.h) names the column, so a new variant is one row plus its engine code.
#include <optional>
#include <string>
#include <vector>

namespace attn {

enum class Variant { Simplified, SelfV1, SelfV2, Causal, MhaWrapper, Mha, Cross, Gqa, Swa, Mla };

struct VariantInfo {
    Variant id;
    const char* name;       // CLI, session files, JSON: "self-v1"
    const char* section;    // the book's section ("3.4"), "ch4+" for its chapter 4 bonus material, or "" for the seed documents' own
    const char* label;      // the app's list: "self-attention v1"
    const char* heads_are;  // what --heads makes: "stacked modules", "a split of d_out", "" (one head)
    // Which settings apply (setting_table.cpp names these columns).
    bool heads;          // --heads above 1
    bool projections;    // W_query, W_key, W_value (so d_out)
    bool d_out_v;        // a value width of its own
    bool qkv_bias;       // nn.Linear(bias=...)
    bool dropout;        // nn.Dropout on the weights: --dropout, --eval, --dropout-seed
    bool causal_toggle;  // --causal masks it (causal, mha-wrapper and mha are causal by construction)
    bool second_text;    // keys and values from a second text (--text2, --kv-len)
    bool all = true;     // the column of the settings every variant takes
    // Today's variants (the book's bonus material, chapter 4): the settings only they take.
    bool kv_groups = false;  // --kv-groups: heads share key/value groups
    bool rope = false;       // --rope, --rope-base: queries and keys rotated by position
    bool window = false;     // --window: a key is seen only by the next W queries
    bool latent = false;     // --latent-dim: keys and values up-projected from a cached latent
    // Projected once and split into heads, then out_proj (mha and today's variants);
    // the others stack one module per head.
    bool split = false;
};

const std::vector<VariantInfo>& variants();  // in Variant order
const VariantInfo& variant_info(Variant v);
std::optional<Variant> variant_from_name(const std::string& name);
std::string variant_name(Variant v);
const std::vector<std::string>& variant_names();  // in Variant order
bool variant_has_dropout(Variant v);
bool splits_heads(Variant v);

// "self-v1, mha-wrapper, mha, cross": the variants whose column is true.
std::string variants_with(bool VariantInfo::*column);

}  // namespace attn

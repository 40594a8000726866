#include "attention/variants.h"

namespace attn {

namespace {

// clang-format off
const std::vector<VariantInfo> kVariants = {
    // id                 name           section label                        heads are           heads  proj   d_out_v bias   dropout causal 2nd text
    //                    all   kv groups rope  window latent split
    {Variant::Simplified, "simplified",  "3.3", "simplified (no weights)",    "",                 false, false, false,  false, false,  false, false},
    {Variant::SelfV1,     "self-v1",     "3.4", "self-attention v1",          "stacked modules",  true,  true,  true,   false, false,  true,  false},
    {Variant::SelfV2,     "self-v2",     "3.4", "self-attention v2",          "",                 false, true,  false,  true,  false,  true,  false},
    {Variant::Causal,     "causal",      "3.5", "causal + dropout",           "",                 false, true,  false,  true,  true,   false, false},
    {Variant::MhaWrapper, "mha-wrapper", "3.6", "multi-head wrapper",         "stacked modules",  true,  true,  false,  true,  true,   false, false},
    {Variant::Mha,        "mha",         "3.6", "multi-head (weight split)",  "a split of d_out", true,  true,  false,  true,  true,   false, false,
                          true, false,    false, false, false, true},
    {Variant::Cross,      "cross",       "",    "cross-attention",            "stacked modules",  true,  true,  true,   false, false,  true,  true},
    {Variant::Gqa,        "gqa",         "ch4+", "grouped-query (GQA, RoPE)", "a split of d_out", true,  true,  false,  true,  true,   false, false,
                          true, true,     true,  false, false, true},
    {Variant::Swa,        "swa",         "ch4+", "sliding-window (SWA)",      "a split of d_out", true,  true,  false,  true,  true,   false, false,
                          true, false,    false, true,  false, true},
    {Variant::Mla,        "mla",         "ch4+", "multi-head latent (MLA)",   "a split of d_out", true,  true,  false,  true,  true,   false, false,
                          true, false,    false, false, true,  true},
};
// clang-format on

}  // namespace

const std::vector<VariantInfo>& variants() { return kVariants; }

const VariantInfo& variant_info(Variant v) { return kVariants.at(static_cast<size_t>(v)); }

std::optional<Variant> variant_from_name(const std::string& name) {
    for (const VariantInfo& v : kVariants)
        if (name == v.name) return v.id;
    return std::nullopt;
}

std::string variant_name(Variant v) { return variant_info(v).name; }

const std::vector<std::string>& variant_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const VariantInfo& v : kVariants) out.emplace_back(v.name);
        return out;
    }();
    return names;
}

bool variant_has_dropout(Variant v) { return variant_info(v).dropout; }

bool splits_heads(Variant v) { return variant_info(v).split; }

std::string variants_with(bool VariantInfo::*column) {
    std::string out;
    for (const VariantInfo& v : kVariants)
        if (v.*column) out += (out.empty() ? "" : ", ") + std::string(v.name);
    return out;
}

}  // namespace attn

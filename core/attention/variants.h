#pragma once
// The variant table: one row per attention variant, in the order the book builds
// them. A row says what the variant is (its name, section, label, heads), which settings
// it takes (the settings table, setting_table.h, names these columns), whether it masks
// the future, what its KV cache holds, which class the emitted PyTorch program uses, and
// the two functions that are the variant: its layers, built in its class's order, and
// its forward (core/attention/variants/NAME.cpp). The engine, the KV cache walk, the
// memory budget and the emitter read the row; none switches on the variant.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "numerics/tensor.h"

namespace attn {

enum class Variant { Simplified, SelfV1, SelfV2, Causal, MhaWrapper, Mha, Cross, Gqa, Swa, Mla, Alibi };

// What a variant's KV cache holds for each token fed (the KV cache walk, docs/variants.md).
enum class KvCache {
    None,    // a chapter 3 module of stacked heads: no cache to walk
    Heads,   // a key and a value of every head (mha, swa: the book's ch04/03_kv-cache)
    Groups,  // a key and a value of every key/value group (gqa)
    Latent,  // the latent row alone; keys and values come up from it at every step (mla)
};

struct AttentionModule;
struct KeptStages;
struct Trace;
class TorchGenerator;
// Draws the variant's layers from `gen` in its class's order into `m` (cfg and d_in set).
using BuildLayers = void (*)(AttentionModule& m, TorchGenerator& gen);
// What a forward leaves for its heads once it has projected the inputs: each head's
// stages (attend(h), the heads in any order, or in parallel), then finish() (the heads'
// context vectors combined, out_proj). A page with one thread runs a head between two
// frames (forward_steps.h). The closures hold the module, inputs, `keep` and trace they
// were given by reference: those stay where they are until finish() has run.
struct HeadWork {
    int heads = 0;
    bool parallel = false;  // the heads are worth threads (forward_parts.h: worth_threads)
    std::function<void(int head)> attend;
    std::function<void()> finish;
};
// The variant's forward: every stage `keep` asks for, into `t`, which holds the inputs.
// x2 is cross-attention's second text (null: the module's random rows).
using Forward = HeadWork (*)(const AttentionModule& m, const Matrix& x, const Matrix* x2, const KeptStages& keep,
                             Trace& t);

struct VariantInfo {
    Variant id;
    const char* name;       // CLI, session files, JSON: "self-v1"
    const char* section;    // the book's section ("3.4"), "ch4+" for its chapter 4 bonus material, or "" (the seed documents' own, a paper's)
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
    bool alibi = false;      // linear biases on the scores, a slope per head (the position_bias stage)
    // Projected once and split into heads, then out_proj (mha and today's variants);
    // the others stack one module per head.
    bool split = false;
    bool always_causal = false;  // triu(ones, 1) built into its class (else causal_toggle decides)
    KvCache kv_cache = KvCache::None;
    bool class_caches = false;  // its class's forward(x, use_cache=True) fills a cache (ch04's)
    const char* py_class = "";  // the class the emitted PyTorch program builds ("" for 3.3)
    BuildLayers build = nullptr;
    Forward forward = nullptr;
};

const std::vector<VariantInfo>& variants();  // in Variant order
const VariantInfo& variant_info(Variant v);
std::optional<Variant> variant_from_name(const std::string& name);
std::string variant_name(Variant v);
const std::vector<std::string>& variant_names();  // in Variant order
bool variant_has_dropout(Variant v);
bool splits_heads(Variant v);
bool has_kv_cache(Variant v);  // a cache to walk: mha and today's variants

// "self-v1, mha-wrapper, mha, cross": the variants whose column is true.
std::string variants_with(bool VariantInfo::*column);

}  // namespace attn

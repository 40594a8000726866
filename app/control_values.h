#pragma once
// What the controls edit, and how it becomes the engine's Settings. Settings the
// app has no control for (embedding, vocab size, batch, dropout seed, ...) keep the
// values given on the command line.
#include <optional>
#include <string>

#include "settings.h"

namespace app {

struct ControlValues {
    std::string text;
    std::string text2;  // cross-attention's keys and values; empty = torch.rand rows
    std::string tokenizer = "words";         // words | simple | gpt2
    std::optional<std::string> corpus_file;  // simple's vocabulary; none = the typed text
    int context_length = 0;                  // positional table rows; 0 = the token count
    attn::Variant variant = attn::Variant::SelfV1;
    int seed = 123;
    int embed_seed = 123;
    int d_in = 3;
    int d_out = 2;
    int d_out_v = 2;
    bool d_out_v_follows_d_out = true;  // until the user moves d_out_v itself
    int heads = 1;
    float dropout = 0.0f;
    bool training = true;
    bool qkv_bias = false;
    bool pos = false;
    bool causal = false;
    int kv_len = 8;
};

ControlValues controls_from(const attn::Settings& s);
// `fixed` carries what the controls do not edit.
attn::Settings settings_from(const ControlValues& c, const attn::Settings& fixed);

// Which controls a variant uses: the others are greyed out and not passed on, so
// that switching variants never turns a setting of another variant into an error.
bool variant_has_heads(attn::Variant v);
bool variant_has_d_out_v(attn::Variant v);
bool variant_has_qkv_bias(attn::Variant v);
bool variant_has_causal_toggle(attn::Variant v);
bool variant_has_projections(attn::Variant v);

// True when b differs from a only in what follows the softmax weights (dropout rate,
// training mode), so attn::recompute_dropout on a's run gives b's run.
bool differs_only_in_dropout(const attn::Settings& a, const attn::Settings& b);

}  // namespace app

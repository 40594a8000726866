#include "control_values.h"

#include <algorithm>
#include <climits>

namespace app {

namespace {

int to_int(uint64_t v) { return static_cast<int>(std::min<uint64_t>(v, INT_MAX)); }

}  // namespace

ControlValues controls_from(const attn::Settings& s) {
    const attn::AttentionConfig& a = s.attention;
    ControlValues c;
    c.text = s.text;
    c.text2 = s.text2.value_or("");
    c.tokenizer = s.tokenizer;
    c.corpus_file = s.corpus_file;
    c.context_length = s.context_length ? to_int(static_cast<uint64_t>(*s.context_length)) : 0;
    c.variant = a.variant;
    c.seed = to_int(a.seed);
    c.embed_seed = to_int(s.embed_seed);
    c.d_in = s.d_in;
    c.d_out = a.d_out;
    c.d_out_v = s.d_out_v.value_or(a.d_out);
    c.d_out_v_follows_d_out = !s.d_out_v;
    c.heads = a.heads;
    c.dropout = static_cast<float>(a.dropout);
    c.training = a.training;
    c.qkv_bias = a.qkv_bias;
    c.pos = s.pos;
    c.causal = a.causal;
    c.kv_len = a.kv_len;
    return c;
}

attn::Settings settings_from(const ControlValues& c, const attn::Settings& fixed) {
    attn::Settings s = fixed;
    attn::AttentionConfig& a = s.attention;
    s.text = c.text;
    s.text2 = c.variant == attn::Variant::Cross && !c.text2.empty() ? std::optional<std::string>(c.text2)
                                                                   : std::nullopt;
    s.tokenizer = c.tokenizer;
    s.corpus_file = c.tokenizer == "simple" ? c.corpus_file : std::nullopt;
    s.context_length = c.pos && c.context_length > 0 ? std::optional<int64_t>(c.context_length) : std::nullopt;
    a.variant = c.variant;
    a.seed = static_cast<uint64_t>(c.seed);
    s.embed_seed = static_cast<uint64_t>(c.embed_seed);
    s.d_in = c.d_in;
    a.d_out = c.d_out;
    s.d_out_v = variant_has_d_out_v(c.variant) && !c.d_out_v_follows_d_out ? std::optional<int>(c.d_out_v)
                                                                           : std::nullopt;
    a.heads = variant_has_heads(c.variant) ? c.heads : 1;
    a.dropout = c.dropout;
    a.training = c.training;
    a.qkv_bias = variant_has_qkv_bias(c.variant) && c.qkv_bias;
    s.pos = c.pos;
    a.causal = variant_has_causal_toggle(c.variant) && c.causal;
    a.kv_len = c.kv_len;
    return s;
}

bool variant_has_heads(attn::Variant v) {
    return v == attn::Variant::SelfV1 || v == attn::Variant::Cross || v == attn::Variant::MhaWrapper ||
           v == attn::Variant::Mha;
}
bool variant_has_d_out_v(attn::Variant v) { return v == attn::Variant::SelfV1 || v == attn::Variant::Cross; }
bool variant_has_qkv_bias(attn::Variant v) {
    return v == attn::Variant::SelfV2 || v == attn::Variant::Causal || v == attn::Variant::MhaWrapper ||
           v == attn::Variant::Mha;
}
bool variant_has_causal_toggle(attn::Variant v) {
    return v == attn::Variant::SelfV1 || v == attn::Variant::SelfV2 || v == attn::Variant::Cross;
}
bool variant_has_projections(attn::Variant v) { return v != attn::Variant::Simplified; }

bool differs_only_in_dropout(const attn::Settings& a, const attn::Settings& b) {
    const attn::AttentionConfig& x = a.attention;
    const attn::AttentionConfig& y = b.attention;
    return a.text == b.text && a.text2 == b.text2 && a.tokenizer == b.tokenizer && a.embedding == b.embedding &&
           a.corpus_file == b.corpus_file && a.d_in == b.d_in && a.d_out_v == b.d_out_v &&
           a.embed_seed == b.embed_seed && a.vocab_size == b.vocab_size && a.context_length == b.context_length &&
           a.pos == b.pos && x.variant == y.variant && x.d_out == y.d_out && x.d_out_v == y.d_out_v &&
           x.heads == y.heads && x.qkv_bias == y.qkv_bias && x.causal == y.causal && x.batch == y.batch &&
           x.seed == y.seed && x.dropout_seed == y.dropout_seed && x.kv_len == y.kv_len;
}

}  // namespace app

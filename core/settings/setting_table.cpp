// The rows of the settings table (setting_table.h), and what reads them.
#include "settings/setting_table.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <stdexcept>

#include "settings/settings.h"
#include "text/tokenizer_table.h"

namespace attn {

namespace {

// A field of Settings as a SettingValue, and back.
SettingValue to_value(const std::string& v) { return v; }
SettingValue to_value(const std::optional<std::string>& v) { return v ? SettingValue(*v) : SettingValue(); }
SettingValue to_value(int v) { return int64_t{v}; }
SettingValue to_value(int64_t v) { return v; }
SettingValue to_value(uint64_t v) { return static_cast<int64_t>(v); }  // seeds are at most INT64_MAX
SettingValue to_value(double v) { return v; }
SettingValue to_value(bool v) { return v; }
SettingValue to_value(Variant v) { return variant_name(v); }
template <typename T>
SettingValue to_value(const std::optional<T>& v) {
    return v ? to_value(*v) : SettingValue();
}

void from_value(const SettingValue& v, std::string& out) { out = std::get<std::string>(v); }
void from_value(const SettingValue& v, int& out) {  // beyond int: still out of the row's range, so refused
    out = static_cast<int>(std::clamp<int64_t>(std::get<int64_t>(v), INT_MIN, INT_MAX));
}
void from_value(const SettingValue& v, int64_t& out) { out = std::get<int64_t>(v); }
void from_value(const SettingValue& v, uint64_t& out) { out = static_cast<uint64_t>(std::get<int64_t>(v)); }
void from_value(const SettingValue& v, double& out) { out = std::get<double>(v); }
void from_value(const SettingValue& v, bool& out) { out = std::get<bool>(v); }
void from_value(const SettingValue& v, Variant& out) { out = *variant_from_name(std::get<std::string>(v)); }
template <typename T>
void from_value(const SettingValue& v, std::optional<T>& out) {
    if (std::holds_alternative<std::monostate>(v)) {
        out.reset();
        return;
    }
    T value{};
    from_value(v, value);
    out = value;
}

// `ref` returns the field of a Settings: the row's get and set go through it. A function
// pointer, not each row's own lambda type: the three std::function bodies are then compiled
// once per field type, not once per row (that had made this file the engine's slowest).
template <typename Field>
SettingRow bind(SettingSpec spec, Field& (*ref)(Settings&)) {
    return SettingRow(
        std::move(spec), [ref](const Settings& s) { return to_value(ref(const_cast<Settings&>(s))); },  // only read
        [ref](Settings& s, const SettingValue& v) { from_value(v, ref(s)); },
        [ref](const Settings& a, const Settings& b) {
            return ref(const_cast<Settings&>(a)) == ref(const_cast<Settings&>(b));  // only read
        });
}

#define FIELD(path) +[](Settings & s) -> auto& { return s.path; }

constexpr int64_t kMaxSeed = INT64_MAX;
constexpr int64_t kMaxWidth = limits::kMaxWidth;

std::vector<SettingRow> make_rows() {
    using T = SettingType;
    using C = Control;
    const auto all = &VariantInfo::all;
    std::vector<SettingRow> rows;
    const auto row = [](SettingSpec spec) { return spec; };

    rows.push_back(bind(row({"text", "--text", T::Text, "TEXT", 0, 0, {}, all, "", "", Reruns::Embedding,
              {"Sentence (queries)", C::TextBox, 0, 0, false, Unset::None, "type a sentence", "", ""},
              "the text, tokenized as the tokenizer does, then embedded", true}),
         FIELD(text)));
    rows.push_back(bind(row({"model", "--model", T::OptText, "NAME|PATH", 0, 0, {}, all, "", "", Reruns::Embedding,
              {"Model", C::Own, 0, 0, false, Unset::Empty, "chapter 3 module", "", ""},
              "the book's GPTModel: seeded (gpt-ch4), or its weights loaded from a GPT-2 checkpoint as chapter 5 does",
              true}),
         FIELD(model)));
    rows.push_back(bind(row({"ids", "--ids", T::OptText, "1,2,3", 0, 0, {}, all, "", "model", Reruns::Embedding,
              {"Token ids (instead of the sentence)", C::TextBox, 0, 0, false, Unset::Empty, "empty: the sentence's tokens",
               "", "Exact token ids, such as 15496,995: the model reads them as they are, its tokenizer skipped."},
              "token_ids = [...]: the ids as given, no tokenizer", true}),
         FIELD(ids)));
    SettingSpec tokenizer = row({"tokenizer", "--tokenizer", T::Choice, "", 0, 0, tokenizer_names(), all, "", "",
              Reruns::Embedding, {"Tokenizer", C::Own, 0, 0, false, Unset::None, "", "", ""},
              "a split on spaces, chapter 2's SimpleTokenizerV2, tiktoken.get_encoding(\"gpt2\"), or a Hugging Face "
              "PATH/tokenizer.json (byte-level BPE)"});
    tokenizer.or_file_named = "tokenizer.json";
    rows.push_back(bind(std::move(tokenizer), FIELD(tokenizer)));
    rows.push_back(bind(row({"corpus", "--corpus", T::OptText, "FILE", 0, 0, {}, all, "", "tokenizer=simple", Reruns::Embedding,
              {"Corpus file", C::Own, 0, 0, false, Unset::Empty, "the typed text", "", ""},
              "the simple tokenizer's vocabulary, read from the file"}),
         FIELD(corpus_file)));
    rows.push_back(bind(row({"variant", "--variant", T::Choice, "", 0, 0, variant_names(), all, "", "", Reruns::Attention,
              {"Variant (book section)", C::Own, 0, 0, false, Unset::None, "", "", ""},
              "the class the program defines and calls"}),
         FIELD(attention.variant)));
    rows.push_back(bind(row({"text2", "--text2", T::OptText, "TEXT", 0, 0, {}, &VariantInfo::second_text, "has no second text", "", Reruns::Embedding,
              {"Second text (keys, values)", C::TextBox, 0, 0, true, Unset::Empty, "empty: torch.rand rows", "",
               "Keys and values come from this text; queries from the sentence."},
              "the second input of CrossAttention.forward(x_1, x_2)"}),
         FIELD(text2)));
    rows.push_back(bind(row({"kv_len", "--kv-len", T::Int, "N", 1, kMaxWidth, {}, &VariantInfo::second_text, "has no second text", "!text2", Reruns::Attention,
              {"random rows (kv_len)", C::Slider, 1, 64, true, Unset::None, "", "",
               "Without a second text, keys and values come from torch.rand(kv_len, d_in)."},
              "torch.rand(kv_len, d_in), drawn after the module's weights"}),
         FIELD(attention.kv_len)));
    rows.push_back(bind(row({"seed", "--seed", T::Int, "N", 0, kMaxSeed, {}, all, "", "", Reruns::Attention,
              {"seed (torch.manual_seed)", C::Slider, 0, 999, false, Unset::None, "", "",
               "torch.manual_seed before the module is built: it draws the weights."},
              "torch.manual_seed(seed) before the module (or chapter 4's GPTModel) is built", true}),
         FIELD(attention.seed)));
    rows.push_back(bind(row({"embed_seed", "--embed-seed", T::Int, "N", 0, kMaxSeed, {}, all, "", "", Reruns::Embedding,
              {"embedding seed", C::Slider, 0, 999, false, Unset::None, "", "",
               "torch.manual_seed before the embedding table is drawn."},
              "torch.manual_seed(embed_seed) before nn.Embedding(vocab_size, d_in)"}),
         FIELD(embed_seed)));
    rows.push_back(bind(row({"d_in", "--d-in", T::Int, "N", 1, kMaxWidth, {}, all, "", "", Reruns::Embedding,
              {"d_in (embedding width)", C::LogSlider, 1, 768, false, Unset::None, "", "",
               "The width of each input vector; GPT-2 small's is 768."},
              "nn.Embedding(vocab_size, d_in) and the modules' d_in"}),
         FIELD(d_in)));
    rows.push_back(bind(row({"d_out", "--d-out", T::Int, "N", 1, kMaxWidth, {}, &VariantInfo::projections,
              "has no weights (d_out)", "", Reruns::Attention,
              {"d_out", C::LogSlider, 1, 1024, false, Unset::None, "", "",
               "The width of queries and keys (and values, unless d_out_v)."},
              "the modules' d_out"}),
         FIELD(attention.d_out)));
    rows.push_back(bind(row({"d_out_v", "--d-out-v", T::OptInt, "N", 1, kMaxWidth, {}, &VariantInfo::d_out_v,
              "has no value width of its own (d_out_v)", "", Reruns::Attention,
              {"d_out_v (value width)", C::LogSlider, 1, 1024, true, Unset::Checkbox, "d_out_v = d_out", "d_out",
               "The width of the values and so of the context vectors (seed 004)."},
              "the d_out_v of seed 004's modules (d_out when unset)"}),
         FIELD(d_out_v)));
    rows.push_back(bind(row({"heads", "--heads", T::Int, "N", 1, limits::kMaxHeads, {}, &VariantInfo::heads, "has one head", "", Reruns::Attention,
              {"heads", C::Slider, 1, 16, false, Unset::None, "", "",
               "How many heads: stacked modules, or for mha a split of d_out."},
              "num_heads of the wrapper or MultiHeadAttention"}),
         FIELD(attention.heads)));
    rows.push_back(bind(row({"kv_groups", "--kv-groups", T::Int, "G", 1, limits::kMaxHeads, {}, &VariantInfo::kv_groups,
              "has no key/value groups", "", Reruns::Attention,
              {"kv groups", C::Slider, 1, 16, true, Unset::None, "", "",
               "Heads share keys and values in G groups: 1 is multi-query attention, G = heads is ordinary MHA."},
              "GroupedQueryAttention(..., num_kv_groups)"}),
         FIELD(attention.kv_groups)));
    rows.push_back(bind(row({"rope", "--rope", T::Switch, "", 0, 0, {}, &VariantInfo::rope, "has no rotary positions",
              "", Reruns::Attention,
              {"RoPE (rotary positions)", C::Checkbox, 0, 0, true, Unset::None, "", "",
               "Rotates each query and key by angles that grow with its position, as Llama does."},
              "apply_rope(queries/keys, cos, sin) after the head split (Llama 3)"}),
         FIELD(attention.rope)));
    rows.push_back(bind(row({"rope_base", "--rope-base", T::Int, "B", limits::kMinRopeBase, limits::kMaxRopeBase, {}, &VariantInfo::rope,
              "has no rotary positions", "rope", Reruns::Attention,
              {"RoPE base (theta)", C::LogSlider, 2, 1'000'000, true, Unset::None, "", "",
               "compute_rope_params' theta_base: frequency i turns by position / base^(2i/head_dim)."},
              "compute_rope_params(head_dim, theta_base)"}),
         FIELD(attention.rope_base)));
    rows.push_back(bind(row({"window", "--window", T::Int, "W", 1, limits::kMaxWindow, {}, &VariantInfo::window,
              "has no sliding window", "", Reruns::Attention,
              {"window W", C::LogSlider, 1, 1024, true, Unset::None, "", "",
               "Each token attends to itself and the W - 1 tokens before it."},
              "MultiHeadAttentionWithSWA(..., sliding_window_size)"}),
         FIELD(attention.window)));
    rows.push_back(bind(row({"latent_dim", "--latent-dim", T::OptInt, "D", 1, kMaxWidth, {}, &VariantInfo::latent,
              "has no latent keys and values", "", Reruns::Attention,
              {"latent dim", C::LogSlider, 1, 1024, true, Unset::Checkbox, "max(16, d_out / 8)", "",
               "Keys and values are up-projected from one cached latent vector of this width per token.",
               [](const Settings& s) -> int64_t { return latent_dim_of(s.attention); }},
              "MultiHeadLatentAttention(..., latent_dim)"}),
         FIELD(attention.latent_dim)));
    rows.push_back(bind(row({"dropout", "--dropout", T::Real, "P", 0, 1, {}, &VariantInfo::dropout, "has no dropout", "", Reruns::Dropout,
              {"dropout rate p", C::RealSlider, 0, 1, false, Unset::None, "", "",
               "nn.Dropout(p): in training mode each weight is zeroed with probability p."},
              "nn.Dropout(dropout)"}),
         FIELD(attention.dropout)));
    rows.push_back(bind(row({"training", "--eval", T::SwitchOff, "", 0, 0, {}, &VariantInfo::dropout, "has no dropout", "", Reruns::Dropout,
              {"training mode (dropout on)", C::Checkbox, 0, 0, false, Unset::None, "", "",
               "model.train(): dropout is active; model.eval() turns it off."},
              "model.eval() before the forward when off"}),
         FIELD(attention.training)));
    rows.push_back(bind(row({"qkv_bias", "--qkv-bias", T::Switch, "", 0, 0, {}, &VariantInfo::qkv_bias, "has no qkv bias", "", Reruns::Attention,
              {"qkv bias", C::Checkbox, 0, 0, false, Unset::None, "", "",
               "nn.Linear(d_in, d_out, bias=True) for the query, key and value weights."},
              "nn.Linear(d_in, d_out, bias=qkv_bias)"}),
         FIELD(attention.qkv_bias)));
    rows.push_back(bind(row({"causal", "--causal", T::Switch, "", 0, 0, {}, &VariantInfo::causal_toggle,
              "has no causal switch (it is causal, or has no mask)", "", Reruns::Attention,
              {"causal mask", C::Checkbox, 0, 0, true, Unset::None, "", "",
               "Masks the future: a token attends only to itself and earlier tokens."},
              "the causal section of seed 004: masked_fill with triu(ones, 1)"}),
         FIELD(attention.causal)));
    rows.push_back(bind(row({"pos", "--pos", T::Switch, "", 0, 0, {}, all, "", "", Reruns::Embedding,
              {"positional embeddings", C::Checkbox, 0, 0, false, Unset::None, "", "",
               "Adds a row of nn.Embedding(context_length, d_in) per position."},
              "token_embeddings + pos_embeddings (chapter 2)"}),
         FIELD(pos)));
    rows.push_back(bind(row({"context_length", "--context-length", T::OptInt, "N", 1, 65536, {}, all, "", "pos", Reruns::Embedding,
              {"context_length (positional rows)", C::LogSlider, 0, 4096, false, Unset::Zero, "auto: the token count",
               "", "The rows of the positional table; a longer text is refused."},
              "nn.Embedding(context_length, d_in)"}),
         FIELD(context_length)));
    rows.push_back(bind(row({"embedding", "--embedding", T::Choice, "", 0, 0, {"auto", "book", "random"}, all, "", "",
              Reruns::Embedding, {}, "the book's six 3-d vectors, or a seeded nn.Embedding table"}),
         FIELD(embedding)));
    rows.push_back(bind(row({"vocab_size", "--vocab-size", T::OptInt, "N", 1, 10'000'000, {}, all, "", "", Reruns::Embedding, {},
              "nn.Embedding(vocab_size, d_in) (the tokenizer's when unset)"}),
         FIELD(vocab_size)));
    rows.push_back(bind(row({"batch", "--batch", T::Int, "N", 1, limits::kMaxBatch, {}, all, "", "", Reruns::Attention, {},
              "torch.stack((inputs,) * batch)"}),
         FIELD(attention.batch)));
    rows.push_back(bind(row({"dropout_seed", "--dropout-seed", T::OptInt, "N", 0, kMaxSeed, {}, &VariantInfo::dropout,
              "has no dropout", "", Reruns::Dropout, {}, "torch.manual_seed(dropout_seed) right before the forward"}),
         FIELD(attention.dropout_seed)));
    rows.push_back(bind(row({"layer", "--layer", T::OptInt, "L", 0, 95, {}, all, "", "model", Reruns::Attention, {},
              "the transformer block whose head is shown (0-based: L.H)", true}),
         FIELD(layer)));
    rows.push_back(bind(row({"head", "--head", T::OptInt, "H", 0, 4095, {}, all, "", "model", Reruns::Attention, {},
              "the head of that block shown with every stage", true}),
         FIELD(head)));
    rows.push_back(bind(row({"generate", "--generate", T::Int, "N", 0, 1024, {}, all, "", "model", Reruns::Embedding, {},
              "generate_text_simple(model, idx, max_new_tokens=N, context_size)", true}),
         FIELD(generate)));
    // No control of its own: the app's model view picks it with a click on a token chip.
    // The upper end is any context's; run_model checks it against the tokens in view.
    rows.push_back(bind(row({"next_at", "--next-at", T::OptInt, "P", 0, 65535, {}, all, "", "model", Reruns::Attention, {},
              "probas = torch.softmax(logits[0, P], dim=-1): the next tokens after position P (0-based; the last "
              "token when unset)", true}),
         FIELD(next_at)));
    // No control of its own: the model view's tiles switch heads off and on.
    rows.push_back(bind(row({"ablate", "--ablate", T::OptText, "L.H,...", 0, 0, {}, all, "", "model", Reruns::Attention, {},
              "forward pre-hooks on out_proj: those heads' slice of what it reads set to 0", true}),
         FIELD(ablate)));
    // The model view's tiles patch heads; its text box holds the other text.
    rows.push_back(bind(row({"patch", "--patch", T::OptText, "L.H,...", 0, 0, {}, all, "", "model", Reruns::Attention, {},
              "forward pre-hooks on out_proj: those heads' slice of what it reads taken from the run of --patch-from", true}),
         FIELD(patch)));
    rows.push_back(bind(row({"patch_from", "--patch-from", T::OptText, "TEXT", 0, 0, {}, all, "", "model", Reruns::Attention,
              {}, "the other text whose run --patch's heads are taken from (as many tokens as the text)", true}),
         FIELD(patch_from)));
    // No control of its own: the model view's checkbox above its grid.
    rows.push_back(bind(row({"logit_lens", "--logit-lens", T::Switch, "", 0, 0, {}, all, "", "model", Reruns::Attention, {},
              "model.final_norm and model.out_head on each block's output: what the model would say after it", true}),
         FIELD(logit_lens)));
    // No control of its own: the model view's checkbox and its next tokens' menu.
    rows.push_back(bind(row({"attribute", "--attribute", T::OptText, "ID[,ID2]", 0, 0, {}, all, "", "model", Reruns::Attention,
              {}, "each part of the residual stream through the final norm (its scale held) and out_head's row of ID", true}),
         FIELD(attribute)));
    // No control of its own: the model view's checkbox above its heatmap.
    rows.push_back(bind(row({"head_effects", "--head-effects", T::OptText, "prob:ID|logit-diff:ID1,ID2", 0, 0, {}, all, "",
              "model", Reruns::Attention, {},
              "the metric with each head alone switched off (or patched from --patch-from), minus the metric without", true}),
         FIELD(head_effects)));
    // Chapter 5's generate. The ranges are torch's, bar two: the temperature stops at 100
    // (past ~5 the softmax is nearly flat already), and top-k's upper end is the model's
    // vocabulary, which only the model knows (run_model checks it).
    rows.push_back(bind(row({"temperature", "--temperature", T::Real, "T", 0, 100, {}, all, "", "model", Reruns::Embedding,
              {"temperature (0: greedy)", C::RealSlider, 0, 5, false, Unset::None, "", "",
               "generate's temperature: the logits are divided by it and a token drawn from their softmax "
               "(torch.multinomial); below 1 sharper, above 1 flatter. 0 takes the argmax, as generate_text_simple."},
              "generate(..., temperature=T): logits / T, softmax, torch.multinomial (0: torch.argmax)", true}),
         FIELD(sampling.temperature)));
    rows.push_back(bind(row({"top_k", "--top-k", T::OptInt, "K", 1, 10'000'000, {}, all, "", "model", Reruns::Embedding,
              {"top-k", C::LogSlider, 0, 1000, false, Unset::Zero, "off: every token", "",
               "Only the K largest logits may be drawn: the others become -inf before the softmax."},
              "generate(..., top_k=K): logits under torch.topk's k-th become -inf", true}),
         FIELD(sampling.top_k)));
    rows.push_back(bind(row({"sample_seed", "--sample-seed", T::Int, "N", 0, kMaxSeed, {}, all, "", "model", Reruns::Embedding,
              {"sampling seed", C::Slider, 0, 999, false, Unset::None, "", "",
               "torch.manual_seed right before generate: the same seed draws the same tokens."},
              "torch.manual_seed(sample_seed) right before generate(...)", true}),
         FIELD(sampling.seed)));
    return rows;
}

#undef FIELD

}  // namespace

const std::vector<SettingRow>& setting_rows() {
    static const std::vector<SettingRow> rows = make_rows();
    return rows;
}

const SettingRow* find_setting(const std::string& key) {
    for (const SettingRow& r : setting_rows())
        if (key == r.key) return &r;
    return nullptr;
}

const SettingRow* find_setting_flag(const std::string& flag) {
    for (const SettingRow& r : setting_rows())
        if (flag == r.flag) return &r;
    return nullptr;
}

const SettingRow& setting(const std::string& key) {
    if (const SettingRow* r = find_setting(key)) return *r;
    throw std::out_of_range("no setting '" + key + "'");
}

SettingValue fallback_value(const AppControl& control, const Settings& s) {
    return control.fallback ? SettingValue(control.fallback(s)) : setting(control.falls_back_to).get(s);
}

bool applies(const SettingRow& row, Variant v) { return variant_info(v).*row.applies; }

bool applies(const SettingRow& row, const Settings& s) {
    if (s.model ? !row.with_model : !applies(row, s.attention.variant)) return false;
    const std::string needs = row.needs;
    if (needs.empty()) return true;
    if (needs[0] == '!') return std::holds_alternative<std::monostate>(setting(needs.substr(1)).get(s));
    const size_t eq = needs.find('=');
    const SettingValue has = setting(needs.substr(0, eq)).get(s);
    if (eq != std::string::npos) return has == SettingValue(needs.substr(eq + 1));
    // A switch must be on; an optional must be set.
    return std::holds_alternative<bool>(has) ? std::get<bool>(has) : !std::holds_alternative<std::monostate>(has);
}

}  // namespace attn

#include "run/comparisons.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "attention/attention.h"
#include "attention/stage_catalogue.h"

namespace attn {

namespace {

const std::vector<std::string> kComparisonNames = {"masking", "dropout",     "seeds",  "multihead", "kv-groups",
                                                    "multi-query", "window", "rope", "latent"};

// a - b where equal cells (both -inf among them) give 0 rather than -inf - -inf = NaN.
Matrix subtract(const Matrix& a, const Matrix& b) {
    return a.binaryExpr(b, [](float x, float y) { return x == y ? 0.0f : x - y; });
}

std::string shape(const Matrix& m) { return std::to_string(m.rows()) + "x" + std::to_string(m.cols()); }

// Leaves a variant with one text and no flags that only other variants take.
void switch_variant(Settings& s, Variant v) {
    s.attention.variant = v;
    if (v != Variant::Cross) s.text2.reset();
    s.attention.causal = false;
    if (!variant_info(v).d_out_v) s.d_out_v.reset();
    if (!variant_info(v).rope) s.attention.rope = false;
}

// The current settings as a weight-split module of `v` with at least `min_heads` heads of
// an even width (RoPE rotates pairs), d_out kept when it already splits so.
Settings split_module(const Settings& current, Variant v, int min_heads) {
    Settings s = current;
    switch_variant(s, v);
    AttentionConfig& a = s.attention;
    const bool splits = splits_heads(current.attention.variant) && a.d_out % a.heads == 0;
    const int head_dim = splits ? a.d_out / a.heads : std::max(1, a.d_out);
    a.heads = std::max(min_heads, a.heads);
    a.d_out = a.heads * (head_dim + head_dim % 2);
    return s;
}

// Two gqa runs on the same sentence: `left` groups against `right` groups.
std::vector<std::pair<std::string, Settings>> groups_pair(const Settings& current, bool multi_query) {
    Settings left = split_module(current, Variant::Gqa, 4);
    const int heads = left.attention.heads;
    left.attention.kv_groups = heads;  // a group per head: ordinary MHA
    Settings right = left;
    int groups = 1;
    if (!multi_query) {  // the current grouping, else half as many groups as heads
        const int g = current.attention.variant == Variant::Gqa ? current.attention.kv_groups : heads / 2;
        groups = g > 1 && g < heads && heads % g == 0 ? g : heads / 2;
        while (heads % groups != 0) --groups;
    }
    right.attention.kv_groups = groups;
    const std::string h = std::to_string(heads), g = std::to_string(groups);
    return {{"MHA: " + h + " heads, " + h + " key/value groups", left},
            {(groups == 1 ? "MQA: " : "GQA: ") + h + " heads share " + g + (groups == 1 ? " group" : " groups"), right}};
}

}  // namespace

const std::vector<std::string>& comparison_names() { return kComparisonNames; }

std::optional<ComparisonKind> comparison_from_name(const std::string& name) {
    for (size_t i = 0; i < kComparisonNames.size(); ++i)
        if (kComparisonNames[i] == name) return static_cast<ComparisonKind>(i);
    return std::nullopt;
}

std::string comparison_name(ComparisonKind kind) { return kComparisonNames[static_cast<size_t>(kind)]; }

const std::vector<std::string>& masking_stage_names() {
    static const std::vector<std::string> names = stage_names_in(StagePlace::Comparison);
    return names;
}

StageList compare_masking(const HeadTrace& head) {
    const Stage* scaled = head.find("scaled_scores");
    const Stage* mask = head.find("mask");
    const Stage* weights = head.find("weights");
    if (!scaled || !mask || !weights)
        throw ComparisonError("the masking comparison needs a variant with a mask (not simplified)");
    const Axis key_axis = weights->cols;

    // The book's first way (3.5.1): softmax over everything, zero the future, renormalise.
    // (With ALiBi, the softmax's input is the scaled scores plus the bias.)
    const Stage* bias = head.find("position_bias");
    Matrix unmasked = softmax_rows(bias ? Matrix(scaled->value + bias->value) : scaled->value);
    Matrix kept = unmasked.cwiseProduct((1.0f - mask->value.array()).matrix());
    // A row is never masked entirely (the diagonal is kept), so its sum is positive.
    Matrix renormalised = kept.array().colwise() / kept.rowwise().sum().array();
    Matrix diff = subtract(renormalised, weights->value);

    StageList out;
    out.add("unmasked_weights", std::move(unmasked), key_axis);
    out.add("masked_after_softmax", std::move(kept), key_axis);
    out.add("renormalised", std::move(renormalised), key_axis);
    out.add("minus_inf_weights", weights->value, key_axis);
    out.add("difference", std::move(diff), key_axis);
    return out;
}

std::vector<std::pair<std::string, Settings>> comparison_settings(const Settings& current, ComparisonKind kind) {
    switch (kind) {
    case ComparisonKind::Masking:
        return {{"mask after softmax vs -inf before softmax", current}};
    case ComparisonKind::Dropout: {
        Settings on = current;
        if (!variant_has_dropout(on.attention.variant)) {
            switch_variant(on, Variant::Causal);  // 3.5's class: the first with dropout
            on.attention.heads = 1;
        }
        // The book's rate when the current view has none, so that "on" shows something.
        if (on.attention.dropout == 0.0) on.attention.dropout = 0.5;
        on.attention.training = true;
        Settings off = on;
        off.attention.training = false;  // model.eval(): what inference does
        char rate[32];
        std::snprintf(rate, sizeof rate, "%g", on.attention.dropout);
        return {{"dropout off (eval)", off}, {std::string("dropout ") + rate + " (training)", on}};
    }
    case ComparisonKind::Seeds: {
        Settings other = current;
        const uint64_t seed = current.attention.seed;
        other.attention.seed = seed < static_cast<uint64_t>(INT64_MAX) ? seed + 1 : seed - 1;
        return {{"seed " + std::to_string(seed), current}, {"seed " + std::to_string(other.attention.seed), other}};
    }
    case ComparisonKind::MultiHead: {
        // The wrapper concatenates H heads of width d_out, so its output is H * d_out
        // wide; the weight-split class splits d_out into H heads and keeps d_out wide.
        // Giving the split class d_out = H * d makes both have H heads of width d and the
        // same output width, so their heatmaps line up cell for cell.
        const int heads = std::max(2, current.attention.heads);
        const bool split = current.attention.variant == Variant::Mha;
        const int head_dim = std::max(1, split ? current.attention.d_out / current.attention.heads
                                               : current.attention.d_out);
        Settings wrapper = current, mha = current;
        switch_variant(wrapper, Variant::MhaWrapper);
        switch_variant(mha, Variant::Mha);
        wrapper.attention.heads = mha.attention.heads = heads;
        wrapper.attention.d_out = head_dim;
        mha.attention.d_out = heads * head_dim;
        const std::string h = std::to_string(heads), d = std::to_string(head_dim);
        return {{"mha-wrapper: " + h + " heads of d_out " + d, wrapper},
                {"mha: d_out " + std::to_string(heads * head_dim) + " split into " + h + " heads of " + d, mha}};
    }
    case ComparisonKind::KvGroups:
    case ComparisonKind::MultiQuery:
        return groups_pair(current, kind == ComparisonKind::MultiQuery);
    case ComparisonKind::Window: {
        // MultiHeadAttentionWithSWA builds the layers MultiHeadAttention does: same seed,
        // same weights, so the difference is the window's alone.
        Settings causal = split_module(current, Variant::Mha, 1), window = causal;
        switch_variant(window, Variant::Swa);
        window.attention.window = current.attention.variant == Variant::Swa ? current.attention.window : 3;
        return {{"causal (mha): every earlier key", causal},
                {"sliding window: the last " + std::to_string(window.attention.window) + " keys", window}};
    }
    case ComparisonKind::Rope: {
        Settings off = split_module(current, Variant::Gqa, 1), on = off;
        if (current.attention.variant != Variant::Gqa) off.attention.kv_groups = on.attention.kv_groups = off.attention.heads;
        off.attention.rope = false;
        on.attention.rope = true;  // RoPE draws nothing: both sides have the same weights
        return {{"no RoPE: a word scores the same wherever it is", off},
                {"RoPE: scores depend on how far apart two words are", on}};
    }
    case ComparisonKind::Latent: {
        Settings mha = split_module(current, Variant::Mha, 1), mla = mha;
        switch_variant(mla, Variant::Mla);
        const int latent = latent_dim_of(mla.attention);
        return {{"mha: keys and values from the inputs", mha},
                {"mla: keys and values from a " + std::to_string(latent) + "-wide latent", mla}};
    }
    }
    throw ComparisonError("unknown comparison");
}

StageList difference(const Run& a, const Run& b, const std::string& stage) {
    StageList out;
    const auto add = [&](const Stage& sa, const Stage& sb) {
        if (sa.value.rows() != sb.value.rows() || sa.value.cols() != sb.value.cols())
            throw ComparisonError(stage + " has shape " + shape(sa.value) + " in one run and " + shape(sb.value) +
                                  " in the other");
        // Not the catalogue's scale: a difference of two runs is signed whatever the
        // stage (two probabilities, masks or dropout factors differ by either sign).
        out.add(stage, subtract(sa.value, sb.value), sa.rows, sa.cols, Scale::Signed);
    };
    if (stage == "output") {
        if (a.trace.output.empty() || b.trace.output.empty()) throw ComparisonError("a run has no output");
        add(catalogued_stage(stage, a.trace.output[0]), catalogued_stage(stage, b.trace.output[0]));
        return out;
    }
    const Stage* ma = a.trace.model.find(stage);
    const Stage* mb = b.trace.model.find(stage);
    if (ma && mb) {
        add(*ma, *mb);
        return out;
    }
    const auto in_heads = [&](const Run& r) {
        return !r.trace.heads.empty() && r.trace.heads[0].find(stage) != nullptr;
    };
    if (!in_heads(a) || !in_heads(b)) throw ComparisonError("both runs need the stage " + stage);
    if (a.trace.heads.size() != b.trace.heads.size())
        throw ComparisonError("the runs have " + std::to_string(a.trace.heads.size()) + " and " +
                              std::to_string(b.trace.heads.size()) + " heads");
    for (size_t h = 0; h < a.trace.heads.size(); ++h) {
        const Stage* sa = a.trace.heads[h].find(stage);
        const Stage* sb = b.trace.heads[h].find(stage);
        if (!sa || !sb) throw ComparisonError("both runs need the stage " + stage + " in head " + std::to_string(h));
        add(*sa, *sb);
    }
    return out;
}

}  // namespace attn

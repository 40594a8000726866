#include "check/mistakes.h"

#include <cmath>
#include <optional>

#include "check/head_stages.h"
#include "numerics/tolerance.h"

namespace attn {

std::vector<Matrix> head_columns(const Matrix& whole, int heads) {
    const Eigen::Index hd = whole.cols() / heads;
    std::vector<Matrix> out;
    for (int h = 0; h < heads; ++h) out.push_back(whole.middleCols(h * hd, hd));  // T x hd
    return out;
}

std::vector<Matrix> viewed_without_transpose(const Matrix& whole, int heads) {
    const Eigen::Index T = whole.rows(), hd = whole.cols() / heads;
    // The row-major T x d_out buffer as heads x T x hd: head h is T consecutive rows of hd.
    const Eigen::Map<const Matrix> rows(whole.data(), T * heads, hd);
    std::vector<Matrix> out;
    for (int h = 0; h < heads; ++h) out.push_back(rows.middleRows(h * T, T));
    return out;
}

namespace {

// A projection whose bias the user did not mean (record(..., qkv_bias=False)): their
// stage is the layer's output with its bias, attnscope's the one without.
std::vector<std::string> projection_mistakes(const RecordedAttention& r, const std::string& stage,
                                             const std::vector<Matrix>& yours, double tolerance) {
    if (!r.biases_unintended()) return {};
    const bool mla = r.variant == RecordedVariant::Mla;
    const Matrix* from = &r.input;
    const Matrix* W = &r.W_query;
    const std::optional<RowVector>* b = &r.b_query;
    if (stage == "latents") W = &*r.W_DKV, b = &r.b_DKV;
    if (stage == "keys") W = &r.W_key, b = &r.b_key;
    if (stage == "values") W = &r.W_value, b = &r.b_value;
    if (mla && (stage == "keys" || stage == "values")) {
        if (!r.stages.count("latents")) return {};
        from = &r.stages.at("latents")[0];  // the user's own latents
    }
    if (!*b || (from->cols() != W->rows())) return {};
    Matrix with_bias = *from * *W;
    with_bias.rowwise() += **b;
    if (closest_gap({with_bias}, yours) > std::max(tolerance, kStageRelative * stage_scale(with_bias))) return {};
    std::vector<std::string> layers;
    const auto add = [&](const char* layer, const std::optional<RowVector>& bias) {
        if (bias) layers.push_back(layer);
    };
    add("W_query", r.b_query);
    if (mla) add("W_DKV", r.b_DKV);
    add(mla ? "W_UK" : "W_key", r.b_key);
    add(mla ? "W_UV" : "W_value", r.b_value);
    std::string names;
    for (size_t i = 0; i < layers.size(); ++i)
        names += (i == 0 ? "" : i + 1 == layers.size() ? " and " : ", ") + layers[i];
    return {names + (layers.size() > 1 ? " have" : " has") +
            " a bias although qkv_bias=False: nn.Linear's bias defaults to True (pass bias=qkv_bias)"};
}

// Dropout in evaluation mode is the identity: weights that came out with some zeroed and
// the rest scaled by 1/(1 - p) went through a dropout still training.
std::vector<std::string> dropout_mistakes(const RecordedAttention& r, const std::vector<Matrix>& yours, double tolerance) {
    if (r.training || r.dropout <= 0.0 || r.dropout >= 1.0 || !r.stages.count("weights")) return {};
    const std::vector<Matrix>& before = r.stages.at("weights");
    const auto keep = static_cast<float>(1.0 / (1.0 - r.dropout));
    bool dropped = false;
    for (size_t h = 0; h < yours.size(); ++h)
        for (Eigen::Index i = 0; i < yours[h].size(); ++i) {
            const float y = yours[h].data()[i], w = before[h].data()[i];
            if (std::abs(y) <= tolerance && std::abs(w) > tolerance) dropped = true;
            else if (!(std::abs(y - w * keep) <= tolerance)) return {};  // nan too
        }
    if (!dropped) return {};
    return {"dropout left on in evaluation: the module's forward calls the dropout while the module is not training "
            "(torch.nn.functional.dropout(..., training=True), or a dropout that is not the module's own)"};
}

// Each head's context from the user's own weights (after dropout, where recorded) and
// `with` (one matrix a head: its values, or the keys for the keys-as-values mistake).
std::optional<std::vector<Matrix>> head_contexts(const RecordedAttention& r, const std::vector<Matrix>& with) {
    const auto& st = r.stages;
    const char* weights_stage = st.count("dropped_weights") ? "dropped_weights" : "weights";
    if (!st.count(weights_stage)) return std::nullopt;
    const std::vector<Matrix>& w = st.at(weights_stage);
    std::vector<Matrix> contexts;
    for (int h = 0; h < r.heads; ++h) contexts.push_back(w[static_cast<size_t>(h)] * with[static_cast<size_t>(h)]);
    return contexts;
}

// The head's own values (its key/value group's), or nothing where they were not recorded.
std::optional<std::vector<Matrix>> contexts_with_values(const RecordedAttention& r) {
    if (!r.stages.count("values")) return std::nullopt;
    return head_contexts(r, for_each_head(r, head_columns(r.stages.at("values")[0], r.groups())));
}

// The contexts with the keys for values: as recorded, and under RoPE also turned (the keys
// the scores used), either of which a forward may have passed on.
std::vector<std::vector<Matrix>> contexts_with_keys(const RecordedAttention& r) {
    std::vector<std::vector<Matrix>> out;
    const std::optional<std::vector<HeadParts>> parts = recorded_head_parts(r);
    if (!parts) return out;
    std::vector<Matrix> plain, turned;
    for (const HeadParts& p : *parts) {
        plain.push_back(p.k_plain);
        turned.push_back(p.k);
    }
    if (const auto c = head_contexts(r, plain)) out.push_back(*c);
    if (r.rope_base)
        if (const auto c = head_contexts(r, turned)) out.push_back(*c);
    return out;
}

// The heads' parts side by side (T x d_out), in their order or the last head first.
Matrix side_by_side(const std::vector<Matrix>& parts, bool reversed = false) {
    const auto heads = static_cast<int>(parts.size());
    const Eigen::Index hd = parts[0].cols();
    Matrix all(parts[0].rows(), hd * heads);
    for (int h = 0; h < heads; ++h) all.middleCols(h * hd, hd) = parts[static_cast<size_t>(reversed ? heads - 1 - h : h)];
    return all;
}

bool keys_as_values(const RecordedAttention& r, const std::vector<Matrix>& yours, double tolerance) {
    for (const std::vector<Matrix>& contexts : contexts_with_keys(r))
        if (closest_gap({side_by_side(contexts)}, yours) <= tolerance) return true;
    return false;
}

std::vector<std::string> concat_mistakes(const RecordedAttention& r, const std::vector<Matrix>& yours, double tolerance) {
    const std::optional<std::vector<Matrix>> contexts = contexts_with_values(r);
    if (!contexts) return {};
    std::vector<std::string> found;
    const auto gives = [&](const Matrix& m) { return closest_gap({m}, yours) <= tolerance; };
    if (r.heads > 1 && gives(side_by_side(*contexts, true)))
        found.push_back("the heads' context vectors concatenated in the wrong order (the last head first)");
    if (r.heads > 1) {  // the heads x T x hd contexts' memory read as T x d_out
        const Eigen::Index T = r.tokens(), hd = r.head_dim();
        Matrix stacked(T * r.heads, hd);
        for (int h = 0; h < r.heads; ++h) stacked.middleRows(h * T, T) = (*contexts)[static_cast<size_t>(h)];
        if (gives(Eigen::Map<const Matrix>(stacked.data(), T, r.d_out)))
            found.push_back("the heads put back together by view(b, num_tokens, d_out) without transpose(1, 2) first: "
                            "each row mixes tokens");
    }
    if (keys_as_values(r, yours, tolerance)) found.push_back("the keys used as values: the context is weights · keys");
    return found;
}

std::vector<std::string> output_mistakes(const RecordedAttention& r, const std::vector<Matrix>& yours, double tolerance) {
    std::vector<std::string> found;
    const auto gives = [&](const Matrix& m) { return closest_gap({m}, yours) <= tolerance; };
    if (r.W_out) {
        // The input out_proj saw, else (a forward that never called it) what it should have.
        std::optional<Matrix> concat;
        if (r.stages.count("concat")) concat = r.stages.at("concat")[0];
        else if (const auto contexts = contexts_with_values(r)) concat = side_by_side(*contexts);
        if (!concat) return found;
        const auto out_proj = [&](const Matrix& x) {
            Matrix y = x * *r.W_out;
            if (r.b_out) y.rowwise() += *r.b_out;
            return y;
        };
        if (gives(*concat)) found.push_back("no out_proj: the module returns the heads' context vectors as they are");
        if (gives(out_proj(out_proj(*concat)))) found.push_back("out_proj applied twice");
        return found;
    }
    // A single head's output is its context vectors; the wrapper's, its heads' side by side
    // (torch.cat of each head's output), which may come in the wrong order.
    if (r.heads > 1)
        if (const auto contexts = contexts_with_values(r); contexts && gives(side_by_side(*contexts, true)))
            found.push_back("the heads' outputs concatenated in the wrong order (the last head first)");
    if (keys_as_values(r, yours, tolerance)) found.push_back("the keys used as values: the context is weights · keys");
    return found;
}

}  // namespace

std::vector<std::string> diagnose(const RecordedAttention& r, const std::string& stage, const std::vector<Matrix>& yours,
                                  double tolerance) {
    if (stage == "queries" || stage == "keys" || stage == "values" || stage == "latents")
        return projection_mistakes(r, stage, yours, tolerance);
    if (stage == "weights") return weights_mistakes(r, yours, tolerance);
    if (stage == "dropped_weights") return dropout_mistakes(r, yours, tolerance);
    if (stage == "concat") return concat_mistakes(r, yours, tolerance);
    if (stage == "output") return output_mistakes(r, yours, tolerance);
    return {};
}

}  // namespace attn

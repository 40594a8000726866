#include "attention/forward_parts.h"

#include "numerics/block_means.h"
#include "numerics/gemm.h"

namespace attn {

void run_heads(const HeadWork& work) {
    HeadErrors errors;
#pragma omp parallel for schedule(dynamic) if (work.parallel)
    for (int h = 0; h < work.heads; ++h) errors.run([&] { work.attend(h); });
    errors.rethrow();
    work.finish();
}

void prepare_heads(Trace& t, int H, Eigen::Index T, Eigen::Index S, const KeptStages& keep) {
    t.heads.resize(static_cast<size_t>(H));
    if (keep.preview_side > 0) {
        t.weights_previews.resize(static_cast<size_t>(H));
        t.preview_factor = block_factor(T, S, keep.preview_side);
    }
}

Draws draw_dropout(const AttentionConfig& cfg, const Trace& t, int H, Eigen::Index T, Eigen::Index S) {
    Draws draws(static_cast<size_t>(cfg.batch), std::vector<std::optional<DropoutDraws>>(static_cast<size_t>(H)));
    const double p = variant_has_dropout(cfg.variant) && cfg.training ? cfg.dropout : 0.0;
    if (p == 0.0) return draws;
    TorchGenerator gen = cfg.dropout_seed ? TorchGenerator(*cfg.dropout_seed) : *t.forward_generator;
    const auto draw = [&](int b, int h) {
        draws[static_cast<size_t>(b)][static_cast<size_t>(h)] =
            torch_dropout_draws(gen, static_cast<int>(T), static_cast<int>(S), p);
    };
    if (splits_heads(cfg.variant)) {
        for (int b = 0; b < cfg.batch; ++b)
            for (int h = 0; h < H; ++h) draw(b, h);
    } else {
        for (int h = 0; h < H; ++h)
            for (int b = 0; b < cfg.batch; ++b) draw(b, h);
    }
    return draws;
}

std::vector<const DropoutDraws*> draws_of_head(const Draws& draws, int h) {
    std::vector<const DropoutDraws*> out;
    for (const auto& of_b : draws) {
        const std::optional<DropoutDraws>& d = of_b[static_cast<size_t>(h)];
        out.push_back(d ? &*d : nullptr);
    }
    return out;
}

void combine_heads(Trace& t, const AttentionConfig& cfg, std::vector<std::vector<Matrix>>& contexts /* [h][b] */) {
    const size_t H = contexts.size();
    t.output.assign(static_cast<size_t>(cfg.batch), Matrix());
    for (size_t b = 0; b < static_cast<size_t>(cfg.batch); ++b) {
        Eigen::Index width = 0;
        for (size_t h = 0; h < H; ++h) width += contexts[h][b].cols();
        Matrix concat(contexts[0][b].rows(), width);
        Eigen::Index col = 0;
        for (size_t h = 0; h < H; ++h) {
            concat.middleCols(col, contexts[h][b].cols()) = contexts[h][b];
            col += contexts[h][b].cols();
            contexts[h][b] = Matrix();
        }
        // Found anew for each element: setting "concat" may move the model's stages.
        const Stage* W_out = t.model.find("W_out");
        const Stage* b_out = t.model.find("b_out");
        if (W_out) {
            const std::optional<RowVector> bias = b_out ? std::optional<RowVector>(b_out->value.row(0)) : std::nullopt;
            Matrix out = linear_product(concat, W_out->value, Transpose::No, bias);  // (T x d_out) @ (d_out x d_out)
            if (b == 0) t.model.set("concat", std::move(concat));
            t.output[b] = std::move(out);
        } else {
            if (b == 0 && H > 1) t.model.set("concat", concat);
            t.output[b] = std::move(concat);
        }
    }
}

}  // namespace attn

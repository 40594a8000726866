#include "attention/variants/stacked_heads.h"

#include <memory>

#include "attention/forward_parts.h"
#include "attention/head_forward.h"

namespace attn {

Projections rand_projections(TorchGenerator& gen, int d_in, int d_out, int d_out_v) {
    Projections p;
    p.W_query = torch_rand(gen, d_in, d_out);
    p.W_key = torch_rand(gen, d_in, d_out);
    p.W_value = torch_rand(gen, d_in, d_out_v);
    return p;
}

Projections linear_projections(TorchGenerator& gen, int d_in, int d_out, bool bias) {
    const Linear q = torch_linear(gen, d_in, d_out, bias);
    const Linear k = torch_linear(gen, d_in, d_out, bias);
    const Linear v = torch_linear(gen, d_in, d_out, bias);
    return Projections{q.weight, k.weight, v.weight, q.bias, k.bias, v.bias};
}

HeadWork stacked_heads_forward(const AttentionModule& m, const Matrix& x, const Matrix& kv_input, Axis key_axis,
                               const KeptStages& keep, Trace& t) {
    const AttentionConfig& cfg = m.cfg;
    const int H = cfg.heads;
    const Eigen::Index T = x.rows(), S = kv_input.rows();
    prepare_heads(t, H, T, S, keep);
    // What the heads read until the last has run: the closures own it.
    const auto draws = std::make_shared<const Draws>(draw_dropout(cfg, t, H, T, S));
    const auto contexts = std::make_shared<std::vector<std::vector<Matrix>>>(static_cast<size_t>(H));  // [h][b]

    HeadWork work;
    work.heads = H;
    work.parallel = H > 1 && worth_threads(T, S, cfg.d_out);
    work.attend = [&m, &x, &kv_input, key_axis, &keep, &t, draws, contexts](int h) {
        HeadTrace& head = t.heads[static_cast<size_t>(h)];
        const auto keeps = [&](const char* name) { return keep.keeps(h, name); };
        const Projections& p = m.projections[static_cast<size_t>(h)];
        add_projections(head, p, keeps);
        const Matrix queries = project(x, p.W_query, p.b_query);        // T x d_out
        const Matrix keys = project(kv_input, p.W_key, p.b_key);        // S x d_out
        const Matrix values = project(kv_input, p.W_value, p.b_value);  // S x d_out_v
        const HeadJob job{queries, keys, values, t.causal, key_axis, variant_has_dropout(m.cfg.variant),
                          draws_of_head(*draws, h)};
        if (keeps("queries")) head.add("queries", queries);
        if (keeps("keys")) head.add("keys", keys, key_axis);
        if (keeps("values")) head.add("values", values, key_axis);
        Matrix* preview = keep.preview_side > 0 ? &t.weights_previews[static_cast<size_t>(h)] : nullptr;
        (*contexts)[static_cast<size_t>(h)] = attend_head(job, nullptr, h, keep, head, preview);
    };
    work.finish = [&m, &t, contexts] { combine_heads(t, m.cfg, *contexts); };
    return work;
}

}  // namespace attn

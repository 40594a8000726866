#include "attention/online_softmax.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "attention/attention.h"
#include "numerics/gemm.h"

namespace attn {

namespace {


// exp(a - b), 0 when a is -inf (a masked score, or a row that has seen nothing yet).
float exp_minus(float a, float b) { return a == kMinusInf ? 0.0f : std::exp(a - b); }

}  // namespace

OnlineSoftmaxInput online_softmax_input(const Trace& trace, int head) {
    const HeadTrace& h = trace.heads.at(static_cast<size_t>(head));
    const Stage* queries = h.find("queries_rotated") ? h.find("queries_rotated") : h.find("queries");
    const Stage* keys = h.find("keys_rotated") ? h.find("keys_rotated") : h.find("keys");
    if (!queries) {  // simplified: queries, keys and values are the inputs
        const Matrix& x = trace.model.at("inputs");
        return {x, x, x, {}, {}, 1.0f};
    }
    const Stage* mask = h.find("mask");
    const Stage* bias = h.find("position_bias");
    return {queries->value, keys->value, h.at("values"), mask ? mask->value : Matrix(),
            bias ? bias->value : Matrix(), static_cast<float>(std::sqrt(static_cast<double>(keys->value.cols())))};
}

OnlineSoftmaxState online_softmax(const OnlineSoftmaxInput& in, int tile, int tiles) {
    const Eigen::Index T = in.queries.rows(), S = in.keys.rows(), d_v = in.values.cols();
    if (tile < 1) throw ConfigError("the tile must hold at least one key");
    if (in.keys.cols() != in.queries.cols() || in.values.rows() != S ||
        (in.mask.size() && (in.mask.rows() != T || in.mask.cols() != S)) ||
        (in.bias.size() && (in.bias.rows() != T || in.bias.cols() != S)))
        throw ConfigError("the online softmax's queries, keys, values, mask and bias do not fit together");
    OnlineSoftmaxState st;
    st.tile = tile;
    st.tiles_total = static_cast<int>((S + tile - 1) / tile);
    st.tiles_done = std::clamp(tiles, 0, st.tiles_total);
    st.running_max = Matrix::Constant(T, 1, kMinusInf);
    st.running_sum = Matrix::Zero(T, 1);
    st.running_output = Matrix::Zero(T, d_v);
    Matrix scores = Matrix::Constant(T, S, kMinusInf);  // kept for weights_so_far only

    for (int k = 0; k < st.tiles_done; ++k) {
        const Eigen::Index c0 = static_cast<Eigen::Index>(k) * tile, cols = std::min<Eigen::Index>(tile, S - c0);
        Matrix s = matmul_transposed(in.queries, in.keys.middleRows(c0, cols)) / in.scale;  // T x cols
        if (in.bias.size()) s += in.bias.middleCols(c0, cols);
        if (in.mask.size()) s = (in.mask.middleCols(c0, cols).array() > 0.5f).select(kMinusInf, s);
        scores.middleCols(c0, cols) = s;
        Matrix p(T, cols);
        for (Eigen::Index i = 0; i < T; ++i) {
            const float m_old = st.running_max(i, 0);
            const float m_new = std::max(m_old, s.row(i).maxCoeff());
            const float rescale = exp_minus(m_old, m_new);  // what was summed so far, at the new maximum
            for (Eigen::Index j = 0; j < cols; ++j) p(i, j) = exp_minus(s(i, j), m_new);
            st.running_sum(i, 0) = st.running_sum(i, 0) * rescale + p.row(i).sum();
            st.running_output.row(i) *= rescale;
            st.running_max(i, 0) = m_new;
        }
        st.running_output += matmul(p, in.values.middleRows(c0, cols));  // (T x cols) @ (cols x d_v)
        st.first_key = c0;
        st.last_key = c0 + cols;
    }

    st.weights_so_far = Matrix::Zero(T, S);
    st.context_so_far = Matrix::Zero(T, d_v);
    for (Eigen::Index i = 0; i < T; ++i) {
        const float l = st.running_sum(i, 0);
        if (l == 0.0f) continue;  // nothing seen yet
        for (Eigen::Index j = 0; j < S; ++j) st.weights_so_far(i, j) = exp_minus(scores(i, j), st.running_max(i, 0)) / l;
        st.context_so_far.row(i) = st.running_output.row(i) / l;
    }
    return st;
}

}  // namespace attn

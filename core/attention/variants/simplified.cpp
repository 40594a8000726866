// 3.3's simplified self-attention: no weights; the inputs are the queries, keys and
// values, and the scores are not scaled.
#include "attention/attention.h"
#include "numerics/gemm.h"

namespace attn {

void build_no_layers(AttentionModule&, TorchGenerator&) {}

HeadWork simplified(const AttentionModule& m, const Matrix& x, const Matrix*, const KeptStages&, Trace& t) {
    t.heads.resize(1);
    HeadWork work;
    work.heads = 1;
    work.attend = [&m, &x, &t](int) {
        HeadTrace& h = t.heads[0];
        Matrix attn_scores = matmul_transposed(x, x);  // T x T
        Matrix weights = softmax_rows(attn_scores);
        Matrix context = matmul(weights, x);           // T x d_in
        h.add("scores", std::move(attn_scores), Axis::Tokens);
        h.add("weights", std::move(weights), Axis::Tokens);
        h.add("context", context);
        t.output.assign(static_cast<size_t>(m.cfg.batch), context);
    };
    work.finish = [] {};  // one head: its context is the output
    return work;
}

}  // namespace attn

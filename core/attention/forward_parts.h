#pragma once
// What every module's forward shares (variants/stacked_heads.cpp and
// variants/weight_split.cpp): threads over heads, nn.Dropout's draws in torch's order,
// and combining the heads' context vectors.
#include <exception>
#include <optional>
#include <vector>

#include "attention/attention.h"

namespace attn {

// Threads cost a few microseconds to wake: below ~1 MFLOP a head, one thread is faster.
inline bool worth_threads(Eigen::Index rows, Eigen::Index cols, Eigen::Index depth) {
    return rows * cols * depth >= (1 << 20);
}

// An exception must not leave an OpenMP loop (the program would terminate): the first
// one a head throws is kept and thrown again after the loop.
class HeadErrors {
public:
    template <class Body>
    void run(Body&& body) {
        try {
            body();
        } catch (...) {
#pragma omp critical(attn_head_errors)
            if (!first_) first_ = std::current_exception();
        }
    }
    void rethrow() const {
        if (first_) std::rethrow_exception(first_);
    }

private:
    std::exception_ptr first_;
};

// Every head of `work` (in parallel where it is worth threads), then its finish().
void run_heads(const HeadWork& work);

// Room in `t` for H heads over T queries and S keys: their stage lists, and the block
// means of their weights when `keep` asks for previews.
void prepare_heads(Trace& t, int H, Eigen::Index T, Eigen::Index S, const KeptStages& keep);

// nn.Dropout's draws for every batch element and head, in torch's order: the
// weight-split modules drop their (b, heads, T, S) tensor at once; every other module is
// one forward per head. Empty where nothing is drawn: no dropout, evaluation mode, p = 0.
using Draws = std::vector<std::vector<std::optional<DropoutDraws>>>;  // [b][h]
Draws draw_dropout(const AttentionConfig& cfg, const Trace& t, int H, Eigen::Index T, Eigen::Index S);
std::vector<const DropoutDraws*> draws_of_head(const Draws& draws, int h);

// Heads side by side, (T x d_v) x H -> T x (H * d_v), then out_proj when the module has
// one (W_out, and b_out if it has a bias, among the model stages): every batch element's
// output, and the first one's concat in the model stages.
void combine_heads(Trace& t, const AttentionConfig& cfg, std::vector<std::vector<Matrix>>& contexts /* [h][b] */);

// The projections as a head sees them, each if `keeps` it, under the names given
// ({"W_query", "W_key", "W_value"}; mla's keys and values come from W_UK and W_UV).
template <class Keeps>
void add_projections(HeadTrace& h, const Projections& p, const Keeps& keeps,
                     const char* key_name = "key", const char* value_name = "value") {
    const auto add = [&](const std::string& name, const Matrix& value) {
        if (keeps(name.c_str())) h.add(name, value);
    };
    add("W_query", p.W_query);
    add(std::string("W_") + key_name, p.W_key);
    add(std::string("W_") + value_name, p.W_value);
    if (p.b_query) {
        add("b_query", *p.b_query);
        add(std::string("b_") + key_name, *p.b_key);
        add(std::string("b_") + value_name, *p.b_value);
    }
}

}  // namespace attn

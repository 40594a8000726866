#pragma once
// What a model's traced forward leaves, whichever family ran it (gpt_forward.h,
// llama_forward.h through model/language_model.h): the views, the JSON and the lessons
// read a run of any model from here. A Llama-family block's MLP hidden layer is
// silu(gate) * up where a GPT's is GELU's; its norms RMSNorm where a GPT's are LayerNorm.
#include <cstdint>
#include <vector>

#include "attention/trace.h"

namespace attn {

// One transformer block's activations, T rows each (the last block's MLP half: see
// ModelTrace::last_rows_only).
struct BlockTrace {
    Matrix inputs;      // the residual stream entering the block
    Matrix normed1;     // norm1(inputs): what the attention heads read
    Trace attention;    // every head's stages, as chapter 3's pipeline shows them; output: out_proj's
    Matrix residual1;   // inputs + attention output
    Matrix normed2;     // norm2(residual1)
    Matrix ff_hidden;   // GELU(normed2 @ ff_in): T x 4 emb_dim (a Llama's silu(gate) * up)
    Matrix outputs;     // residual1 + ff_hidden @ ff_out: the next block's inputs
};

struct ModelTrace {
    std::vector<int64_t> ids;
    Matrix embeddings;  // tok_emb[ids] + pos_emb[0..T): the first block's inputs
    std::vector<BlockTrace> blocks;
    Matrix final_normed;  // final_norm(the last block's outputs)
    // One row of vocab_size for each position in logit_rows, in that order: every
    // position's unless the forward was asked for fewer (a front end shows the next
    // tokens of one or two positions; all T rows are GPT-2 small's largest product).
    Matrix logits;
    std::vector<Eigen::Index> logit_rows;
    // When the forward was asked for fewer logits, only they need the last block's MLP:
    // its normed2, ff_hidden and outputs and final_normed then hold the rows of
    // logit_rows' positions, in that order (GPT-2 small's last MLP is 5% of its forward).
    // Another position's come from its residual1 row (final_normed_at).
    bool last_rows_only = false;
};

}  // namespace attn

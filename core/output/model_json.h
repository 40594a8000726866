#pragma once
// The CLI's JSON form of a model run (--model): one object.
//   tokens, token_ids     GPT-2 BPE
//   model                 name, file, n_layer, n_head, n_embd, n_ctx, vocab_size, dtype
//   layers                per layer {"heads": [{"weights": T x T, rows = queries}, ...]}
//   detail (--layer/--head)  layer, head; inputs (the residual stream entering the
//                         block), normed (LayerNorm'd: what the heads read), every stage
//                         of the head (W_query ... context), W_out, b_out, attention_output
//                         (out_proj's), residual (inputs + attention_output)
//   next_token            the 10 most probable after next_token_position: {id, token, prob}
//   next_token_position   0-based: --next-at's, else the last token's
//   sampling, generated, generated_tokens (--generate N): how the ids were chosen
//                         {method: "argmax" | "multinomial", temperature, top_k (null:
//                         none), seed (torch.manual_seed before generate)}, the new ids
//                         and their tokens
// --stages filters the stages: "weights" for the layers, the head's stage names for detail.
#include <ostream>
#include <string>
#include <vector>

#include "run/model_run.h"

namespace attn {

void write_model_json(std::ostream& out, const ModelRun& run, const std::vector<std::string>& stages);

}  // namespace attn

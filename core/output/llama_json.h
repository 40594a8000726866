#pragma once
// The CLI's JSON form of a Llama-family run (--model DIR --ids ... or --text T), as model_json.h's
// for GPT-2 so that scripts treat every model alike:
//   model                 name (the folder), model_type, n_layer, n_head, n_kv_head, head_dim,
//                         n_embd, vocab_size, dtype
//   token_ids, tokens     the ids given, or --text's as DIR/tokenizer.json gives them; tokens as
//                         the tokenizer shows them ("<id>" where the folder has no tokenizer.json)
//   layers                per layer {"heads": [{"kv_head": g, "weights": T x T}, ...]}: query
//                         head h reads key/value head g = h / (n_head / n_kv_head)
//   next_token            the 10 most probable after next_token_position: {id, token, prob}
//   next_token_position   0-based: --next-at's, else the last token's
#include <ostream>

#include "run/llama_run.h"

namespace attn {

void write_llama_json(std::ostream& out, const LlamaRun& run);

}  // namespace attn

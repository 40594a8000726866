#pragma once
// A Llama-family model's run as the app shows any model's (model_run.h's ModelRun): the
// text tokenized by the folder's tokenizer.json, every layer's query heads' weights, the
// detail layer's head with every stage, the next tokens, the generated tokens in view.
// Its trace's blocks are the Llama forward's, in the GPT block's places: RMSNorm's
// outputs where LayerNorm's are, SwiGLU's hidden layer where GELU's is; each layer's
// attention names every query head's key/value head (Trace::head_groups).
#include "run/model_run.h"

namespace attn {

// What run_model does for a model with model.llama. The run keeps its KV cache (its
// key/value heads' rotated keys and values), from which extend_model_run and
// extend_generated append tokens as they do a GPT model's. Throws ModelFileError (no tokenizer.json
// the app reads, an id outside the vocabulary) or InputError (a text past the model's
// positions, a layer or head it has not, work over the budget) with one line.
ModelRun run_llama_model(const Settings& s, const LoadedModel& model, const Budget& budget, bool generated_in_view);

}  // namespace attn

#pragma once
// Where a model comes from: what --model and the app's model menu name.
//   gpt-ch4              chapter 4's GPTModel (GPT_CONFIG_124M) after torch.manual_seed(seed)
//   sotu-small           the small model attnscope ships (assets/models/sotu-small)
//   gpt2, gpt2-medium, gpt2-large, gpt2-xl
//                        OpenAI's GPT-2, found in the Hugging Face cache
//   anything else        a checkpoint: a .safetensors file or a folder holding model.safetensors
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/gpt_model.h"

namespace attn {

struct LoadedModel {
    std::string name;   // as asked for: "gpt-ch4", "sotu-small", "gpt2", or the path
    std::string file;   // the safetensors file read ("" for gpt-ch4)
    std::string dtype;  // the weights' dtype as torch names it ("float32" for gpt-ch4)
    uint64_t seed = 0;  // gpt-ch4's
    std::shared_ptr<const GptModel> model;
};

extern const char* const kShippedModel;  // "sotu-small"

// The folder of the shipped model (data_path("models/sotu-small")).
std::string shipped_model_dir();
// Whether its weights are on this machine: always for the desktop app; the browser's page
// downloads them only when the model is chosen (app/platform/web.cpp).
bool shipped_model_present();

// A GPT-2 checkpoint found in the Hugging Face hub cache: $HF_HUB_CACHE, else
// $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub;
// the repositories openai-community/NAME and NAME, the snapshot refs/main names (else
// the first holding model.safetensors).
struct FoundCheckpoint {
    std::string name;  // "gpt2", "gpt2-medium", ...
    std::string file;  // .../snapshots/HASH/model.safetensors
};
std::vector<FoundCheckpoint> find_huggingface_gpt2();

// True for the names above that are not paths.
bool is_model_name(const std::string& name);

// Loads what `name` names (gpt-ch4 drawn from `seed`). Throws ModelFileError (a file
// that cannot be used) or ArgsError (gpt2 not in the cache: says how to get it).
LoadedModel load_model(const std::string& name, uint64_t seed);

}  // namespace attn

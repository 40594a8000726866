#pragma once
// Where a model comes from: what --model and the app's model menu name.
//   gpt-ch4              chapter 4's GPTModel (GPT_CONFIG_124M) after torch.manual_seed(seed)
//   sotu-small           the small model attnscope ships (assets/models/sotu-small)
//   gpt2, gpt2-medium, gpt2-large, gpt2-xl
//                        OpenAI's GPT-2, found in the Hugging Face cache
//   a Llama-family folder  config.json of model_type llama, qwen2 or qwen3 (llama_config.h),
//                        its safetensors and tokenizer.json, as Hugging Face has them
//   ORG/NAME             a GPT-2 or Llama-family model in the Hugging Face cache, by its
//                        repository id (core/hub/ fetches it there)
//   anything else        a checkpoint: a .safetensors file or a folder holding model.safetensors
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/language_model.h"

namespace attn {

struct LoadedModel {
    std::string name;   // as asked for: "gpt-ch4", "sotu-small", "gpt2", or the path
    std::string file;   // the safetensors file read ("" for gpt-ch4)
    std::string dtype;  // the weights' dtype as torch names it ("float32" for gpt-ch4)
    uint64_t seed = 0;  // gpt-ch4's
    // The model, whichever its family, as the one interface (language_model.h).
    std::shared_ptr<const LanguageModel> model;
};

ModelShape model_shape(const LoadedModel& model);  // model.model->shape()

extern const char* const kShippedModel;  // "sotu-small"
// "sotu-attn-only": two layers of attention and no MLP, with an induction head (its card
// says how it was trained).
extern const char* const kAttentionOnlyModel;
// The models attnscope ships (assets/models/NAME): kShippedModel, kAttentionOnlyModel.
const std::vector<std::string>& shipped_models();
bool is_shipped_model(const std::string& name);
extern const char* const kSeededModel;   // "gpt-ch4"

// Whether Settings::model names the model drawn from the seed (chapter 4's GPTModel after
// torch.manual_seed): the only one --seed changes; a checkpoint's weights are its own.
bool is_seeded_model(const std::optional<std::string>& name);

// The folder of a shipped model (data_path("models/sotu-small")).
std::string shipped_model_dir(const std::string& name = kShippedModel);
// Whether its weights are on this machine: always for the desktop app; the browser's page
// downloads them only when the model is chosen (app/platform/web.cpp).
bool shipped_model_present(const std::string& name = kShippedModel);

// A GPT-2 checkpoint found in the Hugging Face hub cache: $HF_HUB_CACHE, else
// $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub;
// the repositories openai-community/NAME and NAME, the snapshot refs/main names (else
// the first holding model.safetensors).
struct FoundCheckpoint {
    std::string name;  // "gpt2", "gpt2-medium", ...
    std::string file;  // .../snapshots/HASH/model.safetensors
};
std::vector<FoundCheckpoint> find_huggingface_gpt2();
// The Llama-family models in the same cache: every models--ORG--NAME whose snapshot's
// config.json is a supported model_type and which has its safetensors; name "ORG/NAME",
// file the snapshot's folder (what --model and the app's model list take).
std::vector<FoundCheckpoint> find_huggingface_llama();

// Whether `name` has the shape of a Hugging Face repository id, ORG/NAME.
bool is_hub_repo_id(const std::string& name);
// The snapshot folder of the cache's model `repo_id` ("HuggingFaceTB/SmolLM2-135M",
// "openai-community/gpt2"), "" when the cache has no such model.
std::string huggingface_model_folder(const std::string& repo_id);

// The folder or file `name` gives: the cache's snapshot folder of a repository id, `name`
// itself otherwise. Throws ArgsError for a repository id the cache does not have (saying
// how to get it).
std::string model_folder(const std::string& name);

// --revision REV (the CLI's and the app's): throws ArgsError unless `model` is a Hub
// repository id and `revision` is not empty. Nothing without a revision.
void check_revision_flag(const std::optional<std::string>& model, const std::optional<std::string>& revision);

// Whether `path` is a folder whose config.json names a Llama-family model_type.
bool is_llama_family_folder(const std::string& path);

// True for the names above that are not paths.
bool is_model_name(const std::string& name);

// Loads what `name` names (gpt-ch4 drawn from `seed`). Throws ModelFileError (a file
// that cannot be used) or ArgsError (gpt2 not in the cache: says how to get it).
LoadedModel load_model(const std::string& name, uint64_t seed);

}  // namespace attn

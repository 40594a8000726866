#include "model/language_model.h"

#include <stdexcept>

namespace attn {

std::unique_ptr<LanguageModel> language_model(const LoadedModel& loaded) {
    if (loaded.llama) return llama_language_model(loaded.llama);
    if (loaded.model) return gpt_language_model(loaded.model);
    throw std::logic_error("language_model: no model loaded");
}

}  // namespace attn

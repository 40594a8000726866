#include "model/hub_catalog.h"

namespace attn {

const std::vector<HubCatalogEntry>& hub_catalog() {
    static const std::vector<HubCatalogEntry> entries = {
        {"openai-community/gpt2", "GPT-2 small (124M)", "548 MB", false},
        {"openai-community/gpt2-medium", "GPT-2 medium (355M)", "1.52 GB", false},
        {"HuggingFaceTB/SmolLM2-135M", "SmolLM2-135M", "269 MB", false},
        {"HuggingFaceTB/SmolLM2-360M", "SmolLM2-360M", "724 MB", false},
        {"Qwen/Qwen2.5-0.5B", "Qwen2.5-0.5B", "988 MB", false},
        {"Qwen/Qwen3-0.6B", "Qwen3-0.6B", "1.5 GB", false},
        {"meta-llama/Llama-3.2-1B", "Llama 3.2 1B", "2.47 GB", true},
    };
    return entries;
}

}  // namespace attn

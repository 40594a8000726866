#pragma once
// The Hub's models attnscope offers by name (the app's "Get a model from the Hub…" list):
// each a family it runs, with the download's size as the Hub lists it. Any other GPT-2 or
// Llama-family repository can still be named (--model ORG/NAME).
#include <string>
#include <vector>

namespace attn {

struct HubCatalogEntry {
    std::string repo_id;   // "openai-community/gpt2"
    std::string label;     // "GPT-2 small (124M)"
    std::string size;      // "548 MB": its safetensors and the small files, as the Hub lists them
    bool gated = false;    // the licence is accepted on the Hub first, and HF_TOKEN set
};

const std::vector<HubCatalogEntry>& hub_catalog();

}  // namespace attn

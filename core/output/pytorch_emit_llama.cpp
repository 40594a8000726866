// A Llama-family model's program (Llama 3, SmolLM2, Qwen2.5, Qwen3): its header, the
// classes (scripts/llama_family.py, the reference the golden data is made with, quoted), a
// reader that fills the model from the folder's safetensors files one tensor at a time, and
// the forward pass. The tokens, the prints and the JSON are a GPT model's
// (pytorch_emit_model.cpp), so a program's output reads the same for every model.
#include <cmath>
#include <sstream>
#include <utility>

#include "model/llama_checkpoint.h"
#include "output/pytorch_emit_parts.h"
#include "output/python_scripts.h"

namespace attn::pytorch_emit_parts {

namespace {

const LlamaConfig& config_of(const ModelProgram& p) { return p.run.model.model->llama_weights()->config(); }

std::string py_bool(bool b) { return b ? "True" : "False"; }

// A whole number as Python writes an int (config.json's original_max_position_embeddings).
std::string py_number(double v) {
    return std::floor(v) == v && std::fabs(v) < 1e15 ? std::to_string(static_cast<int64_t>(v)) : py_float(v);
}

}  // namespace

void emit_llama_header(std::ostream& py, const ModelProgram& p) {
    const LlamaConfig& c = config_of(p);
    const ModelRun& run = p.run;
    const int group = p.head / c.group_size();
    py << "# attnscope, reproduced in PyTorch: the " << c.model_type << " model " << run.model.name << ",\n"
       << "# " << plural(static_cast<std::size_t>(c.layers), "layer") << " of "
       << plural(static_cast<std::size_t>(c.heads), "query head") << " sharing "
       << plural(static_cast<std::size_t>(c.kv_heads), "key/value head") << ", " << c.hidden_size
       << "-d, heads of " << c.head_dim << " (" << run.model.dtype << " weights).\n"
       << "#\n"
       << "# This program runs, with attnscope's scripts/llama_family.py (the Llama family as Hugging Face's\n"
       << "# transformers computes it, in float32: the reference of attnscope's golden tests)"
       << (p.generate ? (p.sampling.sampled() ? " and\n# chapter 5's generate" : " and\n# chapter 4's generate_text_simple")
                      : "")
       << ",\n# what attnscope shows for\n"
       << "#\n"
       << "#     " << p.command << "\n"
       << "#\n";
    py << what_it_prints(p, "query head " + std::to_string(p.head) + "'s attention weights (its keys are key/value head " +
                                std::to_string(group) + "'s,\n# shared by query heads " +
                                std::to_string(group * c.group_size()) + "-" +
                                std::to_string((group + 1) * c.group_size() - 1) + ")",
                         "encoding by the model's tokenizer.json")
       << "# It holds the weights in float32, 4 bytes a parameter (transformers' default too).\n"
       << "#\n"
       << "# Written by " << (p.app ? "attnscope's File > Copy as PyTorch" : "attnscope-cli --emit-pytorch") << ".\n"
       << "import json\n"
       << "import math\n"
       << "import os\n"
       << "import struct\n"
       << "import sys\n"
       << "\n"
       << "import torch\n"
       << "import torch.nn as nn\n";
}

void emit_llama_classes(std::ostream& py, const ModelProgram& p) {
    py << "\n\n" << section("The Llama family (scripts/llama_family.py)")
       << "# attnscope's scripts/llama_family.py, as it is: RMSNorm, RoPE in rotate-half form (with Llama 3's\n"
       << "# frequency scaling), grouped-query attention, SwiGLU; qwen2's q/k/v biases, qwen3's q_norm and k_norm.\n"
       << "# Its forward keeps every layer's softmax weights in its .weights: how this program reads a head's.\n"
       << definitions(kLlamaFamilyPy, {"rms_norm", "rope_inv_freq", "rotate_half", "LlamaFamily"});
    if (p.generate > 0)
        py << "\n\n"
           << section("The book's generation (scripts/book_gpt.py)")
           << definitions(kBookGptPy, {p.sampling.sampled() ? "generate" : "generate_text_simple"});
    py << "\n\n"
       << section("Reading the folder's safetensors files")
       << "# A safetensors file is 8 bytes of little-endian header length N, N bytes of JSON {name: {dtype,\n"
       << "# shape, data_offsets}}, then the tensors' bytes; a sharded model's model.safetensors.index.json\n"
       << "# names each tensor's file. One tensor is read and converted to float32 at a time, into its\n"
       << "# parameter: the file's weights are never held twice. No safetensors package needed.\n"
       << "DTYPES = {\"F32\": torch.float32, \"F16\": torch.float16, \"BF16\": torch.bfloat16}\n"
       << "\n"
       << "\n"
       << "def load_weights(family, folder):\n"
       << "    index = os.path.join(folder, \"model.safetensors.index.json\")\n"
       << "    files = json.load(open(index))[\"weight_map\"] if os.path.exists(index) else {}\n"
       << "    headers = {}  # path: (where the data begins, the header)\n"
       << "    with torch.no_grad():\n"
       << "        for name, param in family.state_dict_hf().items():\n"
       << "            path = os.path.join(folder, files.get(name, \"model.safetensors\"))\n"
       << "            if path not in headers:\n"
       << "                with open(path, \"rb\") as f:\n"
       << "                    n = struct.unpack(\"<Q\", f.read(8))[0]\n"
       << "                    headers[path] = (8 + n, json.loads(f.read(n)))\n"
       << "            start, header = headers[path]\n"
       << "            entry = header[name]\n"
       << "            assert list(param.shape) == entry[\"shape\"], f\"{name}: {entry['shape']}, not {list(param.shape)}\"\n"
       << "            begin, end = entry[\"data_offsets\"]\n"
       << "            with open(path, \"rb\") as f:\n"
       << "                f.seek(start + begin)\n"
       << "                data = bytearray(f.read(end - begin))\n"
       << "            param.copy_(torch.frombuffer(data, dtype=DTYPES[entry[\"dtype\"]]).reshape(entry[\"shape\"]).float())\n"
       << "\n"
       << "\n"
       << "class BatchOfOne(nn.Module):\n"
       << "    \"\"\"LlamaFamily takes one text's ids and returns [T, vocab]; the book's generate functions\n"
       << "    call model(idx) on a batch [1, T] and read [1, T, vocab].\"\"\"\n"
       << "    def __init__(self, family):\n"
       << "        super().__init__()\n"
       << "        self.family = family\n"
       << "\n"
       << "    def forward(self, idx):\n"
       << "        return self.family(idx[0].tolist())[None]\n";
}

std::string emit_llama_model(std::ostream& py, const ModelProgram& p) {
    const LlamaConfig& c = config_of(p);
    std::string scaling = "None";
    if (c.rope_scaling)
        scaling = "{\"rope_type\": \"llama3\", \"factor\": " + py_number(c.rope_scaling->factor) +
                  ", \"low_freq_factor\": " + py_number(c.rope_scaling->low_freq_factor) +
                  ",\n                     \"high_freq_factor\": " + py_number(c.rope_scaling->high_freq_factor) +
                  ", \"original_max_position_embeddings\": " + py_number(c.rope_scaling->original_context) + "}";
    const std::pair<std::string, std::string> items[] = {
        {"model_type", py_str(c.model_type)},
        {"vocab_size", std::to_string(c.vocab_size)},
        {"hidden_size", std::to_string(c.hidden_size)},
        {"intermediate_size", std::to_string(c.intermediate_size)},
        {"num_hidden_layers", std::to_string(c.layers)},
        {"num_attention_heads", std::to_string(c.heads)},
        {"num_key_value_heads", std::to_string(c.kv_heads)},
        {"head_dim", std::to_string(c.head_dim)},
        {"rms_norm_eps", py_float(c.rms_norm_eps)},
        {"rope_theta", py_float(c.rope_theta)},
        {"rope_scaling", scaling},
        {"tie_word_embeddings", py_bool(c.tied_head)},
        {"attention_bias", py_bool(c.qkv_bias)},
        {"context_length", std::to_string(c.max_positions)}};
    py << "\n\n" << section("The model")
       << "# The folder attnscope read: edit the path to use another copy of it.\n"
       << "MODEL_DIR = " << py_str(p.file) << "\n"
       << "\n"
       << "# Its config.json as attnscope read it (head_dim where the file has none: hidden_size / heads;\n"
       << "# context_length: max_position_embeddings, where the book's generate crops the text).\n"
       << "CONFIG = {\n";
    for (const auto& [key, value] : items) py << "    \"" << key << "\": " << value << ",\n";
    py << "}\n"
       << "\n"
       << "family = LlamaFamily(CONFIG)  # drawn at random, then every weight read from the folder\n"
       << "load_weights(family, MODEL_DIR)\n"
       << "model = BatchOfOne(family)\n"
       << "model.eval()\n";
    return "CONFIG";
}

void emit_llama_forward(std::ostream& py, const ModelProgram& p) {
    py << "\n\n" << section("The forward pass")
       << "layer, head = " << p.layer << ", " << p.head << "  # the query head attnscope shows (--layer " << p.layer
       << " --head " << p.head << ")\n"
       << "idx = torch.tensor([token_ids])  # a batch of one text\n"
       << hooked_forward_lines(p)
       << "with torch.no_grad():\n"
       << "    logits = model(idx)\n"
       << unhook_lines(p)
       << "attn_weights = family.weights[layer][head]  # [queries, keys]: rows sum to 1, the future is 0\n"
       << "\n"
       << next_token_lines(p) << generation_lines(p);
}

}  // namespace attn::pytorch_emit_parts

// A GPT model's program: the book's classes, quoted from the project's scripts, and the
// section that builds the model and loads its weights (see pytorch_emit_parts.h).
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "model/safetensors.h"
#include "output/pytorch_emit_parts.h"
#include "output/python_scripts.h"
#include "text/utf8.h"

namespace attn::pytorch_emit_parts {

std::string definitions(const char* script, std::initializer_list<const char*> names) {
    std::string out;
    for (const char* name : names) out += (out.empty() ? "" : "\n\n") + python_definition(script, name);
    return out;
}

namespace {

// The book's dictionary, one key a line, its comments in a column.
void emit_config(std::ostream& py, const std::string& name, const GptConfig& c, double drop_rate) {
    const std::pair<std::string, const char*> items[] = {
        {"\"vocab_size\": " + std::to_string(c.vocab_size) + ",", "Vocabulary size"},
        {"\"context_length\": " + std::to_string(c.context_length) + ",", "Context length"},
        {"\"emb_dim\": " + std::to_string(c.emb_dim) + ",", "Embedding dimension"},
        {"\"n_heads\": " + std::to_string(c.n_heads) + ",", "Number of attention heads"},
        {"\"n_layers\": " + std::to_string(c.n_layers) + ",", "Number of layers"},
        {"\"drop_rate\": " + py_float(drop_rate) + ",", "Dropout rate"},
        {std::string("\"qkv_bias\": ") + (c.qkv_bias ? "True" : "False"), "Query-Key-Value bias"}};
    std::size_t width = 0;
    for (const auto& [item, comment] : items) width = std::max(width, item.size());
    py << name << " = {\n";
    for (const auto& [item, comment] : items) py << "    " << item << std::string(width - item.size() + 2, ' ') << "# " << comment << "\n";
    py << "}\n";
}

}  // namespace

std::string model_file_path(const LoadedModel& model) {
    if (model.file.empty()) return "";
    std::error_code error;
    const std::string path = std::filesystem::absolute(model.file, error).lexically_normal().string();
    // The program reads the file again: one that has gone (deleted or moved since the
    // model loaded, in the app) would only fail when the program runs.
    struct stat st {};
    const char* what = model.model->llama_weights() ? "folder" : "file";  // a Llama-family model's weights are a folder's files
    if (error || ::stat(path.c_str(), &st) != 0)
        throw ModelFileError(model.file + ": no such " + what + " any more (the program would read the weights from it)");
    if (model.model->llama_weights() ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
        throw ModelFileError(model.file + ": not a " + what + " (the program reads the weights from it)");
    if (!is_valid_utf8(path))
        throw ModelFileError(model.file + ": the path is not UTF-8, which a Python program's text cannot name");
    return path;
}

void emit_gpt_classes(std::ostream& py, bool from_file, bool sampled) {
    py << "\n\n" << section("The book's GPTModel (chapter 4)")
       << "# The classes of chapter 4's gpt.py on chapter 3's MultiHeadAttention (3.6.2), as attnscope's\n"
       << "# scripts/book_gpt.py holds them. Its additions to the book's code: an `attention` parameter (the\n"
       << "# class of the blocks' attention), MultiHeadAttention's keep_weights (when set, the softmax\n"
       << "# weights stay in last_weights: how this program reads a head's) and lines marked attnscope.\n"
       << definitions(kBookGptPy, {"MultiHeadAttention", "LayerNorm", "GELU", "FeedForward", "TransformerBlock",
                                   "GPTModel", "generate_text_simple"});
    if (sampled) py << "\n\n" << definitions(kBookGptPy, {"generate"});
    if (!from_file) return;
    py << "\n\n" << section("Reading a safetensors file, and chapter 5's load_weights_into_gpt")
       << "# As attnscope's scripts/gpt2_safetensors.py: the file is 8 bytes of little-endian header\n"
       << "# length N, N bytes of JSON {name: {dtype, shape, data_offsets}}, then the tensors' bytes. No\n"
       << "# safetensors package needed. F16 and BF16 weights become float32, as attnscope computes.\n"
       << definitions(kGpt2SafetensorsPy, {"DTYPES", "read_safetensors", "load_weights_into_gpt"});
}

std::string emit_gpt_model(std::ostream& py, const LoadedModel& model, const std::string& file) {
    const GptConfig& c = model.model->gpt_weights()->cfg;
    py << "\n\n" << section("The model");
    if (file.empty()) {
        py << "# Chapter 4's configuration, and its GPTModel drawn after torch.manual_seed: untrained.\n";
        emit_config(py, "GPT_CONFIG_124M", c, c.drop_rate);
        py << "\n"
           << "torch.manual_seed(" << model.seed << ")\n"
           << "model = GPTModel(GPT_CONFIG_124M)\n"
           << "model.eval()  # disable dropout\n";
        return "GPT_CONFIG_124M";
    }
    py << "# The safetensors file attnscope read (" << model.dtype << " weights): edit the path to use\n"
       << "# another copy of it.\n"
       << "MODEL_FILE = " << py_str(file) << "\n"
       << "\n"
       << "# The sizes as attnscope read them from the file: wte's rows and columns, wpe's rows, the\n"
       << "# h.N blocks; n_heads from the config.json beside it, else its __metadata__, else heads of 64.\n"
       << "# GPT-2's c_attn has biases (qkv_bias); chapter 5 sets drop_rate 0 for its weights.\n";
    emit_config(py, "GPT_CONFIG", c, 0.0);
    py << "\n"
       << "model = GPTModel(GPT_CONFIG)\n"
       << "params, metadata = read_safetensors(MODEL_FILE)\n"
       << "# Hugging Face's GPT2LMHeadModel names its tensors transformer.wte.weight, ...; GPT2Model wte.weight.\n"
       << "prefix = \"transformer.\" if \"transformer.wte.weight\" in params else \"\"\n"
       << "load_weights_into_gpt(model, params, prefix)  # the output head is wte's (tied) without lm_head.weight\n"
       << "model.eval()  # disable dropout\n";
    return "GPT_CONFIG";
}

}  // namespace attn::pytorch_emit_parts

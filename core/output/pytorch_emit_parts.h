#pragma once
// Private to the PyTorch emitter: what the parts of emit_pytorch (pytorch_emit.h) share.
// The program is written section by section, each part in its own file:
//   pytorch_emit_literals.cpp       Python literals, section rules
//   pytorch_emit_plan.cpp           which of the book's classes a run uses
//   pytorch_emit_text.cpp           the text and its tokens
//   pytorch_emit_embedding.cpp      the embedding
//   pytorch_emit_trace.cpp          the lines attnscope adds to a forward to record its stages
//   pytorch_emit_classes_rand.cpp   the classes with torch.rand weights (3.4.1, seed 004)
//   pytorch_emit_classes_linear.cpp the classes with nn.Linear weights (3.4.2 to 3.6.2)
//   pytorch_emit_split_trace.cpp    the trace block of the weight-split classes (mha and ch04's)
//   pytorch_emit_classes_gqa.cpp    ch04's GroupedQueryAttention, and llama3.py's RoPE for --rope
//   pytorch_emit_classes_swa.cpp    ch04's MultiHeadAttentionWithSWA
//   pytorch_emit_classes_mla.cpp    ch04's MultiHeadLatentAttention
//   pytorch_emit_classes_alibi.cpp  MultiHeadAttentionWithALiBi (attnscope's, from the paper)
//   pytorch_emit_kv_cache.cpp       the JSON's kv_cache, measured on the module's own cache
//   pytorch_emit.cpp                the header, the forward pass, the JSON, the main block
// and a GPT model's program (pytorch_emit_model.h):
//   pytorch_emit_model_weights.cpp  the book's GPTModel and loader (quoted scripts), the model
//   pytorch_emit_model.cpp          the header, the tokens, the forward pass, the prints, the JSON
// and a Llama-family model's (the same tokens, prints and JSON):
//   pytorch_emit_llama.cpp          its header, scripts/llama_family.py's classes, the model, the forward
// Nothing here is meant for other callers.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "interventions/hooked_run.h"
#include "model/model_source.h"
#include "output/pytorch_emit.h"
#include "run/model_run.h"

namespace attn::pytorch_emit_parts {

// ---------------------------------------------------------------------------------
// Python literals (pytorch_emit_literals.cpp)
// ---------------------------------------------------------------------------------

std::string py_str(std::string_view s);
std::string py_list(const std::vector<std::string>& items, std::size_t indent);
std::string py_ints(const std::vector<int64_t>& ids, std::size_t indent);
std::string py_strs(const std::vector<std::string>& strs, std::size_t indent);
std::string py_float(double v);
std::string section(const std::string& title);

// ---------------------------------------------------------------------------------
// The text and the embedding sections (pytorch_emit_text.cpp, pytorch_emit_embedding.cpp)
// ---------------------------------------------------------------------------------

// Python names of what the text and embedding sections define.
struct Names {
    std::string token_embeddings, pos_embeddings, inputs;  // pos_embeddings empty without --pos
    std::string inputs2;                                   // cross: the keys' input
    std::string print_tokens;                              // what the book prints of the tokens
};

bool is_book_sentence(const Run& run);
void emit_text(std::ostream& py, const Settings& s, const Run& run, Names& names);
void emit_embedding(std::ostream& py, const Settings& s, const Run& run, Names& names);

// ---------------------------------------------------------------------------------
// The book's classes as the program builds, calls and reads them: each classes file
// defines its own; the variant table's py_class names the one a run uses
// (pytorch_emit_plan.cpp finds it).
// ---------------------------------------------------------------------------------

// Where a module's trace keeps its heads' stages.
enum class HeadsAre {
    One,     // the module is one head: module.trace
    Listed,  // a wrapper of head modules: module.heads[i].trace
    Split,   // a weight-split module: module.trace["heads"][i]
};

struct EmittedClass {
    const char* name;    // the Python class ("MultiHeadAttention"): VariantInfo::py_class
    const char* object;  // its Python variable ("mha")
    std::string (*title)(const AttentionConfig& c);  // what it is, for the program's first line
    std::vector<std::string> (*definitions)(const AttentionConfig& c);  // the code blocks it needs, in order
    // The lines that build it as `object` (torch.manual_seed is written before them).
    std::string (*construct)(const AttentionConfig& c, const std::string& object, const Names& names);
    bool batched;   // forward takes (b, T, d_in); the others take one (T, d_in) text
    HeadsAre heads;
    // ch04's classes: the JSON's kv_cache, weighed on the cache forward(use_cache=True) filled.
    std::string (*kv_cache)(const std::string& object) = nullptr;
    // Seed 004's classes stand in where the book's cannot express the settings (a value
    // width of its own, heads side by side): null, or the class to use instead.
    const EmittedClass* (*instead)(const AttentionConfig& c) = nullptr;
};

// The emitted classes the variant table names (and 004's, through `instead`). A `const`
// at namespace scope links only inside its file unless declared `extern` first: here.
extern const EmittedClass kSelfAttentionV1, kSelfAttention004, kWrapper004, kCross, kCrossWrapper;
extern const EmittedClass kSelfAttentionV2, kCausalAttention, kMhaWrapper, kMultiHeadAttention;
extern const EmittedClass kGroupedQueryAttention, kSlidingWindowAttention, kLatentAttention, kAlibiAttention;

struct Plan {
    const EmittedClass* cls = nullptr;  // null: 3.3's simplified attention has no class
    AttentionConfig cfg;
    std::string object;  // the module's Python variable
    std::string title;   // what the class is, for the header
    bool batched = false;
    bool kv_cache = false;  // forward(x, use_cache=True) fills the module's KV cache
};

Plan plan_for(const Settings& s);

// ---------------------------------------------------------------------------------
// The `self.trace = {...}` block that ends an instrumented forward (pytorch_emit_trace.cpp)
// ---------------------------------------------------------------------------------

struct Row {
    std::string key, expr, comment;
};

// What one head's stages are called inside a forward, and how to take batch element 0
// (and head h) of them.
struct HeadVars {
    std::string w_query, w_key, w_value;  // in the x @ W orientation
    std::vector<std::string> biases;      // b_query, b_key, b_value expressions, or none
    std::string key_name = "key", value_name = "value";  // the JSON's W_key, b_key...: mla's are W_UK, W_UV
    std::string queries, keys, values;
    std::string scores;   // raw q·k
    std::string masked;   // the scores with -inf where masked (before scaling)
    std::string scale;    // sqrt(d_k)
    std::string mask;
    std::string mask_why = "1 = masked (the future)";
    std::string weights, dropout_mask, dropped, context;  // dropout_mask empty: no dropout
    std::string at;       // index of batch element 0 (and head h): "" or "[0]" or "[0, h]"
    std::string kv_at;    // the keys' and values' index when it is not `at` (gqa's group: "[0, g]")
};

// A head's stages for nn.Linear projections self.W_query, self.W_<key_name>,
// self.W_<value_name>: the whole weights, or the columns of the Python slices `cols`
// (queries) and `kv_cols` (keys and values) when those are named.
HeadVars linear_head_vars(bool bias, const std::string& cols = "", const std::string& kv_cols = "",
                          const std::string& key_name = "key", const std::string& value_name = "value");
std::string trace_rows(const std::vector<Row>& rows, std::size_t indent);
std::vector<Row> head_rows(const HeadVars& v);
std::string self_trace(const std::vector<Row>& rows, const std::string& what);
void replace(std::string& text, const std::string& key, const std::string& value);
std::string causal_lines(bool causal);

// ---------------------------------------------------------------------------------
// The classes, as the seed documents write them, plus the lines that record stages
// (pytorch_emit_classes_rand.cpp, pytorch_emit_classes_linear.cpp)
// ---------------------------------------------------------------------------------

std::string class_self_attention_v1(bool causal);
std::string class_self_attention_004(bool causal);
std::string class_wrapper_004();
std::string class_cross_attention(bool causal);
std::string class_cross_wrapper();

std::string class_self_attention_v2(bool causal, bool bias);
std::string dropout_helper();
std::string class_causal_attention(bool bias);
std::string class_mha_wrapper();
std::string class_mha(bool bias);

// ---------------------------------------------------------------------------------
// The weight-split classes' trace block, and the book's ch04 classes
// (pytorch_emit_split_trace.cpp, pytorch_emit_classes_gqa/swa/mla.cpp)
// ---------------------------------------------------------------------------------

// One head's stages in a weight-split forward: queries, keys, values, scores, ... of shape
// (b, heads, T, ...) taken at [0, h], the raw scores kept as `scores`, the weights before
// dropout as `weights`, its context the columns `cols` of `concat`; the keys and values
// from the columns `kv_cols` of W_<key_name> and W_<value_name>.
HeadVars split_head_vars(bool bias, const std::string& mask, const std::string& kv_cols = "cols",
                         const std::string& key_name = "key", const std::string& value_name = "value");

// The block that ends a weight-split forward: self.trace = {"module": the module's own
// stages (the JSON's top level: concat, W_out, b_out with `out_bias`, then `module`),
// "heads": per head its `head` rows and out_proj's}. `why` (lines) continues the comment:
// how head h finds its columns; `setup` (lines) begins the loop body: it defines the
// slices the rows use.
std::string split_trace(const std::vector<Row>& head, bool out_bias, const std::vector<Row>& module,
                        const std::vector<std::string>& why, const std::vector<std::string>& setup);

// `m = cls(d_in, d_out, dropout, num_heads=H, ...)`, as ch04's classes take their
// arguments: `before_bias`, qkv_bias=True when set, `after_bias`; wrapped as a list is.
std::string construct_ch04(const AttentionConfig& c, const std::string& m, const std::string& cls,
                           const std::vector<std::string>& before_bias, const std::vector<std::string>& after_bias);

std::string rope_functions();
std::string class_gqa(bool bias, bool rope);
std::string class_swa(bool bias);
std::string class_mla(bool bias);

// ---------------------------------------------------------------------------------
// The JSON's kv_cache (pytorch_emit_kv_cache.cpp)
// ---------------------------------------------------------------------------------

std::string kv_cache_helper();  // the Python function the JSON calls
// Its call for a module whose cache is the tensors `caches` (Python expressions of the
// object's attributes) holding `tokens` tokens.
std::string kv_cache_call(const std::string& object, const std::vector<std::string>& caches, const std::string& tokens);

// ---------------------------------------------------------------------------------
// A GPT model's classes and weights (pytorch_emit_model_weights.cpp)
// ---------------------------------------------------------------------------------

// The definitions `names` of a quoted script (python_scripts.h), a blank line apart.
std::string definitions(const char* script, std::initializer_list<const char*> names);
// The absolute path of the model's safetensors file ("" for gpt-ch4), or a Llama-family
// model's folder. Throws ModelFileError when it is no longer there or has no name Python
// can spell.
std::string model_file_path(const LoadedModel& model);
// The book's chapter 4 classes and generate_text_simple; with `sampled` chapter 5's
// generate; with `from_file` the safetensors reader and chapter 5's load_weights_into_gpt.
void emit_gpt_classes(std::ostream& py, bool from_file, bool sampled);
// Defines `model` in eval mode: gpt-ch4 as the book draws it, or GPTModel(GPT_CONFIG) with
// the weights of `file` (model_file_path's). Returns the configuration's Python name.
std::string emit_gpt_model(std::ostream& py, const LoadedModel& model, const std::string& file);

// ---------------------------------------------------------------------------------
// What a model's program shares, GPT or Llama family (pytorch_emit_model.cpp)
// ---------------------------------------------------------------------------------

struct ModelProgram {
    explicit ModelProgram(const ModelRun& r) : run(r) {}
    const ModelRun& run;
    std::string command;   // the attnscope-cli command that shows the same (the text's tokens)
    int layer = 0, head = 0;
    std::size_t prompt = 0;       // how many of run.tokens are the text's
    int generate = 0;             // tokens the program generates (the CLI's --generate)
    Sampling sampling;            // how: the argmax, or chapter 5's sampling
    std::string file;             // the safetensors file's absolute path ("" for gpt-ch4), a Llama's folder
    std::string config;           // the configuration's Python name
    bool app = false;             // for the app's File menu: the tokens in view
    bool ids_given = false;       // the tokens are --ids as given, not a tokenizer's
    // Heads switched off or patched (pytorch_emit_intervention.cpp): the forward then runs
    // with forward pre-hooks on the output projections; null for none.
    const Intervention* intervention = nullptr;
    std::vector<int64_t> patch_ids;  // the patch's source tokens
};

std::string plural(std::size_t n, const std::string& one);
// The header's lines that say which tokens the program reads (the window's generated ones
// too) and what it prints: layer L's `head` ("head 3's attention weights"), the next tokens,
// the generated ones and the JSON; then where the ids came from (`encoding`, unless given).
std::string what_it_prints(const ModelProgram& p, const std::string& head, const std::string& encoding);
// The lines that take the next tokens' softmax from `logits` and its top ids as `top`.
std::string next_token_lines(const ModelProgram& p);
// The lines that generate p.generate tokens after idx with the book's generate_text_simple
// or chapter 5's generate, into `generated`.
std::string generation_lines(const ModelProgram& p);

// The intervention's hooks (pytorch_emit_intervention.cpp): a section defining `change`
// (and the patch source's z) for the module list `o_proj` names ("model.trf_blocks[{}].att.out_proj",
// "family.layers[{}].o_proj"), and the lines that run the baseline forward into
// `baseline_logits` and hook the projections before the forward that follows.
void emit_intervention(std::ostream& py, const ModelProgram& p, const std::string& o_proj);
std::string hooked_forward_lines(const ModelProgram& p);
// After the forward: the baseline's top ids (`baseline_top`), the hooks removed.
std::string unhook_lines(const ModelProgram& p);

// ---------------------------------------------------------------------------------
// A Llama-family model's sections (pytorch_emit_llama.cpp)
// ---------------------------------------------------------------------------------

void emit_llama_header(std::ostream& py, const ModelProgram& p);
// scripts/llama_family.py's LlamaFamily, a safetensors reader that converts one tensor at a
// time, and the book's generate functions the program uses.
void emit_llama_classes(std::ostream& py, const ModelProgram& p);
// Defines `model`: LlamaFamily(CONFIG) with the folder's weights. Returns CONFIG's name.
std::string emit_llama_model(std::ostream& py, const ModelProgram& p);
void emit_llama_forward(std::ostream& py, const ModelProgram& p);

}  // namespace attn::pytorch_emit_parts

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
//   pytorch_emit.cpp                the header, the forward pass, the JSON, the main block
// Nothing here is meant for other callers.
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "output/pytorch_emit.h"

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
// Which of the book's classes a run uses (pytorch_emit_plan.cpp)
// ---------------------------------------------------------------------------------

enum class Module {
    Simplified,        // 000, 3.3: no class
    SelfAttentionV1,   // 000, 3.4.2
    SelfAttention004,  // 004: SelfAttention(d_in, d_out_kq, d_out_v)
    Wrapper004,        // 004: MultiHeadAttentionWrapper of SelfAttention
    SelfAttentionV2,   // 000, 3.4.2
    Causal,            // 000, 3.5.3
    MhaWrapper,        // 000, 3.6.1
    Mha,               // 000, 3.6.2
    Cross,             // 004: CrossAttention
    CrossWrapper       // 004's wrapper with CrossAttention heads
};

struct Plan {
    Module module;
    AttentionConfig cfg;
    std::string object;     // the module's Python variable
    std::string title;      // what the class is, for the header
    bool batched = false;   // forward takes (b, T, d_in); the others take one (T, d_in) text
};

Plan plan_for(const Settings& s);

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
    std::string queries, keys, values;
    std::string scores;   // raw q·k
    std::string masked;   // the scores with -inf where masked (before scaling)
    std::string scale;    // sqrt(d_k)
    std::string mask;
    std::string weights, dropout_mask, dropped, context;  // dropout_mask empty: no dropout
    std::string at;       // index of batch element 0 (and head h): "" or "[0]" or "[0, h]"
};

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

}  // namespace attn::pytorch_emit_parts

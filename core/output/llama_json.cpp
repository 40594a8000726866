#include "output/llama_json.h"

#include <string>

#include "base/decimal_text.h"
#include "output/json_writer.h"

namespace attn {

void write_llama_json(std::ostream& out, const LlamaRun& run) {
    JsonWriter w(out);
    const LlamaConfig& c = run.model->config();
    out << "{\"model\":{\"name\":";
    w.string(run.model->dir());
    out << ",\"model_type\":";
    w.string(c.model_type);
    out << ",\"n_layer\":" << c.layers << ",\"n_head\":" << c.heads << ",\"n_kv_head\":" << c.kv_heads
        << ",\"head_dim\":" << c.head_dim << ",\"n_embd\":" << c.hidden_size << ",\"vocab_size\":" << c.vocab_size
        << ",\"dtype\":";
    w.string(run.model->dtype());
    out << '}';
    Tokenized tokens;
    tokens.ids = run.trace.ids;
    for (const int64_t id : tokens.ids) tokens.tokens.push_back(llama_token_text(run, id));
    write_tokens(w, "tokens", "token_ids", tokens);
    out << ",\"layers\":[";
    for (size_t l = 0; l < run.trace.blocks.size(); ++l) {
        const Trace& attention = run.trace.blocks[l].attention;
        out << (l ? ",{" : "{") << "\"heads\":[";
        for (size_t h = 0; h < attention.heads.size(); ++h) {
            out << (h ? ",{" : "{") << "\"kv_head\":" << attention.head_groups[h] << ",\"weights\":";
            w.matrix(attention.heads[h].at("weights"), false);
            out << '}';
        }
        out << "]}";
    }
    out << "],\"next_token\":[";
    for (size_t i = 0; i < run.next_tokens.size(); ++i) {
        out << (i ? ",{" : "{") << "\"id\":" << run.next_tokens[i].id << ",\"token\":";
        w.string(llama_token_text(run, run.next_tokens[i].id));
        out << ",\"prob\":";
        w.number(run.next_tokens[i].prob);
        out << '}';
    }
    out << "],\"next_token_position\":" << run.next_position;
    if (!run.generated.empty()) {  // as a GPT-2 run's JSON writes them (model_json.cpp)
        const Sampling& how = run.sampling;
        out << ",\"sampling\":{\"method\":\"" << (how.sampled() ? "multinomial" : "argmax") << "\",\"temperature\":";
        out << shortest_decimal(how.temperature) << ",\"top_k\":";
        if (how.top_k) out << *how.top_k;
        else out << "null";
        out << ",\"seed\":" << how.seed << "},\"generated\":[";
        for (size_t i = 0; i < run.generated.size(); ++i) out << (i ? "," : "") << run.generated[i];
        out << "],\"generated_tokens\":[";
        for (size_t i = 0; i < run.generated.size(); ++i) {
            if (i) out << ',';
            w.string(llama_token_text(run, run.generated[i]));
        }
        out << ']';
    }
    out << "}\n";
}

}  // namespace attn

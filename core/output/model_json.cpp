#include "output/model_json.h"

#include <algorithm>
#include <charconv>

#include "attention/stage_catalogue.h"
#include "output/json_writer.h"
#include "base/decimal_text.h"

namespace attn {

void write_model_json(std::ostream& out, const ModelRun& run, const std::vector<std::string>& stages) {
    JsonWriter w(out);
    const auto matrix = [&](const char* key, const Matrix& m, bool vector = false) {
        out << ",\"" << key << "\":";
        w.matrix(m, vector);
    };
    const ModelShape shape = model_shape(run.model);
    out << "{\"model\":{\"name\":";
    w.string(run.model.name);
    out << ",\"file\":";
    w.string(run.model.file);
    out << ",\"n_layer\":" << shape.layers << ",\"n_head\":" << shape.heads << ",\"n_kv_head\":" << shape.kv_heads
        << ",\"head_dim\":" << shape.head_dim << ",\"n_embd\":" << shape.d_model << ",\"n_ctx\":" << shape.context_length
        << ",\"vocab_size\":" << shape.vocab_size << ",\"dtype\":";
    w.string(run.model.dtype);
    out << '}';
    write_tokens(w, "tokens", "token_ids", run.tokens);

    out << ",\"layers\":[";
    for (size_t l = 0; l < run.trace->blocks.size(); ++l) {
        out << (l ? ",{" : "{") << "\"heads\":[";
        const Trace& attention = run.trace->blocks[l].attention;
        for (size_t h = 0; h < attention.heads.size(); ++h) {
            // The key/value head it reads (grouped-query attention: a group's query heads share one).
            out << (h ? ",{" : "{") << "\"kv_head\":" << static_cast<int>(h) / (shape.heads / shape.kv_heads) << ',';
            const HeadScores& scores = run.head_scores[l][h];
            out << "\"scores\":{\"previous_token\":" << scores.previous_token
                << ",\"duplicate_token\":" << scores.duplicate_token << ",\"induction\":" << scores.induction
                << ",\"first_token\":" << scores.first_token << ",\"induction_stripe\":" << scores.induction_stripe
                << '}';
            if (stage_kept(stages, "weights")) {
                out << ",\"weights\":";
                w.matrix(attention.heads[h].at("weights"), false);
            }
            out << '}';
        }
        out << "]}";
    }
    out << ']';

    if (run.layer >= 0) {
        const BlockTrace& block = run.trace->blocks[static_cast<size_t>(run.layer)];
        out << ",\"detail\":{\"layer\":" << run.layer << ",\"head\":" << run.head;
        matrix("inputs", block.inputs);
        matrix("normed", block.normed1);
        for (const Stage& s : block.attention.heads[static_cast<size_t>(run.head)].stages)
            if (stage_kept(stages, s.name)) matrix(s.name.c_str(), s.value, s.rows == Axis::One);
        if (const Stage* W_out = block.attention.model.find("W_out")) matrix("W_out", W_out->value);  // a GPT's out_proj
        if (const Stage* b_out = block.attention.model.find("b_out")) matrix("b_out", b_out->value, true);
        matrix("attention_output", block.attention.output[0]);
        matrix("residual", block.residual1);
        out << '}';
    }

    const auto token_text = [&](int64_t id) { return model_token_text(run.model, id); };
    out << ",\"next_token\":[";
    for (size_t i = 0; i < run.next_tokens.size(); ++i) {
        out << (i ? ",{" : "{") << "\"id\":" << run.next_tokens[i].id << ",\"token\":";
        w.string(token_text(run.next_tokens[i].id));
        out << ",\"prob\":";
        w.number(run.next_tokens[i].prob);
        if (run.next_tokens[i].drawn >= 0.0f) {  // sampling: the chance generate draws it
            out << ",\"sampled_prob\":";
            w.number(run.next_tokens[i].drawn);
        }
        out << '}';
    }
    out << "],\"next_token_position\":" << run.next_position;
    if (!run.generated.empty()) {
        // How the ids came: torch.manual_seed(seed), then generate(..., temperature, top_k).
        const Sampling& how = run.sampler.how();
        out << ",\"sampling\":{\"method\":\"" << (how.sampled() ? "multinomial" : "argmax") << "\",\"temperature\":";
        out << shortest_decimal(how.temperature);
        out << ",\"top_k\":";
        if (how.top_k) out << *how.top_k;
        else out << "null";
        out << ",\"seed\":" << how.seed << '}';
        out << ",\"generated\":[";
        for (size_t i = 0; i < run.generated.size(); ++i) out << (i ? "," : "") << run.generated[i];
        out << "],\"generated_tokens\":[";
        for (size_t i = 0; i < run.generated.size(); ++i) {
            if (i) out << ',';
            w.string(token_text(run.generated[i]));
        }
        out << ']';
    }
    out << "}\n";
}

}  // namespace attn

#include "output/intervention_json.h"

#include <string>

#include "base/decimal_text.h"
#include "output/json_writer.h"
#include "run/model_run.h"

namespace attn {

namespace {

void write_probabilities(JsonWriter& w, const LoadedModel& model, const std::vector<TokenProbability>& tokens) {
    std::ostream& out = w.raw();
    out << '[';
    for (size_t i = 0; i < tokens.size(); ++i) {
        out << (i ? ",{" : "{") << "\"id\":" << tokens[i].id << ",\"token\":";
        w.string(model_token_text(model, tokens[i].id));
        out << ",\"prob\":";
        w.number(tokens[i].prob);
        out << '}';
    }
    out << ']';
}

void write_heads(std::ostream& out, const std::vector<HeadSite>& heads) {
    out << '[';
    for (size_t i = 0; i < heads.size(); ++i) out << (i ? ",\"" : "\"") << layer_head(heads[i]) << '"';
    out << ']';
}

const char* change_name(Intervention::Kind kind) {
    switch (kind) {
    case Intervention::Kind::Mean: return "mean";
    case Intervention::Kind::Patch: return "patch";
    default: return "zero";
    }
}

void write_intervention(JsonWriter& w, const InterventionRun& run) {
    std::ostream& out = w.raw();
    const Intervention& how = run.intervention;
    const bool patch = how.kind == Intervention::Kind::Patch;
    out << ",\"intervention\":{\"kind\":\"" << (patch ? "patch" : "ablate") << '"';
    if (!patch) out << ",\"mode\":\"" << change_name(how.kind) << '"';
    out << ",\"heads\":";
    write_heads(out, how.heads);
    out << ",\"positions\":";
    if (how.positions.empty()) out << "\"all\"";
    else {
        out << '[';
        for (size_t i = 0; i < how.positions.size(); ++i) out << (i ? "," : "") << how.positions[i];
        out << ']';
    }
    if (patch) write_tokens(w, "patch_tokens", "patch_token_ids", *run.patch_tokens);
    out << '}';
}

void write_lens(JsonWriter& w, const LoadedModel& model, const LogitLens& lens) {
    std::ostream& out = w.raw();
    out << ",\"logit_lens\":[";
    for (size_t e = 0; e < lens.size(); ++e) {
        out << (e ? ",[" : "[");
        for (size_t t = 0; t < lens[e].size(); ++t) {
            if (t) out << ',';
            write_probabilities(w, model, lens[e][t]);
        }
        out << ']';
    }
    out << ']';
}

void write_attribution(JsonWriter& w, const Attribution& a) {
    std::ostream& out = w.raw();
    out << ",\"attribution\":{\"position\":" << a.position << ",\"id\":" << a.id << ",\"minus_id\":";
    if (a.minus_id) out << *a.minus_id;
    else out << "null";
    out << ",\"logit\":" << shortest_decimal(a.logit) << ",\"components\":[";
    for (size_t i = 0; i < a.components.size(); ++i) {
        out << (i ? ",{" : "{") << "\"name\":";
        w.string(a.components[i].name);
        out << ",\"value\":" << shortest_decimal(a.components[i].value) << '}';
    }
    out << "]}";
}

void write_effects(std::ostream& out, const InterventionRun& run) {
    const EffectMetric& m = *run.metric;
    out << ",\"head_effects\":[";
    for (size_t l = 0; l < run.head_effects.size(); ++l) {
        out << (l ? ",[" : "[");
        for (size_t h = 0; h < run.head_effects[l].size(); ++h) out << (h ? "," : "") << shortest_decimal(run.head_effects[l][h]);
        out << ']';
    }
    const bool prob = m.kind == EffectMetric::Kind::Prob;
    out << "],\"head_effects_metric\":{\"kind\":\"" << (prob ? "prob" : "logit-diff") << "\",\"ids\":[" << m.id;
    if (!prob) out << ',' << m.minus_id;
    out << "],\"position\":" << m.position << ",\"baseline\":" << shortest_decimal(run.metric_baseline)
        << ",\"change\":\"" << change_name(run.intervention.kind) << "\"}";
}

}  // namespace

void write_intervention_json(std::ostream& out, const InterventionRun& run) {
    JsonWriter w(out);
    const ModelShape shape = model_shape(run.model);
    out << "{\"model\":{\"name\":";
    w.string(run.model.name);
    out << ",\"dtype\":";
    w.string(run.model.dtype);
    out << ",\"n_layer\":" << shape.layers << ",\"n_head\":" << shape.heads << ",\"n_kv_head\":" << shape.kv_heads
        << ",\"head_dim\":" << shape.head_dim << ",\"n_embd\":" << shape.d_model << ",\"n_ctx\":" << shape.context_length
        << ",\"vocab_size\":" << shape.vocab_size << '}';
    write_tokens(w, "tokens", "token_ids", run.tokens);
    out << ",\"layers\":[";
    const int group = shape.heads / shape.kv_heads;
    for (size_t l = 0; l < run.changed->blocks.size(); ++l) {
        const Trace& attention = run.changed->blocks[l].attention;
        out << (l ? ",{" : "{") << "\"heads\":[";
        for (size_t h = 0; h < attention.heads.size(); ++h) {
            out << (h ? ",{" : "{") << "\"kv_head\":" << static_cast<int>(h) / group << ",\"weights\":";
            w.matrix(attention.heads[h].at("weights"), false);
            out << '}';
        }
        out << "]}";
    }
    out << "],\"next_token\":";
    write_probabilities(w, run.model, run.next_tokens);
    out << ",\"next_token_position\":" << run.next_position;
    if (run.intervention.kind != Intervention::Kind::None && !run.intervention.heads.empty()) {
        out << ",\"baseline_next_token\":";
        write_probabilities(w, run.model, run.baseline_next_tokens);
        write_intervention(w, run);
    }
    if (run.lens) write_lens(w, run.model, *run.lens);
    if (run.attribution) write_attribution(w, *run.attribution);
    if (run.metric) write_effects(out, run);
    out << "}\n";
}

}  // namespace attn

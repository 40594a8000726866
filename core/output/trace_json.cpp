#include "output/trace_json.h"

#include <algorithm>

#include "attention/stage_catalogue.h"
#include "output/json_writer.h"

namespace attn {

void write_run_json(std::ostream& out, const Run& run, const std::vector<std::string>& keep,
                    const std::optional<Timing>& timing) {
    JsonWriter w(out);
    const auto stage = [&](const Stage& s, bool first) {
        if (!stage_kept(keep, s.name)) return first;
        if (!first) out << ',';
        out << '"' << s.name << "\":";
        w.matrix(s.value, s.rows == Axis::One);
        return false;
    };

    out << "{\"variant\":";
    w.string(run.trace.variant);
    write_tokens(w, "tokens", "token_ids", run.tokens);
    if (run.tokens2) write_tokens(w, "tokens2", "token_ids2", *run.tokens2);
    out << ",\"embedding\":";
    w.string(run.embedding);
    for (const Stage& s : run.trace.model.stages) stage(s, false);

    out << ",\"heads\":[";
    for (size_t h = 0; h < run.trace.heads.size(); ++h) {
        if (h) out << ',';
        out << '{';
        bool first = true;
        if (!run.trace.head_groups.empty()) {  // gqa: the key/value group the head reads
            out << "\"kv_group\":" << run.trace.head_groups[h];
            first = false;
        }
        for (const Stage& s : run.trace.heads[h].stages) first = stage(s, first);
        // The module's out_proj, which every head's context passes through.
        for (const char* name : {"W_out", "b_out"})
            if (const Stage* s = run.trace.model.find(name)) first = stage(*s, first);
        out << '}';
    }
    out << ']';
    if (const auto& cache = run.trace.kv_cache) {
        out << ",\"kv_cache\":{\"bytes_per_token\":" << cache->bytes_per_token << ",\"tokens\":" << cache->tokens
            << ",\"mha_bytes_per_token\":" << cache->mha_bytes_per_token << '}';
    }

    if (stage_kept(keep, "output")) {
        out << ",\"output\":[";
        for (size_t b = 0; b < run.trace.output.size(); ++b) {
            if (b) out << ',';
            w.matrix(run.trace.output[b], false);
        }
        out << ']';
    }
    if (timing) out << ",\"timing_us\":{\"median\":" << timing->median_us << ",\"runs\":" << timing->runs << '}';
    out << "}\n";
}

}  // namespace attn

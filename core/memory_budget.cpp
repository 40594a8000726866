#include "memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pipeline.h"

namespace attn {

namespace {

// Rates measured on the project's 2-core machine (release build, both cores), taken
// low so that an admitted run finishes well inside the budget's time.
constexpr double kFlopsPerSecond = 10e9;       // matrix products (Eigen sgemm)
constexpr double kElementsPerSecond = 0.6e9;   // softmax, masks, copies: per element touched
constexpr double kDrawsPerSecond = 200e6;      // generator draws, in bulk (uniform and normal)
constexpr double kBytesPerFloat = 4.0;
constexpr double kOverhead = 1.15;             // allocator slack, small vectors, labels
constexpr double kBaseBytes = 32.0 * 1024 * 1024;  // the program, the GPT-2 vocabulary

// One cost term and the settings that grow it, for the refusal's advice.
struct Term {
    double amount;
    std::string lower;
};

std::string dominant(std::vector<Term> terms) {
    std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.amount > b.amount; });
    return terms.empty() ? std::string() : terms[0].lower;
}

std::string joined_or(const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i)
        out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
    return out;
}

}  // namespace

WorkEstimate estimate_work(const Settings& s, int64_t tokens, int64_t tokens2) {
    const AttentionConfig cfg = attention_config(s);
    const Variant v = cfg.variant;
    const double T = static_cast<double>(tokens);
    const double S = v == Variant::Cross ? static_cast<double>(tokens2 > 0 ? tokens2 : cfg.kv_len) : T;
    const double d = s.d_in, B = cfg.batch;
    const bool simplified = v == Variant::Simplified;
    const double H = simplified ? 1.0 : cfg.heads;
    // Widths of a head's queries/keys (hd) and values (hv).
    double hd = cfg.d_out, hv = cfg.d_out;
    if (simplified) hd = hv = d;
    if (v == Variant::SelfV1 || v == Variant::Cross) hv = cfg.d_out_v;
    if (v == Variant::Mha) hd = hv = std::max(1, cfg.d_out / std::max(1, cfg.heads));
    const bool dropout_stages = variant_has_dropout(v);
    const bool draws_dropout = dropout_stages && cfg.training && cfg.dropout > 0.0 && cfg.dropout < 1.0;

    // Memory, in floats. Per head: the T x S matrices the trace keeps (scores, scaled,
    // mask, masked, weights; dropout mask and dropped weights), its projections and
    // their products; the dropout factors of batch elements after the first, all drawn
    // before the context products; the model's inputs, tables and outputs.
    const double squares = T * S * H * (simplified ? 2.0 : 5.0 + (dropout_stages ? 2.0 : 0.0));
    const double factors = dropout_stages ? (B - 1.0) * H * T * S + 2.0 * T * S : 0.0;
    const double heads = H * (simplified ? 0.0 : d * (2.0 * hd + hv) * 2.0 + T * hd + S * (hd + hv) + T * hv);
    const double context_length = s.pos ? static_cast<double>(s.context_length.value_or(tokens)) : 0.0;
    const double tables = 3.0 * (T + S) * d + context_length * d;
    const double outputs = B * T * H * hv + T * H * hv + (v == Variant::Mha ? 2.0 * cfg.d_out * cfg.d_out + 3.0 * T * cfg.d_out : 0.0);
    WorkEstimate w;
    w.bytes = kBaseBytes + kOverhead * kBytesPerFloat * (squares + factors + heads + tables + outputs);

    // Time: matrix products, element-wise passes over the T x S matrices, draws.
    const double flops = 2.0 * H * d * (T * hd + S * (hd + hv)) * (simplified ? 0.0 : 1.0) +
                         2.0 * H * T * S * (hd + B * hv) + (v == Variant::Mha ? 2.0 * B * T * cfg.d_out * cfg.d_out : 0.0);
    const double elements = H * T * S * (20.0 + 5.0 * B);
    const bool random_table = s.embedding == "random" || s.tokenizer != "words" || s.d_in != 3 || s.vocab_size;
    const double vocab = static_cast<double>(s.vocab_size.value_or(s.tokenizer == "gpt2" ? 50257 : 50000));
    const double draws = (draws_dropout ? B * H * T * S : 0.0) + H * d * (2.0 * hd + hv) +
                         (random_table ? vocab * d : 0.0) + context_length * d;
    w.seconds = flops / kFlopsPerSecond + elements / kElementsPerSecond + draws / kDrawsPerSecond;
    w.seconds *= 1.0 + s.time_runs;  // --time N: N more forwards (the tables are drawn once, counted again: safe)

    // What to lower: the settings of the largest memory term.
    char t[64], h[32], b[32];
    std::snprintf(t, sizeof t, "the text length (%lld tokens)", static_cast<long long>(tokens));
    std::snprintf(h, sizeof h, "heads (%d)", cfg.heads);
    std::snprintf(b, sizeof b, "batch (%d)", cfg.batch);
    std::vector<std::string> square_knobs{t};
    if (H > 1) square_knobs.push_back(h);
    std::vector<std::string> factor_knobs = square_knobs;
    factor_knobs.push_back(b);
    w.lower = dominant({{squares, joined_or(square_knobs)},
                        {factors, joined_or(factor_knobs)},
                        {heads, joined_or({"d_in (" + std::to_string(s.d_in) + ")", "d_out (" + std::to_string(cfg.d_out) + ")",
                                           std::string(h)})},
                        {tables, "context_length (" + std::to_string(static_cast<long long>(context_length)) +
                                     ") or d_in (" + std::to_string(s.d_in) + ")"},
                        {outputs, joined_or({std::string(b), "d_out (" + std::to_string(cfg.d_out) + ")"})}});
    w.lower_time = s.time_runs > 0 ? "--time (" + std::to_string(s.time_runs) + ") or " + w.lower : w.lower;
    return w;
}

std::string size_text(double bytes) {  // in the units parse_size reads: 1 MB = 2^20 bytes
    constexpr double kB = 1024.0, MB = kB * 1024, GB = MB * 1024;
    char out[32];
    if (bytes >= GB) std::snprintf(out, sizeof out, "%.1f GB", bytes / GB);
    else if (bytes >= MB) std::snprintf(out, sizeof out, "%.0f MB", bytes / MB);
    else std::snprintf(out, sizeof out, "%.0f kB", bytes / kB);
    return out;
}

uint64_t parse_size(const std::string& flag, const std::string& text) {
    const auto bad = [&] { return ArgsError(flag + " needs a size such as 512M, 2G or a number of bytes, got '" + text + "'"); };
    size_t digits = 0;
    while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) ++digits;
    if (digits == 0 || text[0] == '.') throw bad();
    const std::string number = text.substr(0, digits), unit = text.substr(digits);
    if (std::count(number.begin(), number.end(), '.') > 1 || number.back() == '.') throw bad();
    double scale = 1.0;
    if (unit == "K" || unit == "k") scale = 1024.0;
    else if (unit == "M" || unit == "m") scale = 1024.0 * 1024;
    else if (unit == "G" || unit == "g") scale = 1024.0 * 1024 * 1024;
    else if (unit == "T" || unit == "t") scale = 1024.0 * 1024 * 1024 * 1024;
    else if (!unit.empty()) throw bad();
    const double bytes = std::strtod(number.c_str(), nullptr) * scale;
    if (!(bytes >= 1.0) || bytes > 1e18) throw bad();
    return static_cast<uint64_t>(bytes);
}

Budget default_budget() {
    Budget b;
    if (const char* env = std::getenv("ATTNSCOPE_MEMORY_BUDGET"); env && *env) {
        try {
            b.bytes = static_cast<double>(parse_size("ATTNSCOPE_MEMORY_BUDGET", env));
            return b;
        } catch (const ArgsError&) {
            // A malformed variable falls back to the default rather than refusing everything.
        }
    }
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const double physical = pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 4e9;
    b.bytes = physical / 3.0;
    return b;
}

Budget budget_for(const Settings& s) {
    Budget b = default_budget();
    if (s.memory_budget) b.bytes = static_cast<double>(*s.memory_budget);
    return b;
}

void check_budget(const WorkEstimate& w, const Budget& b) {
    if (w.bytes > b.bytes)
        throw InputError("this needs about " + size_text(w.bytes) + " of memory (budget " + size_text(b.bytes) +
                         "): lower " + w.lower);
    if (w.seconds > b.seconds) {
        char text[48];
        std::snprintf(text, sizeof text, "about %.0f s", w.seconds);
        throw InputError("this would take " + std::string(text) + " (at most " +
                         std::to_string(static_cast<int>(b.seconds)) + " s): lower " + w.lower_time);
    }
}

}  // namespace attn

#include "run/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>


#include "run/pipeline.h"
#include "text/tokenizer_table.h"
#include "numerics/block_means.h"
#include "numerics/gemm.h"

namespace attn {

namespace {

// Rates measured on the project's 2-core machine (release build), taken low so that an
// admitted run finishes well inside the budget's time even when the machine is shared.
constexpr double kElementsPerSecond = 0.6e9;   // softmax, masks, copies: per element touched, both cores
constexpr double kKeptPerSecond = 0.2e9;       // a kept T x S element: fresh pages cleared, written (measured 0.25e9)
constexpr double kDrawsPerSecond = 200e6;      // generator draws, in bulk (uniform and normal)
constexpr double kJsonNumbersPerSecond = 6e6;  // the CLI's JSON (measured 9.3M/s)
constexpr double kExportNumbersPerSecond = 3.5e6;  // --export: .npy, .csv and trace.json (measured 5.5M/s)
constexpr double kTimeMargin = 1.25;           // a busy neighbour on the machine
constexpr double kBytesPerFloat = 4.0;
constexpr double kOverhead = 1.15;             // allocator slack, small vectors, labels
constexpr double kBaseBytes = 32.0 * 1024 * 1024;  // the program, the GPT-2 vocabulary

// The sizes a run allocates with, as the forwards (attention/variants/) and
// embedding.cpp use them.
struct Shapes {
    Variant v{};
    double T = 0, S = 0, d = 0, B = 1, H = 1;  // tokens, key tokens, d_in, batch, heads
    double hd = 0, hv = 0, d_out = 0;          // a head's query/key and value widths
    double context_length = 0;                 // rows of the positional table (0: none)
    bool simplified = false, mha = false;      // mha: any weight-split module (out_proj; gqa and mla
                                               // project less than this counts, never more)
    double window = 0;                         // swa: the keys a query sees (0: no window)
    bool dropout_stages = false;               // the trace keeps dropout_mask and dropped_weights
    bool draws_dropout = false;                // the forward draws a Bernoulli per weight
    bool causal = false;                       // row i sees keys 0..i only
    bool bias = false;                         // alibi: the position_bias stage, and a biased copy
};

Shapes shapes_of(const Settings& s, int64_t tokens, int64_t tokens2) {
    const AttentionConfig cfg = attention_config(s);
    Shapes x;
    x.v = cfg.variant;
    x.simplified = !variant_info(x.v).projections;
    x.mha = splits_heads(x.v);
    x.bias = variant_info(x.v).alibi;
    x.T = static_cast<double>(tokens);
    x.S = variant_info(x.v).second_text ? static_cast<double>(tokens2 > 0 ? tokens2 : cfg.kv_len) : x.T;
    x.d = s.d_in;
    x.B = cfg.batch;
    x.H = x.simplified ? 1.0 : cfg.heads;
    x.d_out = cfg.d_out;
    x.hd = x.hv = cfg.d_out;
    if (x.simplified) x.hd = x.hv = x.d;
    if (variant_info(x.v).d_out_v) x.hv = cfg.d_out_v;
    if (x.mha) x.hd = x.hv = std::max(1, cfg.d_out / std::max(1, cfg.heads));
    x.dropout_stages = variant_has_dropout(x.v);
    x.draws_dropout = x.dropout_stages && cfg.training && cfg.dropout > 0.0 && cfg.dropout < 1.0;
    x.causal = is_causal(cfg);
    if (variant_info(x.v).window) x.window = std::min<double>(cfg.window, x.T);
    x.context_length = s.pos ? static_cast<double>(s.context_length.value_or(tokens)) : 0.0;
    return x;
}

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

// The T x S stages the heads keep, counted in matrices (one head's scores is one).
double kept_squares(const Shapes& x, const KeptStages& keep) {
    if (x.simplified) return 2.0;  // scores and weights
    std::vector<const char*> names{"scores", "scaled_scores", "mask", "masked_scores", "weights"};
    if (x.dropout_stages) names.insert(names.end(), {"dropout_mask", "dropped_weights"});
    if (x.bias) names.push_back("position_bias");
    double n = 0.0;
    for (const char* name : names)
        for (int h = 0; h < static_cast<int>(x.H); ++h) n += keep.keeps(h, name) ? 1.0 : 0.0;
    return n;
}

// The block means kept of the weights of heads that keep none (KeptStages::preview_side),
// in floats.
double preview_floats(const Shapes& x, const KeptStages& keep) {
    if (x.simplified || keep.preview_side <= 0) return 0.0;
    const double f = block_factor(static_cast<long>(x.T), static_cast<long>(x.S), keep.preview_side);
    double heads = 0.0;
    for (int h = 0; h < static_cast<int>(x.H); ++h) heads += keep.keeps(h, "weights") ? 0.0 : 1.0;
    return heads * std::ceil(x.T / f) * std::ceil(x.S / f);
}

// The T x S matrices a head allocates and does not keep, as head_forward.cpp does: the
// four pre-softmax ones together when it keeps any, its weights whole when it keeps its
// dropped weights only, the dropout factors when it keeps the dropped weights but not
// them. The most any head of the run needs (threads work on heads side by side).
double unkept_squares(const Shapes& x, const KeptStages& keep) {
    if (x.simplified) return 0.0;
    double most = 0.0;
    for (int h = 0; h < static_cast<int>(x.H); ++h) {
        const auto keeps = [&](const char* name) { return keep.keeps(h, name) ? 1.0 : 0.0; };
        // With a bias: the bias and the biased scores too (record_scores).
        const double pre = keeps("scores") + keeps("scaled_scores") + keeps("mask") + keeps("masked_scores") +
                           (x.bias ? keeps("position_bias") : 0.0);
        const double dropped = x.dropout_stages ? keeps("dropped_weights") : 0.0;
        double n = pre > 0.0 ? (x.bias ? 6.0 : 4.0) - pre : 0.0;
        if (dropped > 0.0 && keeps("weights") == 0.0) n += 1.0;
        if (dropped > 0.0 && x.draws_dropout && keeps("dropout_mask") == 0.0) n += 1.0;
        most = std::max(most, n);
    }
    return most;
}

// Peak memory in floats, as terms with the settings that grow each. The T x S matrices
// each head keeps (scores, scaled, mask, masked, weights; dropout mask and dropped
// weights) or its weights' block means, and while a thread works on a head its
// temporaries: the T x S matrices it does not keep (unkept_squares), blocks of 128 rows.
// The dropout draws of every batch element and head, one bit each. Then each head's
// projections and their products, the model's inputs and tables, the outputs.
std::vector<Term> memory_terms(const Shapes& x, const Settings& s, int64_t tokens, const KeptStages& keep) {
    const double TS = x.T * x.S, threads = std::min<double>(engine_threads(), x.H);
    const double squares = kept_squares(x, keep) * TS + preview_floats(x, keep);
    const double temporaries = x.simplified ? 0.0 : threads * (unkept_squares(x, keep) * TS + 2.0 * 128.0 * x.S);
    const double draws = x.draws_dropout ? x.B * x.H * TS / 32.0 : 0.0;
    const double heads = x.simplified ? 0.0 : x.H * (x.d * (2.0 * x.hd + x.hv) * 2.0 + x.T * x.hd + x.S * (x.hd + x.hv) + x.T * x.hv);
    const double tables = 3.0 * (x.T + x.S) * x.d + x.context_length * x.d;
    const double outputs = x.B * x.T * x.H * x.hv + x.T * x.H * x.hv + (x.mha ? 2.0 * x.d_out * x.d_out + 3.0 * x.T * x.d_out : 0.0);

    char t[64], h[32], b[32];
    std::snprintf(t, sizeof t, "the text length (%lld tokens)", static_cast<long long>(tokens));
    std::snprintf(h, sizeof h, "heads (%d)", static_cast<int>(x.H));
    std::snprintf(b, sizeof b, "batch (%d)", static_cast<int>(x.B));
    const std::string d_in = "d_in (" + std::to_string(s.d_in) + ")";
    const std::string d_out = "d_out (" + std::to_string(static_cast<int>(x.d_out)) + ")";
    std::vector<std::string> square_knobs{t};
    if (x.H > 1) square_knobs.push_back(h);
    std::vector<std::string> factor_knobs = square_knobs;
    if (x.B > 1) factor_knobs.push_back(b);
    return {{squares + temporaries, joined_or(square_knobs)},
            {draws, joined_or(factor_knobs)},
            {heads, joined_or({d_in, d_out, std::string(h)})},
            // Without --pos there is no positional table to shorten.
            {tables, x.context_length > 0 ? "context_length (" + std::to_string(static_cast<long long>(x.context_length)) + ") or " + d_in : d_in},
            {outputs, joined_or({std::string(b), d_out})}};
}

// Seconds of one forward with the module and tables built: matrix products (under a
// causal mask only the keys each query sees), passes over the T x S elements a head
// computes (scale, mask, softmax, dropout), the T x S stages it keeps, generator draws.
// Measured at 8192 tokens, mha 12 x 64, 2 threads (AVX-512 EPYC): 2.6 s keeping only the
// output, 10.4 s keeping every head's weights and one head's every stage, more than half
// of it the kernel clearing the 5 GB of fresh pages those hold.
double compute_seconds(const Shapes& x, const Settings& s, const KeptStages& keep) {
    const double TS = x.T * x.S;
    // The elements of a T x S matrix a head computes: a sliding window's rows see at most W
    // keys, though its blocks of 128 rows multiply up to 127 more.
    const double seen = x.simplified ? TS : x.window > 0 ? std::min(TS, x.T * (x.window + 128.0)) : (x.causal ? 0.5 : 1.0) * TS;
    const double flops = (x.simplified ? 0.0 : 2.0 * x.H * x.d * (x.T * x.hd + x.S * (x.hd + x.hv))) +
                         2.0 * x.H * seen * x.hd +                                   // scores
                         (x.simplified ? 2.0 * TS * x.hv : 2.0 * x.H * seen * x.hv * x.B) +  // context per batch element
                         (x.mha ? 2.0 * x.B * x.T * x.d_out * x.d_out : 0.0);        // out_proj
    const double passes = 5.0 + (x.draws_dropout ? 2.0 * x.B : 0.0);
    const double kept = kept_squares(x, keep) * TS;
    const double elements = x.H * seen * passes + x.B * x.T * x.H * x.hv;
    // An unknown tokenizer is refused when the texts are tokenized: estimated as the largest.
    const TokenizerRow* tokenizer = find_tokenizer(s.tokenizer);
    const bool random_table =
        s.embedding == "random" || !tokenizer || !tokenizer->book_vectors || s.d_in != 3 || s.vocab_size;
    int64_t tokenizer_vocab = 0;
    for (const TokenizerRow& row : tokenizer_rows())
        if (!tokenizer || tokenizer == &row) tokenizer_vocab = std::max(tokenizer_vocab, row.vocab_size);
    const double vocab = static_cast<double>(s.vocab_size.value_or(tokenizer_vocab));
    const double params = x.simplified ? 0.0 : x.H * x.d * (2.0 * x.hd + x.hv) + (x.mha ? x.d_out * x.d_out : 0.0);
    const double draws = (x.draws_dropout ? 2.0 * x.B * x.H * TS : 0.0) + params + (random_table ? vocab * x.d : 0.0) +
                         x.context_length * x.d;
    return kTimeMargin * (flops / kEstimatedFlopsPerSecond + elements / kElementsPerSecond + kept / kKeptPerSecond +
                          draws / kDrawsPerSecond);
}

// Numbers each stage holds, as the CLI writes them: the JSON, or with --export the
// .npy, .csv and trace.json of each.
std::vector<std::pair<std::string, double>> stage_numbers(const Shapes& x, const Settings& s) {
    std::vector<std::pair<std::string, double>> out;
    const auto add = [&](const char* name, double count) { out.emplace_back(name, count); };
    const double TS = x.T * x.S, H = x.H;
    add("token_embeddings", x.T * x.d);
    if (s.pos) add("pos_embeddings", x.T * x.d);
    add("inputs", x.T * x.d);
    if (variant_info(x.v).second_text) add("inputs2", x.S * x.d);
    for (const char* name : {"scores", "weights"}) add(name, H * TS);
    if (!x.simplified) {
        for (const char* name : {"scaled_scores", "mask", "masked_scores"}) add(name, H * TS);
        if (x.bias) add("position_bias", H * TS);
        add("W_query", H * x.d * x.hd);
        add("W_key", H * x.d * x.hd);
        add("W_value", H * x.d * x.hv);
        add("queries", H * x.T * x.hd);
        add("keys", H * x.S * x.hd);
        add("values", H * x.S * x.hv);
    }
    if (x.dropout_stages) for (const char* name : {"dropout_mask", "dropped_weights"}) add(name, H * TS);
    add("context", H * x.T * x.hv);
    if (x.mha) add("W_out", (H + 1.0) * x.d_out * x.d_out);  // the model's, and repeated in every head
    add("concat", x.T * H * x.hv);
    add("output", x.B * x.T * (x.mha ? x.d_out : H * x.hv));
    return out;
}

}  // namespace

WorkEstimate estimate_work(const Settings& s, int64_t tokens, int64_t tokens2, const KeptStages& keep) {
    const Shapes x = shapes_of(s, tokens, tokens2);
    const std::vector<Term> terms = memory_terms(x, s, tokens, keep);
    double floats = 0.0;
    for (const Term& t : terms) floats += t.amount;
    WorkEstimate w;
    w.bytes = kBaseBytes + kOverhead * kBytesPerFloat * floats;
    w.lower = dominant(terms);
    w.seconds = compute_seconds(x, s, keep);
    w.forward_seconds = w.seconds;  // the tables are drawn once, counted again for --time: safe
    w.stage_numbers = stage_numbers(x, s);
    return w;
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
    const int repeats = b.output ? b.output->time_runs : 0;
    const double output = b.output ? output_seconds(w, *b.output) : 0.0;
    const double compute = w.seconds + repeats * w.forward_seconds;
    if (compute + output > b.seconds) {
        char text[48];
        std::snprintf(text, sizeof text, "about %.0f s", compute + output);
        // Writing the stages can outweigh computing them: then fewer stages is the advice.
        const std::string lower_time = repeats > 0 ? "--time (" + std::to_string(repeats) + ") or " + w.lower : w.lower;
        const std::string advice = output > compute ? "print fewer stages (--stages output), or lower " + w.lower
                                                    : "lower " + lower_time;
        throw InputError("this would take " + std::string(text) + " (at most " +
                         std::to_string(static_cast<int>(b.seconds)) + " s): " + advice);
    }
}

double output_seconds(const WorkEstimate& w, const OutputRequest& out) {
    if (out.emit_pytorch) return 0.0;
    double numbers = 0.0;
    for (const auto& [name, count] : w.stage_numbers)
        if (out.stages.empty() || std::find(out.stages.begin(), out.stages.end(), name) != out.stages.end())
            numbers += count;
    return numbers / (out.export_files ? kExportNumbersPerSecond : kJsonNumbersPerSecond);
}

}  // namespace attn

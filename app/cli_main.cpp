// attnscope-cli: prints every stage of an attention forward pass as one JSON object
// (or, with --emit-pytorch, a PyTorch program printing it; with --export DIR, writes
// every stage as files). Bad input exits 2 with one line on stderr.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "export.h"
#include "memory.h"
#include "pipeline.h"
#include "pytorch_emit.h"
#include "trace_json.h"
#include "version.h"

namespace {

// Median wall time of the forward pass with every stage recorded, the module
// already built (as PyTorch's forward is timed); the embedding table and printing
// are not timed.
attn::Timing time_forward(const attn::Run& run, const attn::Settings& s) {
    const attn::Matrix& x = run.trace.model.at("inputs");
    const attn::Matrix* x2 = run.tokens2 ? &run.trace.model.at("inputs2") : nullptr;
    const attn::AttentionModule module = attn::build_attention(static_cast<int>(x.cols()), attn::attention_config(s));
    std::vector<double> us;
    for (int i = 0; i < s.time_runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        const attn::Trace t = attn::forward(module, x, x2);
        us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
    std::nth_element(us.begin(), us.begin() + static_cast<long>(us.size() / 2), us.end());
    return {us[us.size() / 2], s.time_runs};
}

}  // namespace

int main(int argc, char** argv) {
    attn::keep_freed_memory_mapped();
    try {
        if (argc == 2 && std::string(argv[1]) == "--version") {
            std::cout << attn::version_text("attnscope-cli");
            return 0;
        }
        const attn::ParsedArgs parsed = attn::parse_settings(std::vector<std::string>(argv + 1, argv + argc));
        if (parsed.help) {
            std::cout << attn::settings_usage();
            return 0;
        }
        if (!parsed.rest.empty()) throw attn::ArgsError("unknown argument '" + parsed.rest.front() + "' (see --help)");
        const attn::Settings& s = parsed.settings;
        for (const std::string& name : s.stages)
            if (std::find(attn::stage_names().begin(), attn::stage_names().end(), name) == attn::stage_names().end())
                throw attn::ArgsError("unknown stage '" + name + "' in --stages");
        if (s.emit_pytorch && s.export_dir) throw attn::ArgsError("--emit-pytorch and --export cannot be combined");
        // The app keeps a dropout rate across variants; asked of the CLI, it would silently do nothing.
        if (parsed.dropout_given && s.attention.dropout > 0.0 && !attn::variant_has_dropout(s.attention.variant))
            throw attn::ArgsError(attn::variant_name(s.attention.variant) +
                                  " has no dropout (--dropout applies to causal, mha-wrapper and mha)");
        // The budget counts the time to write the chosen stages: every stage of a long
        // text is gigabytes of JSON, minutes after the forward pass is done.
        attn::Budget budget = attn::budget_for(s);
        budget.counts_output = true;
        const attn::Run run = attn::compute(s, budget);
        if (s.emit_pytorch) {
            std::cout << attn::emit_pytorch(s, run);
            return std::cout.good() ? 0 : 1;
        }
        if (s.export_dir) {
            attn::export_run(*s.export_dir, run, s.stages);
            return 0;
        }
        std::optional<attn::Timing> timing;
        if (s.time_runs > 0) timing = time_forward(run, s);
        attn::write_run_json(std::cout, run, s.stages, timing);
        return std::cout.good() ? 0 : 1;
    } catch (const std::bad_alloc&) {
        // The budget refuses what cannot fit; this is a machine with less free memory than it assumed.
        std::cerr << "attnscope-cli: out of memory: lower the text length, heads, batch, d_in or d_out\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "attnscope-cli: " << e.what() << '\n';
        return 2;
    }
}

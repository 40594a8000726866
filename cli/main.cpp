// attnscope-cli: prints every stage of an attention forward pass as one JSON object
// (or, with --emit-pytorch, a PyTorch program printing it; with --export DIR, writes
// every stage as files); with --model, a model's run, whichever its family
// (output/model_json.h), its files (output/model_files.h), or its PyTorch program
// (output/pytorch_emit_model.h).
// Bad input exits 2 with one line on stderr.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "cli_options.h"
#ifdef ATTNSCOPE_HUB
#include "hub_download.h"
#endif
#include "output/stage_files.h"
#include "numerics/memory.h"
#include "run/pipeline.h"
#include "output/pytorch_emit.h"
#include "output/pytorch_emit_model.h"
#include "output/trace_json.h"
#include "output/model_json.h"
#include "output/model_files.h"
#include "run/run_session.h"
#include "output/intervention_json.h"
#include "output/check_report.h"
#include "output/python_scripts.h"
#include "check/attention_check.h"
#include "base/version.h"
#include "numerics/blas_kernels.h"
#include "numerics/machine.h"
#include "base/file_io.h"
#include "text/hf_tokenizer.h"

#include <nlohmann/json.hpp>

namespace {

// Median wall time of the forward pass keeping the stages to be written, the module
// already built (as PyTorch's forward is timed); the embedding table and printing
// are not timed.
attn::Timing time_forward(const attn::Run& run, const attn::Settings& s, const attn::KeptStages& keep, int runs) {
    const attn::Matrix& x = run.trace.model.at("inputs");
    const attn::Matrix* x2 = run.tokens2 ? &run.trace.model.at("inputs2") : nullptr;
    const attn::AttentionModule module = attn::build_attention(static_cast<int>(x.cols()), attn::attention_config(s));
    std::vector<double> us;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        const attn::Trace t = attn::forward(module, x, x2, keep);
        us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
    std::nth_element(us.begin(), us.begin() + static_cast<long>(us.size() / 2), us.end());
    return {us[us.size() / 2], runs};
}

// --tokenize FILE: FILE's JSON list of strings, each tokenized by --tokenizer's
// tokenizer.json, printed as a JSON list of {token_ids, tokens, decoded} (the tests
// compare it with another implementation's ids and decoded text); a string the tokenizer
// refuses gets {error}.
int tokenize_strings(const cli::CliOptions& o) {
    const std::string& path = o.settings.tokenizer;
    if (!attn::names_tokenizer_json(path)) throw attn::ArgsError("--tokenize needs --tokenizer PATH/tokenizer.json");
    const nlohmann::json texts = nlohmann::json::parse(
        attn::read_file_capped(*o.tokenize_file, 16u << 20, "a --tokenize file"), nullptr, false);
    if (!texts.is_array()) throw attn::ArgsError(*o.tokenize_file + ": not a JSON list of strings");
    const attn::HfTokenizer tokenizer = attn::HfTokenizer::from_file(path);
    nlohmann::json out = nlohmann::json::array();
    for (const nlohmann::json& text : texts) {
        if (!text.is_string()) throw attn::ArgsError(*o.tokenize_file + ": not a JSON list of strings");
        try {
            const attn::Tokenized t = tokenizer.encode(text.get<std::string>());
            out.push_back({{"token_ids", t.ids}, {"tokens", t.tokens}, {"decoded", tokenizer.decode(t.ids)}});
        } catch (const attn::TokenizeError& e) {  // a text refused (e.g. one needing NFC): the others go on
            out.push_back({{"error", e.what()}});
        }
    }
    std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    return std::cout.good() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    attn::choose_blas_kernels(argv);
    attn::keep_freed_memory_mapped();
    try {
        if (argc == 2 && std::string(argv[1]) == "--version") {
            std::cout << attn::version_text("attnscope-cli") << attn::machine_text();
            return 0;
        }
        const cli::CliOptions o = cli::parse_cli_options(std::vector<std::string>(argv + 1, argv + argc));
        if (o.help) {
            std::cout << cli::cli_usage();
            return 0;
        }
        attn::Settings s = o.settings;
        if (o.tokenize_file) return tokenize_strings(o);
        if (o.print_recorder) {
            std::cout << attn::kAttnscopeRecordPy;
            return std::cout.good() ? 0 : 1;
        }
        if (o.check_file) {  // 0: every stage matches, 1: one differs (a bad file: 2, below)
            const attn::AttentionCheck check = attn::check_attention(attn::read_recorded_attention(*o.check_file));
            if (o.json) attn::write_check_json(std::cout, check);
            else attn::write_check_text(std::cout, check);
            return check.first ? 1 : 0;
        }
#ifdef ATTNSCOPE_HUB
        cli::fetch_hub_model(s, o.revision);  // --model ORG/NAME not in the cache: downloaded first
#endif
        if (o.interventions.any()) {  // every family, one path (model/language_model.h)
            const attn::LoadedModel model = attn::load_model(*s.model, s.attention.seed);
            const attn::InterventionRun run = attn::run_interventions(s, o.interventions, model, attn::budget_for(s));
            if (o.output.emit_pytorch) {  // the program's scaffolding is the model run's, the patch its hook's
                attn::Settings scaffolding = s;
                scaffolding.patch.reset();
                scaffolding.patch_from.reset();
                std::cout << attn::emit_intervention_pytorch(s, attn::run_model(scaffolding, model, attn::budget_for(s)), run);
            } else {
                attn::write_intervention_json(std::cout, run);
            }
            return std::cout.good() ? 0 : 1;
        }
        if (s.model) {  // a model of any family instead of the chapter 3 module (model/language_model.h)
            if (s.tokenizer != attn::Settings{}.tokenizer)  // the default is no choice
                throw attn::ArgsError("a model tokenizes with its own tokenizer (GPT-2's BPE, a folder's tokenizer.json): "
                                      "--tokenizer is for the chapter 3 module");
            attn::RunSession session(false);
            attn::RunSession::Request request;
            request.settings = s;
            request.as_shown = false;  // --layer/--head's head or none, the generated tokens after the text
            request.generated_in_view = false;
            request.budget = attn::budget_for(s);
            request.budget->output = o.output;
            session.run(request);
            const attn::ModelRun& run = *session.last_model_run();
            if (o.output.emit_pytorch) {
                std::cout << attn::emit_model_pytorch(s, run, false);
                return std::cout.good() ? 0 : 1;
            }
            if (o.export_dir) {
                attn::export_model_run(*o.export_dir, run, o.output.stages);
                return 0;
            }
            attn::write_model_json(std::cout, run, o.output.stages);
            return std::cout.good() ? 0 : 1;
        }
        // The budget counts the time to write the chosen stages: every stage of a long
        // text is gigabytes of JSON, minutes after the forward pass is done.
        attn::Budget budget = attn::budget_for(s);
        budget.output = o.output;
        // A head keeps only the stages to be written: --stages output at 8192 tokens holds
        // no T x T matrix per head (kept_stages.h).
        const attn::KeptStages keep =
            o.output.stages.empty() || o.output.emit_pytorch ? attn::KeptStages{} : attn::KeptStages::only(o.output.stages);
        const attn::Run run = attn::compute(s, budget, keep);
        if (o.output.emit_pytorch) {
            std::cout << attn::emit_pytorch(s, run);
            return std::cout.good() ? 0 : 1;
        }
        if (o.export_dir) {
            attn::export_run(*o.export_dir, run, o.output.stages);
            return 0;
        }
        std::optional<attn::Timing> timing;
        if (o.output.time_runs > 0) timing = time_forward(run, s, keep, o.output.time_runs);
        attn::write_run_json(std::cout, run, o.output.stages, timing);
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

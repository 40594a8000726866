#pragma once
// What a configuration will cost, known from its shapes before anything is computed,
// and the budget that refuses what the machine cannot hold or finish in time: a
// setting that would need 23 GB is explained in one line, not killed by the kernel.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attention/kept_stages.h"
#include "base/byte_sizes.h"
#include "base/work_estimate.h"
#include "settings/settings.h"

namespace attn {

// The shapes of a run of `s` whose texts have `tokens` and `tokens2` tokens (0: no
// second text), keeping `keep` of each head. Counts what the forwards
// (attention/variants/), head_forward.cpp and embedding.cpp allocate.
WorkEstimate estimate_work(const Settings& s, int64_t tokens, int64_t tokens2, const KeptStages& keep = {});

// What the CLI does with a run besides computing it: its time counts too.
struct OutputRequest {
    std::vector<std::string> stages;  // --stages; empty: every stage
    int time_runs = 0;                // --time N: N more forward passes
    bool emit_pytorch = false;        // a program, no numbers
    bool export_files = false;        // --export: .npy and .csv files rather than JSON
};

struct Budget {
    double bytes = 0.0;
    double seconds = 60.0;  // nothing the budget admits may take longer than this
    std::optional<OutputRequest> output;  // the caller writes the stages (the CLI)
};

// A third of the machine's memory (the app may hold two runs and their textures at
// once), or ATTNSCOPE_MEMORY_BUDGET (a size, as parse_size reads it) when set.
Budget default_budget();
// The budget for `s`: its --memory-budget if given, else the default.
Budget budget_for(const Settings& s);
// Seconds to write the requested stages (0 for a program).
double output_seconds(const WorkEstimate& w, const OutputRequest& out);

// Throws InputError with one line ("this needs about 23.4 GB (budget 7.8 GB): lower
// ...") when the estimate exceeds the budget's memory or time (with output_seconds when
// the budget counts_output).
void check_budget(const WorkEstimate& w, const Budget& b);

}  // namespace attn

#pragma once
// What a piece of work will cost, known from its shapes before anything is computed
// (run/memory_budget.h checks it against the budget). Plain numbers: each model family
// estimates its own forward (model/language_model.h), the chapter 3 module its own.
#include <string>
#include <utility>
#include <vector>

namespace attn {

struct WorkEstimate {
    double bytes = 0.0;    // peak memory of one run: the trace, its temporaries, the tables
    double seconds = 0.0;  // a conservative time for one run on a 2-core machine (release build)
    double forward_seconds = 0.0;  // the forward pass alone, what --time repeats
    std::vector<std::pair<std::string, double>> stage_numbers;  // numbers each stage holds
    std::string lower;     // the settings that dominate memory, e.g. "the text length (4096 tokens) or heads (64)"
};

}  // namespace attn

#pragma once
// attnscope-cli's own options: what to print or write, not what to compute. They are
// not settings (settings.h), so lessons and session files never see them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interventions/intervention_flags.h"
#include "run/memory_budget.h"
#include "settings/settings.h"

namespace cli {

struct CliOptions {
    attn::Settings settings;
    attn::OutputRequest output;             // --stages, --time, --emit-pytorch, --export
    std::optional<std::string> export_dir;  // --export DIR
    std::optional<std::string> tokenize_file;  // --tokenize FILE: only tokenize FILE's strings
    std::optional<std::string> check_file;     // --check FILE: a recorded module checked (check/attention_check.h)
    bool json = false;                         // --json: --check's report as JSON
    bool print_recorder = false;               // --print-recorder: scripts/attnscope_record.py
    std::optional<std::string> revision;       // --revision REV: the branch, tag or commit of --model ORG/NAME
    // --ablate, --patch, --logit-lens, --attribute, --head-effects (with --model: a run of
    // run/intervention_run.h). Not settings yet: the app's links do not carry them.
    attn::InterventionFlags interventions;
    bool help = false;
};

// Throws attn::ArgsError with one line for an unknown flag, a bad value, a setting the
// variant does not take, or options that cannot go together.
CliOptions parse_cli_options(const std::vector<std::string>& args);
std::string cli_usage();

}  // namespace cli

#pragma once
// Side-by-side comparisons as data, so a front end draws them with the views it
// already has: a comparison is either extra stages derived from one run (the two
// ways of masking) or a list of labelled settings to compute next to each other.
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/user_error.h"
#include "run/pipeline.h"
#include "settings/settings.h"
#include "attention/trace.h"

namespace attn {

struct ComparisonError : UserError {
    using UserError::UserError;
};

enum class ComparisonKind {
    Masking,    // 3.5.1: mask after softmax + renormalise vs -inf before softmax (one run)
    Dropout,    // 3.5.2: dropout off vs on
    Seeds,      // two module seeds
    MultiHead,  // 3.6.1 wrapper vs 3.6.2 weight splits
    // Today's variants against the one they change (the book's ch04 bonus material):
    KvGroups,    // gqa: a key/value group per head (MHA) vs heads sharing groups (GQA)
    MultiQuery,  // gqa: a group per head (MHA) vs one group for all heads (MQA)
    Window,      // mha (causal) vs swa on the same weights: what the window hides
    Rope,        // gqa without vs with rotary positions, same weights
    Latent,      // mha vs mla: keys and values from a small cached latent
};

// "masking", "dropout", "seeds", "multihead", "kv-groups", "multi-query", "window", "rope", "latent"
const std::vector<std::string>& comparison_names();
std::optional<ComparisonKind> comparison_from_name(const std::string& name);
std::string comparison_name(ComparisonKind kind);

// Names of the stages compare_masking returns, in order.
const std::vector<std::string>& masking_stage_names();

// Both ways of causal masking from one head: unmasked_weights (softmax of the scaled
// scores, mask ignored), masked_after_softmax (x (1 - mask)), renormalised (each row
// divided by its sum), minus_inf_weights (the trace's own weights) and difference
// (renormalised - minus_inf_weights: zero up to float rounding). Throws
// ComparisonError for a head without a mask (the simplified variant).
StageList compare_masking(const HeadTrace& head);

// Labelled settings to compute side by side, derived from the current ones. Masking
// needs no second run: it gives the current settings once (use compare_masking).
std::vector<std::pair<std::string, Settings>> comparison_settings(const Settings& current, ComparisonKind kind);

// a - b of one stage: one entry per head for a head stage (stages[h] is head h), one
// entry for a model stage or "output" (batch element 0). Cells that are -inf in both
// runs differ by 0. Throws ComparisonError when the stage is missing from either run
// or the shapes (or head counts) differ.
StageList difference(const Run& a, const Run& b, const std::string& stage);

}  // namespace attn

#pragma once
// Checks a user's own attention module (a RecordedAttention) against attnscope's: the same
// configuration run with the recorded weights and input through the engine's forward
// (attention/attention.h), every recorded stage compared in the order the data flows,
// within the golden tolerance of the stage's scale (numerics/tolerance.h). The first stage
// that differs is reported with its first differing cell, both values and that cell worked
// out as attnscope computes it, and the known mistakes (mistakes.h) are tried on the
// user's own earlier stages to say which one gives their numbers.
#include <optional>
#include <string>
#include <vector>

#include "check/recorded_attention.h"

namespace attn {

struct CellDifference {
    std::string stage;  // "weights"
    int head = -1;      // a per-head stage's head; -1 for a stage of every head side by side
    Eigen::Index row = 0, col = 0;
    float yours = 0.0f, ours = 0.0f;
    double tolerance = 0.0;  // kStageRelative times the stage's largest |value|
    // The cell as attnscope computes it, worked out: "q·k = 0.12×0.40 + ... = 0.31;
    // ÷ √2 = 0.22; weight = exp(0.22) / (exp(0.10) + exp(0.22)) = 0.53".
    std::string arithmetic;
};

// One stage as compared: the user's matrices and attnscope's (one a head for weights and
// dropped_weights, else one), what the views draw side by side with their difference.
struct ComparedStage {
    std::string stage;
    std::vector<Matrix> yours, ours;
    double tolerance = 0.0;
};

struct AttentionCheck {
    std::string module;                    // "MultiHeadAttention(d_in=3, d_out=4, num_heads=2)"
    std::vector<std::string> matched;      // the stages that agree, in the order the data flows
    std::optional<CellDifference> first;   // the first stage that does not
    std::vector<std::string> diagnoses;    // the known mistakes that give your numbers there
    std::vector<std::string> notes;        // what was not compared, and why
    std::vector<ComparedStage> compared;   // every stage compared, up to the first that differs
};

// Throws ModelFileError for a record attnscope cannot run (a configuration the book's
// classes would reject, several heads without an out_proj and not the wrapper, a stage the
// class does not compute: dropped_weights of a class without dropout).
AttentionCheck check_attention(const RecordedAttention& r);

}  // namespace attn

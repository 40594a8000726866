#pragma once
// The stage catalogue: every stage the engine can record, in forward-pass order, with
// what a reader needs to know about it: its name in the trace and the CLI, its label as
// the book writes it, what its rows and columns index, how its values are coloured,
// one line on what it means, and where it is drawn. The engine records stages through
// it (StageList::add(name, value, key_axis)), the JSON writer and lessons check names
// against it and the app takes its titles and explanations from it, so a new stage is
// added here once.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attention/trace.h"

namespace attn {

// Where a stage lives and is drawn.
enum class StagePlace {
    Model,       // Trace::model, drawn before the heads (inputs, embeddings)
    Head,        // every HeadTrace
    AfterHeads,  // Trace::model, drawn after the heads (concat, out_proj)
    Output,      // the module's output (Trace::output, not a StageList)
    Comparison   // derived by a comparison (compare_masking), not part of the trace
};

struct StageInfo {
    const char* name;     // "scaled_scores": the trace's and the CLI's name
    const char* label;    // "scaled = scores / √d_k": as the book writes it
    Axis rows, cols;      // Axis::KeyTokens: the keys' tokens (Axis::Tokens in self-attention)
    Scale scale;
    const char* meaning;  // one sentence
    StagePlace place;
};

// Every stage, in forward-pass order; the masking comparison's stages last.
const std::vector<StageInfo>& stage_catalogue();

// The row of `name`, or null when the catalogue does not know it.
const StageInfo* find_stage_info(std::string_view name);

// The trace's stage names in forward-pass order ("output" included, comparison stages
// not): every name the CLI's --stages accepts.
const std::vector<std::string>& stage_names();

// Whether a --stages list keeps the stage `name` (an empty list keeps every stage).
bool stage_kept(const std::vector<std::string>& keep, std::string_view name);

// Names of the stages of one place, in catalogue order.
std::vector<std::string> stage_names_in(StagePlace place);

// A catalogue axis as one run has it: KeyTokens becomes key_axis (Axis::Tokens for
// self-attention, Axis::KeyTokens for cross-attention); any other axis stays.
inline Axis resolve_axis(Axis axis, Axis key_axis) { return axis == Axis::KeyTokens ? key_axis : axis; }

// A stage with the catalogue's axes and scale. Throws std::logic_error (a defect of
// attnscope, not of the input) for a name the catalogue does not know, or a stage with
// a key-token axis when no key_axis is given.
Stage catalogued_stage(std::string name, Matrix value, std::optional<Axis> key_axis = std::nullopt);

}  // namespace attn

#pragma once
// Words for what the trace holds: a stage's title as the book writes it (from the
// engine's stage catalogue), the labels of its rows and columns, and how its values
// are coloured.
#include <string>
#include <vector>

#include "graphics/heatmap.h"
#include "run/pipeline.h"

namespace app {

std::string stage_title(const std::string& name);        // "scores = Q·Kᵀ"
// The same as this run draws it: a sliding window's mask is not the causal one.
std::string stage_title(const std::string& name, const attn::Trace& trace);
std::string stage_explanation(const std::string& name);  // one sentence; empty if unknown

// What a head is called: "head 3" in the chapter 3 module (1-based, as its strip counts),
// "head 1.5" in a model (L.H, 0-based, as the model view, the CLI and the literature name
// it); and the same in a file name: "head3", "layer1_head5".
std::string head_name(const attn::Run& run, int head);
std::string head_file_name(const attn::Run& run, int head);

// Labels of one axis: tokens for token axes, 1-based indices for features.
std::vector<std::string> axis_labels(const attn::Run& run, attn::Axis axis, int count);
std::string axis_name(attn::Axis axis, bool rows);  // "query tokens", "features", ...

// Probability: 0..1; signed: centred on 0 with the largest finite magnitude; mask:
// striped / plain; dropout factor: 0..max.
ColorScale color_scale_for(const attn::Stage& stage);

// Model stages that come after the heads in the forward pass (the catalogue's AfterHeads).
bool follows_heads(const std::string& model_stage);

// A token with its whitespace made visible: " some" -> "␣some", "\n" -> "↵".
std::string visible_token(const std::string& token);
std::string subscript(int n);  // 12 -> "₁₂"
// "−∞" for -inf, a real minus sign: attn::format_number (core/output/worked_arithmetic.h).
std::string format_value(float v, int decimals);

}  // namespace app

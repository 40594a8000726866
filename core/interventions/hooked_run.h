#pragma once
// A model's forward with every activation kept and, optionally, heads changed on the
// way: switched off (their z set to zero, or to its mean over the text's positions) or
// patched (their z taken from another text's run of as many tokens). What the hooks of
// TransformerLens and nnsight do, written once over the model interface
// (model/language_model.h) for every family.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/language_model.h"

namespace attn {

struct HeadSite {
    int layer = 0, head = 0;
    bool operator==(const HeadSite& o) const { return layer == o.layer && head == o.head; }
    bool operator<(const HeadSite& o) const { return layer != o.layer ? layer < o.layer : head < o.head; }
};

// Every activation of one forward (T rows each).
struct ModelActivations {
    std::vector<int64_t> ids;
    std::vector<std::pair<std::string, Matrix>> embedding_parts;  // "embed", "pos_embed": they add up to embeddings
    Matrix embeddings;                                           // the first block's inputs
    std::vector<BlockActivations> blocks;
    // The residual stream after block `after` (-1: the embeddings), T x d.
    const Matrix& residual(int after) const { return after < 0 ? embeddings : blocks[static_cast<size_t>(after)].outputs; }
    const Matrix& final_residual() const { return residual(static_cast<int>(blocks.size()) - 1); }
};

struct Intervention {
    enum class Kind { None, Zero, Mean, Patch };
    Kind kind = Kind::None;
    std::vector<HeadSite> heads;
    std::vector<int64_t> positions;  // where z changes; empty: every position
    // Patch: the source text's run (as many tokens), whose z the heads take.
    std::shared_ptr<const ModelActivations> source;
    bool changes(int layer) const;
};

// Changes block `layer`'s z (T x heads*head_dim) as `how` says for the heads of that layer:
// zero, its mean over every position (of this run, as a forward hook sees it), or the
// source's z, at how.positions (every position when empty).
void intervene(const Intervention& how, int layer, int head_dim, Matrix& z);

// The forward over `ids` with `how` applied, keeping every activation and `keep`'s stages
// of each head (KeptStages::only({}): none).
ModelActivations run_activations(const LanguageModel& model, const std::vector<int64_t>& ids,
                                 const Intervention& how = {}, const KeptStages& keep = KeptStages::only({}));

// The logits after `position`: the final norm and the output head on that row of the
// last residual stream (1 x vocab).
RowVector logits_at(const LanguageModel& model, const ModelActivations& run, int64_t position);

// A model's head as the literature, the CLI and the app name it: "1.5" is layer 1's head 5
// (both 0-based).
std::string layer_head(int layer, int head);
inline std::string layer_head(const HeadSite& site) { return layer_head(site.layer, site.head); }

}  // namespace attn

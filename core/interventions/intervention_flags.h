#pragma once
// What a model run is asked besides its forward, as the CLI's flags give it (--ablate is a
// setting, Settings::ablate, which links and session files carry too), and the checks that turn each value
// into what core/interventions computes. Every check throws ArgsError with one line
// naming the flag and what the model or the text has.
//   --ablate L.H[,L.H...]   --ablate-mode zero|mean   --ablate-at P[,P...]
//   --patch L.H[,...]       --patch-from TEXT | --patch-from-ids IDS   --patch-at P[,...]
//   --logit-lens            --attribute ID[,ID2]      --head-effects prob:ID | logit-diff:ID1,ID2
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interventions/head_effects.h"
#include "interventions/hooked_run.h"

namespace attn {

struct InterventionFlags {
    std::optional<std::string> ablate;  // Settings::ablate: a setting (links and sessions carry it)
    std::optional<std::string> ablate_mode, ablate_at;
    std::optional<std::string> patch, patch_from;  // Settings::patch and patch_from: settings too
    std::optional<std::string> patch_at, patch_from_ids;
    bool logit_lens = false;            // Settings::logit_lens: a setting too
    std::optional<std::string> attribute;  // Settings::attribute: a setting too
    std::optional<std::string> head_effects;  // Settings::head_effects: a setting too
    // Whether any is set: the run is then one of core/interventions.
    bool any() const;
    // Reads one flag and its value (`value` is called only for a flag that takes one).
    // False for a flag that is none of these.
    template <class Value>
    bool read(const std::string& flag, Value&& value) {
        std::optional<std::string>* slot = field(flag);
        if (!slot) return false;
        *slot = value();
        return true;
    }

private:
    std::optional<std::string>* field(const std::string& flag);
};

// "5.1,5.5": heads of the model, each once. `flag` names the flag in messages.
std::vector<HeadSite> parse_head_sites(const std::string& flag, const std::string& text, const ModelShape& shape);
// "0,3": positions of a text of `tokens` tokens (0-based), each once.
std::vector<int64_t> parse_positions(const std::string& flag, const std::string& text, int64_t tokens);
// "ID" or "ID,ID2" (`most` ids at most): ids of the model's vocabulary.
std::vector<int64_t> parse_vocab_ids(const std::string& flag, const std::string& text, const ModelShape& shape,
                                     size_t most);
// --head-effects's "prob:ID" or "logit-diff:ID1,ID2", after token `position`.
EffectMetric parse_effect_metric(const std::string& text, const ModelShape& shape, int64_t position);

// `list` ("5.1,5.5", as Settings::ablate holds it) with `site` added, or removed when it
// is there; unset when none is left. The heads in layer, head order.
std::optional<std::string> toggle_head(const std::optional<std::string>& list, HeadSite site);

// What flags ask to change in a run of `tokens` tokens: the kind, heads and positions
// (the patch's source run is the caller's to make). Kind None with no --ablate or
// --patch; both at once is refused.
Intervention parse_intervention(const InterventionFlags& flags, const ModelShape& shape, int64_t tokens);

}  // namespace attn

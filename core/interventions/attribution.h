#pragma once
// A logit split into what each part of the residual stream adds to it (direct logit
// attribution): the embeddings, every head, each projection's bias, every MLP. The final
// norm is linear once its scale is fixed at the whole residual stream's, so each part
// through it, times the output head's column of the token, is that part's share, and the
// shares (with the norm's own shift) add up to the logit.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interventions/hooked_run.h"

namespace attn {

struct LogitComponent {
    std::string name;  // "embed", "pos_embed", "L.H" (a head), "attn_bias L", "mlp L", "norm_bias"
    double value = 0.0;
};

struct Attribution {
    int64_t position = 0;
    int64_t id = 0;
    std::optional<int64_t> minus_id;  // the logit of id minus that of minus_id
    double logit = 0.0;               // the run's own (difference of) logit(s)
    std::vector<LogitComponent> components;  // in the residual stream's order
};

// Token `id`'s logit (minus `minus_id`'s when given) after `position` of `run`.
Attribution attribute_logit(const LanguageModel& model, const ModelActivations& run, int64_t position, int64_t id,
                            std::optional<int64_t> minus_id = std::nullopt);

}  // namespace attn

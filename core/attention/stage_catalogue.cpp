#include "attention/stage_catalogue.h"

#include <algorithm>
#include <stdexcept>

namespace attn {

namespace {

constexpr Axis T = Axis::Tokens, K = Axis::KeyTokens, F = Axis::Features, One = Axis::One;
using P = StagePlace;

// A function's static rather than a global, so that other files' static initialisers
// may already use it.
const std::vector<StageInfo>& catalogue() {
    static const std::vector<StageInfo> rows = {
        // name, label, rows, cols, scale, meaning, place
        {"token_embeddings", "token embedding rows", T, F, Scale::Signed,
         "Row i: the row of nn.Embedding(vocab_size, d_in) at token i's id.", P::Model},
        {"pos_embeddings", "positional rows", T, F, Scale::Signed,
         "Row i: the row of nn.Embedding(context_length, d_in) at position i, added to token i.", P::Model},
        {"inputs", "X  inputs", T, F, Scale::Signed, "The vectors attention works on, one row per token.", P::Model},
        {"inputs2", "X₂  second inputs", K, F, Scale::Signed, "Keys and values are computed from these rows.",
         P::Model},
        {"W_DKV", "W_DKV  down to the latent", F, F, Scale::Signed,
         "X·W_DKV gives each token's latent vector, all that MLA's cache keeps.", P::Model},
        {"b_DKV", "b_DKV  latent bias", One, F, Scale::Signed, "Added to every row of X·W_DKV (qkv_bias=True).",
         P::Model},
        {"latents", "C = X·W_DKV  latents", T, F, Scale::Signed,
         "One small vector per token; keys and values are up-projected from it.", P::Model},
        {"rope_angles", "RoPE angles  position × freq", T, F, Scale::Signed,
         "Row p, column j: p / base^(2j/d_k), the angle pair j of position p is turned by.", P::Model},
        {"W_query", "W_q  query weights", F, F, Scale::Signed, "X·W_q gives the queries.", P::Head},
        {"W_key", "W_k  key weights", F, F, Scale::Signed, "X·W_k gives the keys.", P::Head},
        {"W_value", "W_v  value weights", F, F, Scale::Signed, "X·W_v gives the values.", P::Head},
        {"W_UK", "W_UK  latent → keys", F, F, Scale::Signed, "C·W_UK gives the keys (this head's columns).", P::Head},
        {"W_UV", "W_UV  latent → values", F, F, Scale::Signed, "C·W_UV gives the values (this head's columns).",
         P::Head},
        {"b_query", "b_q  query bias", One, F, Scale::Signed, "Added to every row of X·W_q (qkv_bias=True).", P::Head},
        {"b_key", "b_k  key bias", One, F, Scale::Signed, "Added to every row of X·W_k (qkv_bias=True).", P::Head},
        {"b_value", "b_v  value bias", One, F, Scale::Signed, "Added to every row of X·W_v (qkv_bias=True).", P::Head},
        {"b_UK", "b_UK  key bias", One, F, Scale::Signed, "Added to every row of C·W_UK (qkv_bias=True).", P::Head},
        {"b_UV", "b_UV  value bias", One, F, Scale::Signed, "Added to every row of C·W_UV (qkv_bias=True).", P::Head},
        {"queries", "Q = X·W_q  queries", T, F, Scale::Signed, "What each token is looking for.", P::Head},
        {"keys", "K = X·W_k  keys", K, F, Scale::Signed, "What each token offers to be found by.", P::Head},
        {"values", "V = X·W_v  values", K, F, Scale::Signed, "What each token passes on when attended to.", P::Head},
        {"queries_rotated", "RoPE(Q)  rotated queries", T, F, Scale::Signed,
         "Each pair of features turned by its position's angle.", P::Head},
        {"keys_rotated", "RoPE(K)  rotated keys", K, F, Scale::Signed,
         "Turned as the queries are: a score now depends on how far apart two tokens are.", P::Head},
        {"scores", "scores = Q·Kᵀ", T, K, Scale::Signed,
         "Row i, column j: how well query i matches key j (rotated ones with RoPE).", P::Head},
        {"scaled_scores", "scaled = scores / √d_k", T, K, Scale::Signed,
         "Dividing by √d_k keeps the softmax from saturating.", P::Head},
        {"position_bias", "bias = −m·(i − j)  ALiBi", T, K, Scale::Signed,
         "Added to the scaled scores: the head's slope m times how many tokens key j lies before query i.",
         P::Head},
        {"mask", "causal mask", T, K, Scale::Mask,
         "Striped = masked: a token may not look at later tokens (nor, in a sliding window, at keys W back).", P::Head},
        {"masked_scores", "masked scores", T, K, Scale::Scores,
         "Masked cells become −∞, so softmax gives them weight 0.", P::Head},
        {"weights", "weights = softmax(rows)", T, K, Scale::Probability,
         "Each row sums to 1: how much query i attends to key j.", P::Head},
        {"dropout_mask", "dropout mask", T, K, Scale::Factor, "0 = dropped; kept weights are scaled by 1/(1−p).",
         P::Head},
        {"dropped_weights", "weights after dropout", T, K, Scale::Probability, "Weights × dropout mask.", P::Head},
        {"context", "Z = weights·V  context", T, F, Scale::Signed, "Each row: the weighted sum of the value rows.",
         P::Head},
        {"concat", "concat(heads)", T, F, Scale::Signed, "The heads' context vectors side by side.", P::AfterHeads},
        {"W_out", "W_out  out_proj weights", F, F, Scale::Signed, "Mixes the concatenated heads.", P::AfterHeads},
        {"b_out", "b_out  out_proj bias", One, F, Scale::Signed, "Added to every row of concat·W_out.", P::AfterHeads},
        {"output", "output", T, F, Scale::Signed, "What the module returns.", P::Output},

        // The masking comparison (3.5.1): the book's two ways of hiding the future, from one head.
        {"unmasked_weights", "softmax, mask ignored", T, K, Scale::Probability,
         "softmax of the scaled scores as if nothing were masked.", P::Comparison},
        {"masked_after_softmax", "× (1 − mask): future zeroed", T, K, Scale::Probability,
         "The future's weights set to 0 after the softmax: the rows no longer sum to 1.", P::Comparison},
        {"renormalised", "÷ row sum: renormalised", T, K, Scale::Probability,
         "Each row divided by its sum, so that it sums to 1 again.", P::Comparison},
        {"minus_inf_weights", "−∞ before softmax", T, K, Scale::Probability,
         "The trace's own weights: future scores set to −∞ before the softmax.", P::Comparison},
        {"difference", "difference: renormalised − (−∞ way)", T, K, Scale::Signed,
         "Zero up to float rounding: both ways give the same weights.", P::Comparison},
    };
    return rows;
}

}  // namespace

const std::vector<StageInfo>& stage_catalogue() { return catalogue(); }

const StageInfo* find_stage_info(std::string_view name) {
    for (const StageInfo& s : catalogue())
        if (name == s.name) return &s;
    return nullptr;
}

std::vector<std::string> stage_names_in(StagePlace place) {
    std::vector<std::string> names;
    for (const StageInfo& s : catalogue())
        if (s.place == place) names.push_back(s.name);
    return names;
}

const std::vector<std::string>& stage_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const StageInfo& s : catalogue())
            if (s.place != StagePlace::Comparison) out.push_back(s.name);
        return out;
    }();
    return names;
}

Stage catalogued_stage(std::string name, Matrix value, std::optional<Axis> key_axis) {
    const StageInfo* info = find_stage_info(name);
    if (!info)
        throw std::logic_error("stage \"" + name + "\" is not in the stage catalogue (core/attention/stage_catalogue.cpp)");
    const bool keyed = info->rows == Axis::KeyTokens || info->cols == Axis::KeyTokens;
    if (keyed && !key_axis) throw std::logic_error("stage \"" + name + "\" has a key-token axis: give its key axis");
    const Axis key = key_axis.value_or(Axis::Tokens);
    return Stage{std::move(name), std::move(value), resolve_axis(info->rows, key), resolve_axis(info->cols, key),
                 info->scale};
}

bool stage_kept(const std::vector<std::string>& keep, std::string_view name) {
    return keep.empty() || std::find(keep.begin(), keep.end(), name) != keep.end();
}

}  // namespace attn

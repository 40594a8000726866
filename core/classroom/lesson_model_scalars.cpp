// Placeholders of lessons on trained heads; see lesson_model_scalars.h.
#include "classroom/lesson_model_scalars.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "classroom/lesson.h"
#include "output/worked_arithmetic.h"
#include "run/model_run.h"

namespace attn {

namespace {

// The four head types and the induction stripe by the names placeholders use, in HeadScores' order.
struct TypeName {
    const char* name;
    double HeadScores::*score;
};
constexpr TypeName kTypes[] = {{"prev", &HeadScores::previous_token},
                               {"dup", &HeadScores::duplicate_token},
                               {"induction", &HeadScores::induction},
                               {"sink", &HeadScores::first_token},
                               {"stripe", &HeadScores::induction_stripe}};

const TypeName* type_named(const std::string& name) {
    for (const TypeName& t : kTypes)
        if (name == t.name) return &t;
    return nullptr;
}

// "prev_score" -> prev; "chance_sink" -> sink; "best_dup_head" -> dup (the middle part).
const TypeName* type_of(const std::string& name, const std::string& prefix, const std::string& suffix) {
    if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return nullptr;
    return type_named(name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
}

std::string two_decimals(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", x);
    return buf;
}

[[noreturn]] void fail(const std::string& what) { throw LessonError(what); }

// Entry `index` of `tokens`: its token, quoted as the app shows it (name ending in
// _token), or its probability in percent.
std::string listed(const std::string& name, const char* what, const std::vector<TokenProbability>& tokens, int index,
                   const ModelRun& m) {
    if (index < 0 || index >= static_cast<int>(tokens.size()))
        fail(name + " " + std::to_string(index) + " does not exist: the view has the " + std::to_string(tokens.size()) +
             " " + what + " (counted from 0)");
    const TokenProbability& p = tokens[static_cast<size_t>(index)];
    if (name.size() > 5 && name.compare(name.size() - 5, 5, "_prob") == 0)
        return two_decimals(static_cast<double>(p.prob) * 100.0) + "%";
    return quoted_token(m.model, p.id);  // GPT-2's piece or the model's tokenizer.json's
}

// The head whose change moved the metric most (either way), "L.H", or that change: in
// percentage points for a probability, as a logit difference otherwise, with its sign.
std::string top_effect(const std::string& name, const ModelRun& m) {
    if (m.head_effects.empty() || !m.effect_metric) fail("{" + name + "} needs the heads' effects (--head-effects)");
    size_t best_l = 0, best_h = 0;
    for (size_t l = 0; l < m.head_effects.size(); ++l)
        for (size_t h = 0; h < m.head_effects[l].size(); ++h)
            if (std::abs(m.head_effects[l][h]) > std::abs(m.head_effects[best_l][best_h])) best_l = l, best_h = h;
    if (name == "top_effect_head") return layer_head(static_cast<int>(best_l), static_cast<int>(best_h));
    const bool prob = m.effect_metric->kind == EffectMetric::Kind::Prob;
    const auto v = static_cast<float>(m.head_effects[best_l][best_h] * (prob ? 100.0 : 1.0));
    const std::string number = format_number(v, 2);  // a real minus sign, as values print
    return (v > 0.0f && number != "0.00" ? "+" : "") + number + (prob ? " points" : "");
}

}  // namespace

bool is_model_head_scalar(const std::string& name) { return type_of(name, "", "_score") != nullptr; }

bool is_model_indexed_scalar(const std::string& name) {
    for (const char* n : {"next_token", "next_prob", "baseline_token", "baseline_prob", "lens_token", "lens_prob"})
        if (name == n) return true;
    return false;
}

bool is_model_scalar(const std::string& name) {
    return name == "layer" || name == "top_effect_head" || name == "top_effect" || is_model_head_scalar(name) ||
           type_of(name, "chance_", "") || type_of(name, "best_", "_head") || type_of(name, "best_", "_score");
}

std::string model_scalar(const std::string& name, int head, int index, const Run& run) {
    if (!run.model) fail("{" + name + "} needs a model's view (--model)");
    const ModelRun& m = *run.model;
    const int layer = std::max(m.layer, 0);  // layer_view shows layer 0 when none was named
    if (name == "layer") return std::to_string(layer);
    if (m.head_scores.empty()) fail("the view has no head-type scores");
    if (const TypeName* t = type_of(name, "", "_score")) {
        const auto& heads = m.head_scores.at(static_cast<size_t>(layer));
        if (head < 0 || head >= static_cast<int>(heads.size()))
            fail("head " + std::to_string(head) + " does not exist: layer " + std::to_string(layer) + " has " +
                 std::to_string(heads.size()) + " heads, counted from 0");
        return two_decimals(heads[static_cast<size_t>(head)].*(t->score));
    }
    if (const TypeName* t = type_of(name, "chance_", "")) return two_decimals(m.chance_scores.*(t->score));
    const TypeName* t = type_of(name, "best_", "_head");
    const bool want_head = t != nullptr;
    if (!t) t = type_of(name, "best_", "_score");
    if (t) {  // the first of equals in layer, then head order
        int best_l = 0, best_h = 0;
        for (size_t l = 0; l < m.head_scores.size(); ++l)
            for (size_t h = 0; h < m.head_scores[l].size(); ++h)
                if (m.head_scores[l][h].*(t->score) > m.head_scores[static_cast<size_t>(best_l)][static_cast<size_t>(best_h)].*(t->score))
                    best_l = static_cast<int>(l), best_h = static_cast<int>(h);
        if (want_head) return layer_head(best_l, best_h);
        return two_decimals(m.head_scores[static_cast<size_t>(best_l)][static_cast<size_t>(best_h)].*(t->score));
    }
    if (name == "top_effect_head" || name == "top_effect") return top_effect(name, m);
    if (name == "next_token" || name == "next_prob") return listed(name, "most probable next tokens", m.next_tokens, index, m);
    if (name == "baseline_token" || name == "baseline_prob") {
        if (m.baseline_next_tokens.empty()) fail("{" + name + "} needs a step that switches heads off or patches them");
        return listed(name, "next tokens without the change", m.baseline_next_tokens, index, m);
    }
    if (name == "lens_token" || name == "lens_prob") {
        if (m.lens.empty()) fail("{" + name + "} needs the logit lens (--logit-lens)");
        const int entries = static_cast<int>(m.lens.size());
        if (index < 0 || index >= entries)
            fail(name + " " + std::to_string(index) + " does not exist: the lens reads the embeddings (0) and after "
                 "each block (1.." + std::to_string(entries - 1) + ")");
        return listed(name, "tokens the lens reads", m.lens[static_cast<size_t>(index)].back(), 0, m);
    }
    fail("unknown placeholder {" + name + "}");
}

}  // namespace attn

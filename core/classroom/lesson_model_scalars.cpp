// Placeholders of lessons on trained heads; see lesson_model_scalars.h.
#include "classroom/lesson_model_scalars.h"

#include <algorithm>
#include <cstdio>

#include "classroom/lesson.h"
#include "run/model_run.h"

namespace attn {

namespace {

// The four head types by the names placeholders use, in HeadScores' order.
struct TypeName {
    const char* name;
    double HeadScores::*score;
};
constexpr TypeName kTypes[] = {{"prev", &HeadScores::previous_token},
                               {"dup", &HeadScores::duplicate_token},
                               {"induction", &HeadScores::induction},
                               {"sink", &HeadScores::first_token}};

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

}  // namespace

bool is_model_head_scalar(const std::string& name) { return type_of(name, "", "_score") != nullptr; }

bool is_model_indexed_scalar(const std::string& name) { return name == "next_token" || name == "next_prob"; }

bool is_model_scalar(const std::string& name) {
    return name == "layer" || is_model_head_scalar(name) || type_of(name, "chance_", "") ||
           type_of(name, "best_", "_head") || type_of(name, "best_", "_score");
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
    if (is_model_indexed_scalar(name)) {
        if (index < 0 || index >= static_cast<int>(m.next_tokens.size()))
            fail(name + " " + std::to_string(index) + " does not exist: the view has the " +
                 std::to_string(m.next_tokens.size()) + " most probable next tokens (counted from 0)");
        const TokenProbability& p = m.next_tokens[static_cast<size_t>(index)];
        if (name == "next_prob") return two_decimals(static_cast<double>(p.prob) * 100.0) + "%";
        return "'" + model_token_text(m.model, p.id) + "'";  // GPT-2's piece or the model's tokenizer.json's
    }
    fail("unknown placeholder {" + name + "}");
}

}  // namespace attn

#pragma once
// Which stages of each head a forward pass keeps in its trace. Every head's weights and
// context are computed whatever is kept (the output needs them); the rest (scores,
// scaled and masked scores, the mask, the dropout mask and dropped weights, a head's
// projections, queries, keys and values) cost a T x S matrix or more each, so a front end
// keeps what it shows: the app every head's weights and values (its overview, and what a
// change of dropout reruns from) and every stage of the head on screen; the CLI what
// --stages names. Kept or not, a stage's numbers are the same.
#include <string>
#include <string_view>
#include <vector>

namespace attn {

struct KeptStages {
    bool everything = true;          // every stage of every head: the default
    std::vector<std::string> names;  // otherwise these, for every head
    int detail_head = -1;            // and every stage of this head (-1: none)
    // > 0: a head that keeps no weights keeps their block means instead, at most this
    // many a side (Trace::weights_previews): the overview of a run too long for every
    // head's weights (8192 tokens x 12 heads are 3.2 GB of them).
    int preview_side = 0;

    static KeptStages only(std::vector<std::string> names, int detail_head = -1) {
        return KeptStages{false, std::move(names), detail_head};
    }
    // What the app's views need: every head's weights and values, every stage of `head`.
    static KeptStages overview_and(int head) { return only({"weights", "values"}, head); }
    // The same with every other head's weights as block means of at most `side` a side.
    static KeptStages previews_and(int head, int side) {
        KeptStages k = only({"values"}, head);
        k.preview_side = side;
        return k;
    }
    bool keeps(int head, std::string_view name) const {
        if (everything || head == detail_head) return true;
        for (const std::string& n : names)
            if (n == name) return true;
        return false;
    }
    // What attention_output needs to rerun the dropout and what follows (the app's case).
    bool can_rerun_output(int heads) const {
        for (int h = 0; h < heads; ++h)
            if (!keeps(h, "weights") || !keeps(h, "values")) return false;
        return true;
    }
};

}  // namespace attn

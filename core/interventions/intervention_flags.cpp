#include "interventions/intervention_flags.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <sstream>

#include "base/user_error.h"

namespace attn {

namespace {

std::vector<std::string> items_of(const std::string& flag, const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        const size_t first = item.find_first_not_of(' '), last = item.find_last_not_of(' ');
        items.push_back(first == std::string::npos ? "" : item.substr(first, last - first + 1));
    }
    if (items.empty() || (!text.empty() && text.back() == ',')) items.push_back("");
    for (const std::string& item : items)
        if (item.empty()) throw ArgsError(flag + " has an empty item in '" + text + "'");
    if (items.size() > 4096) throw ArgsError(flag + " takes at most 4096 items");
    return items;
}

// A whole number from 0, else ArgsError naming the flag, `what` it should be and the
// item it is part of.
int64_t whole_number(const std::string& flag, const std::string& text, const char* what, const std::string& item) {
    int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 0)
        throw ArgsError(flag + " needs " + what + ", got '" + item + "'");
    return n;
}

template <class T>
void check_once(const std::string& flag, const std::vector<T>& seen, const T& item, const std::string& name) {
    if (std::find(seen.begin(), seen.end(), item) != seen.end()) throw ArgsError(flag + " names " + name + " twice");
}

}  // namespace

bool InterventionFlags::any() const {
    return ablate || ablate_mode || ablate_at || patch || patch_at || patch_from || patch_from_ids || logit_lens ||
           attribute || head_effects;
}

std::optional<std::string>* InterventionFlags::field(const std::string& flag) {
    if (flag == "--ablate-mode") return &ablate_mode;
    if (flag == "--ablate-at") return &ablate_at;
    if (flag == "--patch-at") return &patch_at;
    if (flag == "--patch-from-ids") return &patch_from_ids;
    return nullptr;
}

std::vector<HeadSite> parse_head_sites(const std::string& flag, const std::string& text, const ModelShape& shape) {
    std::vector<HeadSite> sites;
    for (const std::string& item : items_of(flag, text)) {
        const size_t dot = item.find('.');
        if (dot == std::string::npos) throw ArgsError(flag + " needs heads as LAYER.HEAD (e.g. 5.1), got '" + item + "'");
        const int64_t layer = whole_number(flag, item.substr(0, dot), "heads as LAYER.HEAD (e.g. 5.1)", item);
        const int64_t head = whole_number(flag, item.substr(dot + 1), "heads as LAYER.HEAD (e.g. 5.1)", item);
        if (layer >= shape.layers)
            throw ArgsError(flag + ": the model has layers 0.." + std::to_string(shape.layers - 1) + ", got " + item);
        if (head >= shape.heads)
            throw ArgsError(flag + ": the model has heads 0.." + std::to_string(shape.heads - 1) + " a layer, got " + item);
        const HeadSite site{static_cast<int>(layer), static_cast<int>(head)};
        check_once(flag, sites, site, item);
        sites.push_back(site);
    }
    return sites;
}

std::vector<int64_t> parse_positions(const std::string& flag, const std::string& text, int64_t tokens) {
    std::vector<int64_t> positions;
    for (const std::string& item : items_of(flag, text)) {
        const int64_t p = whole_number(flag, item, "token positions from 0 (e.g. 0,3)", item);
        if (p >= tokens)
            throw ArgsError(flag + ": position " + item + " is past the text (" + std::to_string(tokens) +
                            " tokens: 0.." + std::to_string(tokens - 1) + ")");
        check_once(flag, positions, p, "position " + item);
        positions.push_back(p);
    }
    return positions;
}

std::vector<int64_t> parse_vocab_ids(const std::string& flag, const std::string& text, const ModelShape& shape,
                                     size_t most) {
    const std::vector<std::string> items = items_of(flag, text);
    if (items.size() > most) throw ArgsError(flag + " takes at most " + std::to_string(most) + " token ids, got '" + text + "'");
    std::vector<int64_t> ids;
    for (const std::string& item : items) {
        const int64_t id = whole_number(flag, item, "token ids from 0", item);
        if (id >= shape.vocab_size)
            throw ArgsError(flag + ": token id " + item + " is outside the model's vocabulary (0.." +
                            std::to_string(shape.vocab_size - 1) + ")");
        ids.push_back(id);
    }
    return ids;
}

EffectMetric parse_effect_metric(const std::string& text, const ModelShape& shape, int64_t position) {
    const std::string flag = "--head-effects";
    EffectMetric m;
    m.position = position;
    if (text.rfind("prob:", 0) == 0) {
        m.kind = EffectMetric::Kind::Prob;
        m.id = parse_vocab_ids(flag, text.substr(5), shape, 1)[0];
        return m;
    }
    if (text.rfind("logit-diff:", 0) == 0) {
        const std::vector<int64_t> ids = parse_vocab_ids(flag, text.substr(11), shape, 2);
        if (ids.size() != 2) throw ArgsError(flag + " logit-diff needs two token ids, ID1,ID2");
        m.kind = EffectMetric::Kind::LogitDiff;
        m.id = ids[0];
        m.minus_id = ids[1];
        return m;
    }
    throw ArgsError(flag + " needs prob:ID or logit-diff:ID1,ID2, got '" + text + "'");
}

std::optional<std::string> toggle_head(const std::optional<std::string>& list, HeadSite site) {
    std::vector<HeadSite> heads;
    if (list) {
        ModelShape any;  // the list was checked against the model when it was set
        any.layers = any.heads = std::numeric_limits<int>::max();
        heads = parse_head_sites("--ablate", *list, any);
    }
    const auto at = std::find(heads.begin(), heads.end(), site);
    if (at != heads.end()) heads.erase(at);
    else heads.push_back(site);
    if (heads.empty()) return std::nullopt;
    std::sort(heads.begin(), heads.end());
    std::string out;
    for (const HeadSite& h : heads) out += (out.empty() ? "" : ",") + layer_head(h);
    return out;
}

Intervention parse_intervention(const InterventionFlags& f, const ModelShape& shape, int64_t tokens) {
    Intervention how;
    if (f.ablate && f.patch) throw ArgsError("--ablate and --patch cannot be combined: one intervention a run");
    if ((f.ablate_mode || f.ablate_at) && !f.ablate && !f.head_effects)
        throw ArgsError("--ablate-mode and --ablate-at need --ablate L.H (or --head-effects)");
    if ((f.patch_from || f.patch_from_ids) && !f.patch && !f.head_effects)
        throw ArgsError("--patch-from needs --patch L.H (or --head-effects)");
    if (f.patch && !f.patch_from && !f.patch_from_ids) throw ArgsError("--patch needs --patch-from TEXT or --patch-from-ids IDS");
    if (f.patch_from && f.patch_from_ids) throw ArgsError("--patch-from and --patch-from-ids cannot be combined");
    if (f.patch_at && !f.patch) throw ArgsError("--patch-at needs --patch L.H");
    const bool patching = f.patch_from || f.patch_from_ids;
    if (patching && (f.ablate_mode || f.ablate_at))
        throw ArgsError("--ablate-mode and --ablate-at are for ablating, not with --patch-from");
    if (patching) {
        how.kind = Intervention::Kind::Patch;
        if (f.patch) how.heads = parse_head_sites("--patch", *f.patch, shape);
        if (f.patch_at) how.positions = parse_positions("--patch-at", *f.patch_at, tokens);
        return how;
    }
    const std::string mode = f.ablate_mode.value_or("zero");
    if (mode != "zero" && mode != "mean") throw ArgsError("--ablate-mode needs zero or mean, got '" + mode + "'");
    if (!f.ablate && !f.head_effects) return how;  // nothing changed
    how.kind = mode == "mean" ? Intervention::Kind::Mean : Intervention::Kind::Zero;
    if (f.ablate) how.heads = parse_head_sites("--ablate", *f.ablate, shape);
    if (f.ablate_at) how.positions = parse_positions("--ablate-at", *f.ablate_at, tokens);
    return how;
}

}  // namespace attn

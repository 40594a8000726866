#include "state/state_file.h"

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "classroom/session_file.h"
#include "run/model_run.h"
#include "run/run_cache_size.h"

namespace app {

namespace {

nlohmann::json axis_json(const AxisLabelsInfo& a) {
    nlohmann::json labels = nlohmann::json::array();
    for (const LabelInfo& l : a.labels)
        labels.push_back({{"text", l.text}, {"as", l.as}, {"hot", l.emphasised}, {"full_px", l.full_px},
                          {"type", l.type}, {"rect", l.rect}});
    return {{"present", a.present}, {"turned", a.turned}, {"room", a.room},
            {"note", a.note},       {"hidden", a.hidden}, {"labels", labels}};
}

// What a heatmap's labels and figures look like: tests check that they read.
nlohmann::json readable_json(const HeatmapInfo& h) {
    nlohmann::json figures = nlohmann::json::array();
    for (const FigureInfo& f : h.figures) figures.push_back({{"text", f.text}, {"rect", f.rect}, {"line_h", f.line_h}});
    return {{"font_px", h.font_px}, {"rows", axis_json(h.row_labels)}, {"cols", axis_json(h.col_labels)},
            {"figures", figures}};
}

nlohmann::json state_json(const LiveRun& live, float ui_scale, const FrameReport& report) {
    // The controls' values as a session file's "settings" (null: unset, e.g. d_out_v = d_out).
    nlohmann::json j = attn::settings_json(live.controls);
    j["corpus_error"] = live.corpus.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(live.corpus.error);
    j["error"] = live.error().empty() ? nlohmann::json(nullptr) : nlohmann::json(live.error());
    j["selected_head"] = live.shown_head();
    j["ui_scale"] = ui_scale;
    j["computing"] = live.computing();
    j["run_version"] = live.run_version();
    j["extended_runs"] = live.extended_runs();
    nlohmann::json tokens = nlohmann::json::array(), ids = nlohmann::json::array();
    if (const attn::Run* run = live.run()) {
        tokens = run->tokens.tokens;
        ids = run->tokens.ids;
        j["shown_variant"] = run->trace.variant;
        j["shown_heads"] = run->trace.heads.size();
        // Every stage of every head, or (a long run) every stage of this head only.
        j["detail_head"] = run->trace.kept.everything ? nlohmann::json("every") : nlohmann::json(run->trace.kept.detail_head);
    }
    j["model_run"] = nullptr;  // a GPT model's run: what it shows and predicts
    if (const attn::ModelRun* m = live.model_run()) {
        const attn::ModelShape shape = attn::model_shape(m->model);
        nlohmann::json next = nlohmann::json::array();
        for (const attn::TokenProbability& t : m->next_tokens) {
            next.push_back({{"id", t.id}, {"prob", t.prob}});
            if (t.drawn >= 0.0f) next.back()["sampled_prob"] = t.drawn;
        }
        j["model_run"] = {{"name", m->model.name},          {"dtype", m->model.dtype},
                          {"n_layer", shape.layers}, {"n_head", shape.heads}, {"n_kv_head", shape.kv_heads},
                          {"layer", m->layer},              {"head", m->head},
                          {"next_token", next},             {"extended", m->extended},
                          {"next_token_position", m->next_position},
                          {"kv_cache_bytes", attn::run_cache_size(*m).bytes()}};
        // Heads switched off (Settings::ablate), and the next tokens with every head on.
        nlohmann::json off = nlohmann::json::array(), before = nlohmann::json::array();
        for (const attn::HeadSite& h : m->switched_off) off.push_back(attn::layer_head(h));
        for (const attn::TokenProbability& t : m->baseline_next_tokens) before.push_back({{"id", t.id}, {"prob", t.prob}});
        j["model_run"]["switched_off"] = off;
        // Heads patched from the other text (Settings::patch), and that text's tokens.
        nlohmann::json patched = nlohmann::json::array();
        for (const attn::HeadSite& h : m->patched) patched.push_back(attn::layer_head(h));
        j["model_run"]["patched"] = patched;
        j["model_run"]["patch_tokens"] = m->patch_tokens ? static_cast<int64_t>(m->patch_tokens->ids.size()) : -1;
        // Which heads matter (Settings::head_effects): [layer][head] as far as computed.
        j["model_run"]["head_effects"] = m->effect_metric ? nlohmann::json{{"before", m->effect_before},
                                                                           {"patched", m->effects_patched},
                                                                           {"values", m->head_effects}}
                                                          : nlohmann::json(nullptr);
        j["model_run"]["baseline_next_token"] = before;
        // The logit lens (Settings::logit_lens): its positions and [entry][i] the top 5.
        nlohmann::json lens = nlohmann::json::array();
        for (const auto& entry : m->lens) {
            nlohmann::json row = nlohmann::json::array();
            for (const auto& top : entry) {
                nlohmann::json cell = nlohmann::json::array();
                for (const attn::TokenProbability& t : top) cell.push_back({{"id", t.id}, {"prob", t.prob}});
                row.push_back(cell);
            }
            lens.push_back(row);
        }
        j["model_run"]["logit_lens"] = {{"positions", m->lens_positions}, {"entries", lens}};
        // The logit's parts (Settings::attribute), in the residual stream's order.
        j["model_run"]["attribution"] = nullptr;
        if (const std::optional<attn::Attribution>& a = m->attribution) {
            nlohmann::json parts = nlohmann::json::array();
            for (const attn::LogitComponent& c : a->components) parts.push_back({{"name", c.name}, {"value", c.value}});
            j["model_run"]["attribution"] = {{"position", a->position}, {"id", a->id},
                                             {"minus_id", a->minus_id ? nlohmann::json(*a->minus_id) : nlohmann::json(nullptr)},
                                             {"logit", a->logit}, {"components", parts}};
        }
    }
    j["activity"] = live.activity();
    const WorkProgress progress = live.progress();
    j["progress"] = progress.total > 0 ? nlohmann::json{{"done", progress.done}, {"total", progress.total}} : nlohmann::json(nullptr);
    j["generating"] = live.generating;
    j["compute_ms"] = live.last_compute_ms();
    j["tokens"] = tokens;
    j["token_ids"] = ids;
    nlohmann::json widgets = nlohmann::json::object();
    for (const auto& [name, r] : report.widgets.all()) widgets[name] = r;
    j["widgets"] = widgets;
    const std::string& active = report.widgets.active();
    j["active_widget"] = active.empty() ? nlohmann::json(nullptr) : nlohmann::json(active);
    j["popup"] = report.popup_open;
    const PointerReport& p = report.pointer;
    j["pointer"] = {{"at", p.known ? nlohmann::json{p.x, p.y} : nlohmann::json(nullptr)},
                    {"clicks", p.clicks},
                    {"keys", p.keys},
                    {"focused", p.focused}};
    nlohmann::json heatmaps = nlohmann::json::object();
    nlohmann::json hover = nullptr;  // the heatmap cell under the pointer: [name, row, col]
    for (const auto& [name, h] : report.heatmaps) {
        if (h.hovered) hover = {name, h.row, h.col};
        heatmaps[name] = {{"rect", h.rect},
                          {"cell", {h.cell_w, h.cell_h}},
                          {"visible", h.visible},
                          {"rows", h.rows},
                          {"cols", h.cols},
                          {"block", {h.row0, h.col0, h.block_rows ? h.block_rows : h.rows, h.block_cols ? h.block_cols : h.cols}},
                          {"labels", readable_json(h)},
                          {"values", h.value_px > 0.0f ? nlohmann::json{{"shown", h.values}, {"need_px", h.value_px}}
                                                       : nlohmann::json(nullptr)}};
        if (h.view[2] > h.view[0]) heatmaps[name]["view"] = h.view;
        if (!h.marked.empty()) heatmaps[name]["marked"] = h.marked;  // its outlined cells and rows
    }
    j["heatmaps"] = heatmaps;
    // Presenter mode must keep what a lesson step points at on screen: tests check that
    // every highlighted rectangle lies in the viewport.
    nlohmann::json highlight = nlohmann::json::array();
    for (const auto& [name, h] : report.heatmaps)
        for (const Rect& r : h.marked) highlight.push_back(r);
    j["highlight"] = highlight;
    j["viewport"] = report.viewport;
    j["hover"] = hover;
    nlohmann::json chips = nlohmann::json::array();
    for (const ChipInfo& chip : report.chips)
        chips.push_back({{"text", chip.text},
                         {"id", chip.id},
                         {"special", chip.special},
                         {"unk", chip.unk},
                         {"word", chip.word},
                         {"marked", chip.marked},
                         {"rect", chip.rect}});
    j["chips"] = chips;
    const WindowReport& w = report.window;
    j["window"] = {{"max_length", w.max_length},
                   {"stride", w.stride},
                   {"pairs", w.pairs},
                   {"error", w.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.error)}};
    const auto stepper = [](const StepperReport& r) {
        return nlohmann::json{{"shown", r.shown},
                              {"step", r.step},
                              {"steps", r.steps},
                              {"cached", r.cached},
                              {"cache_bytes", r.cache_bytes},
                              {"max_difference", r.max_difference},
                              {"error", r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error)}};
    };
    j["kv_cache_view"] = stepper(report.kv_cache);
    j["tiled_view"] = stepper(report.tiled);
    const HeadViewReport& hv = report.head_view;
    j["head_view"] = hv.shown ? nlohmann::json{{"model_view", hv.model_view},
                                               {"layer", hv.layer},
                                               {"layers", hv.layers},
                                               {"heads", hv.heads},
                                               {"hovered_query", hv.hovered_query},
                                               {"hovered_key", hv.hovered_key},
                                               {"lines", hv.lines},
                                               {"line_heads", hv.line_heads},
                                               {"line_queries", hv.line_queries},
                                               {"line_keys", hv.line_keys}}
                              : nlohmann::json(nullptr);
    const CheckReport& ck = report.check;
    j["check_view"] = ck.shown ? nlohmann::json{{"path", ck.path},
                                                {"report", ck.report},
                                                {"stages", ck.stages},
                                                {"stage", ck.stage},
                                                {"head", ck.head},
                                                {"heads", ck.heads},
                                                {"matches", ck.matches},
                                                {"differing", ck.differing},
                                                {"outlined", ck.outlined}}
                               : nlohmann::json(nullptr);
    return j;
}

}  // namespace

void StateFile::update(const LiveRun& live, float ui_scale, const FrameReport& report,
                       const nlohmann::json& classroom, bool force) {
    nlohmann::json j = state_json(live, ui_scale, report);
    j["frame"] = ++frame_;
    j.update(classroom);
    const std::string text = j.dump(1);
    if (text == last_ && !force) return;
    try {
        // Not durable: rewritten as often as every frame, an fsync each time would slow the
        // app down, and a state lost in a crash is written again by the next frame.
        publish_(text + "\n");
    } catch (const attn::FileError&) {
        return;  // a full disk must not stop the app; the next change retries
    }
    last_ = text;
}

}  // namespace app

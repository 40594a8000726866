#include "panels/file_dialog.h"

#include "model/gpt2_checkpoint.h"
#include "model/model_source.h"  // is_llama_family_folder

#include "panels/export_actions.h"
#include "imgui_stdlib.h"
#include "platform/platform.h"
#include "state/session_io.h"
#include "graphics/ui_colors.h"

namespace app {

namespace {

const char* title(FileAction a) {
    switch (a) {
    case FileAction::WindowPng: return "Save window as PNG";
    case FileAction::TraceJson: return "Export trace (JSON)";
    case FileAction::AllStages: return "Export all stages (.npy and .csv) to a directory";
    case FileAction::PythonFile: return "Save PyTorch program as .py";
    case FileAction::SaveSession: return "Save session";
    case FileAction::OpenSession: return "Open session";
    case FileAction::OpenModel: return "Open a model: a GPT-2 checkpoint (.safetensors or its folder), or a Llama 3, SmolLM2 or Qwen folder";
    case FileAction::CheckAttention:
        return "Check my attention code: a module recorded by attnscope_record (attnscope-cli --print-recorder prints it)";
    case FileAction::Matrix: return "Save matrix";
    }
    return "";
}

std::string default_name(FileAction a, const std::optional<MatrixExportRequest>& m) {
    switch (a) {
    case FileAction::WindowPng: return "attnscope.png";
    case FileAction::TraceJson: return "trace.json";
    case FileAction::AllStages: return "attnscope-export";
    case FileAction::PythonFile: return "attention.py";
    case FileAction::SaveSession:
    case FileAction::OpenSession: return "session.json";
    case FileAction::OpenModel: return "model.safetensors";
    case FileAction::CheckAttention: return "mine.safetensors";
    case FileAction::Matrix: return m ? m->name + "." + m->format : "matrix";
    }
    return "";
}

}  // namespace

FileOutcome run_file_action(FileAction action, const std::string& path, AppContext& app,
                            const std::optional<MatrixExportRequest>& matrix) {
    ViewState& c = app.classroom;
    if (action == FileAction::SaveSession || action == FileAction::OpenSession) {
        c.last_session = action == FileAction::SaveSession
                             ? save_session_file(path, app.live, c, app.ui_scale)
                             : load_session_file(path, app.live, c, app.ui_scale);
        if (action == FileAction::SaveSession && c.last_session->error.empty())
            c.last_session->error = platform::deliver(path);
        return *c.last_session;
    }
    if (action == FileAction::OpenModel) {
        // The header here, so that a wrong file is explained in the dialog; the weights
        // load in the worker, the window drawing meanwhile.
        try {
            if (attn::is_llama_family_folder(path)) attn::LlamaCheckpoint{path};  // config, shards, shapes
            else attn::SafetensorsFile(attn::checkpoint_file(path));
        } catch (const attn::ModelFileError& e) {
            return FileOutcome{path, e.what()};
        }
        app.live.controls.model = path;
        return FileOutcome{path, ""};
    }
    if (action == FileAction::CheckAttention) {
        // A file that is not a record is said in the dialog; the check on screen stays.
        try {
            c.check = open_check(path);
        } catch (const std::exception& e) {
            return FileOutcome{path, e.what()};
        }
        c.show_tab(ViewTab::Check);
        return FileOutcome{path, ""};
    }
    const attn::Run* run = app.live.run();
    FileOutcome out{path, ""};
    if (action == FileAction::WindowPng) c.window_png = path;  // main writes it and records the outcome
    else if (action == FileAction::Matrix && matrix) out = save_matrix(*matrix, path, app.painter);
    else if (!run) out.error = "nothing computed yet";
    else if (action == FileAction::TraceJson) out = export_trace_json(path, *run);
    else if (action == FileAction::AllStages) out = export_all_stages(path, *run);
    else if (action == FileAction::PythonFile) out = save_pytorch(path, app.live);
    if (action != FileAction::WindowPng && out.error.empty()) out.error = platform::deliver(path);
    if (action != FileAction::WindowPng) c.last_export = out;
    return out;
}

void FileDialog::open(FileAction action, std::optional<MatrixExportRequest> matrix) {
    action_ = action;
    matrix_ = std::move(matrix);
    path_ = default_path(default_name(action, matrix_));
    error_.clear();
    open_now_ = true;
}

nlohmann::json FileDialog::state() const {
    if (!action_) return nullptr;
    return {{"title", title(*action_)},
            {"path", path_},
            {"error", error_.empty() ? nlohmann::json(nullptr) : nlohmann::json(error_)},
            {"typing", typing_},
            {"choose", choose_rect_ ? nlohmann::json(*choose_rect_) : nlohmann::json(nullptr)}};
}

void FileDialog::draw(AppContext& app) {
    if (!action_) return;
    const char* id = "##file dialog";
    if (open_now_) {
        ImGui::OpenPopup(id);
        open_now_ = false;
    }
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.3f),
                            ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x * 0.6f, 0.0f));
    if (!ImGui::BeginPopupModal(id, nullptr, ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_AlwaysAutoResize)) {
        action_.reset();
        return;
    }
    ImGui::TextUnformatted(title(*action_));
    choose_rect_.reset();
    // Focus on the path when the dialog opens, and again after a failure, so that typing
    // fixes the path rather than reaching the window behind (Enter deactivates the field).
    if (ImGui::IsWindowAppearing() || refocus_) ImGui::SetKeyboardFocusHere();
    refocus_ = false;
    ImGui::SetNextItemWidth(-1.0f);
    const bool enter = ImGui::InputText("##path", &path_, ImGuiInputTextFlags_EnterReturnsTrue);
    typing_ = ImGui::IsItemActive();
    if (!error_.empty()) ImGui::TextColored(ui_color(ui_colors().error), "%s", error_.c_str());
    bool close = false;
    const bool opens = *action_ == FileAction::OpenSession || *action_ == FileAction::OpenModel ||
                       *action_ == FileAction::CheckAttention;
    // In the browser a file to open comes from its file picker, and opens as it arrives.
    std::string refused;
    const std::optional<std::string> picked = opens ? platform::picked_file("dialog", refused) : std::nullopt;
    if (picked) path_ = *picked;
    if (!refused.empty()) error_ = refused;
    if (ImGui::Button(opens ? "Open" : "Save") || enter || picked) {
        const FileOutcome out = run_file_action(*action_, path_, app, matrix_);
        error_ = out.error;
        close = out.error.empty();
        refocus_ = !close;
    }
    if (opens && platform::has_file_picker()) {
        ImGui::SameLine();
        if (ImGui::Button("Choose a file…")) platform::pick_file("dialog");
        const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
        choose_rect_ = {lo.x, lo.y, hi.x, hi.y};
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) close = true;
    if (close) {
        ImGui::CloseCurrentPopup();
        action_.reset();
    }
    ImGui::EndPopup();
}

}  // namespace app

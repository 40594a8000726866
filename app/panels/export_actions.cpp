#include "panels/export_actions.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/stage_files.h"
#include "run/model_run.h"
#include "output/pytorch_emit.h"
#include "output/pytorch_emit_model.h"
#include "stb_image_write.h"
#include "output/trace_json.h"

namespace app {

namespace {

constexpr int kMinPngSide = 256;  // small matrices are upscaled to at least this, whole pixels per cell

template <typename Write>
FileOutcome attempt(const std::string& path, Write write) {
    try {
        write();
        return FileOutcome{path, ""};
    } catch (const std::exception& e) {
        return FileOutcome{path, e.what()};
    }
}

void write_png(const MatrixExportRequest& r, const std::string& path, const HeatmapPainter& painter) {
    const int rows = static_cast<int>(r.values.rows()), cols = static_cast<int>(r.values.cols());
    if (rows == 0 || cols == 0) throw attn::ExportError("the matrix is empty");
    const int k = std::max(1, kMinPngSide / std::max(rows, cols));
    const int w = cols * k, h = rows * k;
    const Rgb stripe = painter.maps().stops("masked").back().rgb, bg = painter.maps().stops("masked").front().rgb;
    std::vector<unsigned char> px(static_cast<size_t>(w) * static_cast<size_t>(h) * 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float v = r.values(y / k, x / k);
            const bool masked = std::isinf(v) || (r.masked_by && (*r.masked_by)(y / k, x / k) > 0.5f &&
                                                  r.scale.mode != ColorMode::Mask);
            // The same diagonal stripes as shaders/heatmap.frag: masked is not a number.
            const Rgb c = masked ? ((x + y) % 8 < 3 ? stripe : bg) : painter.color_of(r.scale, v);
            for (int i = 0; i < 3; ++i)
                px[(static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)) * 3 + static_cast<size_t>(i)] =
                    static_cast<unsigned char>(std::lround(std::clamp(c[static_cast<size_t>(i)], 0.0f, 1.0f) * 255.0f));
        }
    stbi_flip_vertically_on_write(0);
    std::string png;
    const auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<size_t>(size));
    };
    if (!stbi_write_png_to_func(append, &png, w, h, 3, px.data(), w * 3))
        throw attn::ExportError("cannot write " + path + ": PNG encoding failed");
    attn::write_file_atomically(path, [&](std::ostream& out) { out << png; });  // whole or not at all, as the others
}

nlohmann::json matrix_json(const attn::Matrix& m) {
    nlohmann::json rows = nlohmann::json::array();
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        nlohmann::json row = nlohmann::json::array();
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            row.push_back(std::isfinite(m(r, c)) ? nlohmann::json(m(r, c)) : nlohmann::json(nullptr));  // as the CLI
        rows.push_back(row);
    }
    return rows;
}

}  // namespace

FileOutcome save_matrix(const MatrixExportRequest& r, const std::string& path, const HeatmapPainter& painter) {
    return attempt(path, [&] {
        if (r.format == "png") return write_png(r, path, painter);
        attn::write_file_atomically(path, [&](std::ostream& out) {
            if (r.format == "csv") attn::write_csv(out, r.values);
            else if (r.format == "npy") attn::write_npy(out, r.values);
            else out << matrix_json(r.values).dump() << '\n';
        });
    });
}

FileOutcome export_all_stages(const std::string& dir, const attn::Run& run) {
    return attempt(dir, [&] { attn::export_run(dir, run); });
}

FileOutcome export_trace_json(const std::string& path, const attn::Run& run) {
    return attempt(path, [&] {
        attn::write_file_atomically(path, [&](std::ostream& out) { attn::write_run_json(out, run, {}, std::nullopt); });
    });
}

std::string pytorch_program(const LiveRun& live) {
    const attn::Run* run = live.run();
    if (!run) throw attn::ExportError("nothing computed yet");
    const attn::ModelRun* model = live.model_run();
    if (!model) return attn::emit_pytorch(live.run_settings(), *run);
    attn::Settings shown = live.run_settings();
    shown.layer = std::max(model->layer, 0);
    shown.head = live.shown_head();
    return attn::emit_model_pytorch(shown, *model, /*generated_in_view=*/true);
}

FileOutcome save_pytorch(const std::string& path, const LiveRun& live) {
    return attempt(path, [&] {
        const std::string program = pytorch_program(live);  // before the file: a refusal leaves none
        attn::write_file_atomically(path, [&](std::ostream& out) { out << program; });
    });
}

std::string default_path(const std::string& name) { return (std::filesystem::current_path() / name).string(); }

}  // namespace app

#pragma once
// What the app writes to files: one matrix (PNG through the colour map, CSV, JSON,
// .npy), every stage of the run, the CLI's trace JSON and the PyTorch program. Each
// returns what it wrote or why it could not, for the message shown in place.
#include <string>

#include "state/view_state.h"
#include "graphics/heatmap.h"
#include "views/matrix_widget.h"
#include "attention/pipeline.h"

namespace app {

FileOutcome save_matrix(const MatrixExportRequest& request, const std::string& path, const HeatmapPainter& painter);
FileOutcome export_all_stages(const std::string& dir, const attn::Run& run);
FileOutcome export_trace_json(const std::string& path, const attn::Run& run);
FileOutcome save_pytorch(const std::string& path, const attn::Settings& settings, const attn::Run& run);

// The file name a save dialog proposes: in the current directory.
std::string default_path(const std::string& name);

}  // namespace app

#pragma once
// What the app writes to files: one matrix (PNG through the colour map, CSV, JSON,
// .npy), every stage of the run, the CLI's trace JSON and the PyTorch program. Each
// returns what it wrote or why it could not, for the message shown in place.
#include <string>

#include "state/live_run.h"
#include "state/view_state.h"
#include "graphics/heatmap.h"
#include "views/matrix_widget.h"
#include "run/pipeline.h"

namespace app {

FileOutcome save_matrix(const MatrixExportRequest& request, const std::string& path, const HeatmapPainter& painter);
FileOutcome export_all_stages(const std::string& dir, const attn::Run& run);
FileOutcome export_trace_json(const std::string& path, const attn::Run& run);
// The program of "Copy as PyTorch" and "Save PyTorch as .py": the run on screen's. For a
// GPT model, the model's program on the tokens in view (those generated included), the
// layer on screen and the head shown. Throws a one-line error when it cannot be written
// (the model's file has gone since it loaded).
std::string pytorch_program(const LiveRun& live);
FileOutcome save_pytorch(const std::string& path, const LiveRun& live);

// The file name a save dialog proposes: in the current directory.
std::string default_path(const std::string& name);

}  // namespace app

#pragma once
// A model run (--model) as files other tools read, the CLI's --export DIR:
//   layerL_headH_weights.npy/.csv   every layer's and head's attention weights (T x T)
//   with --layer L --head H, that head's stages as layerL_headH_NAME (W_query ...
//   context) and its layer's as layerL_NAME: inputs, normed, W_out, b_out,
//   attention_output, residual (the names and values of the JSON's "detail")
//   trace.json   the CLI's JSON (model_json.h): next tokens, generated ids, head scores
//   tokens.txt   one line per token: its id, a tab, the token
// --stages filters as it filters the JSON. .npy is float32, C order (stage_files.h).
#include <filesystem>
#include <string>
#include <vector>

#include "run/model_run.h"

namespace attn {

// Returns the names of the files written. Throws ExportError.
std::vector<std::string> export_model_run(const std::filesystem::path& dir, const ModelRun& run,
                                          const std::vector<std::string>& keep = {});

}  // namespace attn

#include "run/run_lens.h"

#include <algorithm>

#include "interventions/logit_lens.h"

namespace attn {

size_t lens_entries(const ModelRun& run) { return run.trace->blocks.size() + 1; }

void read_next_lens_entry(ModelRun& run, int top) {
    const ModelTrace& trace = *run.trace;
    const size_t entry = run.lens.size();
    if (entry == 0) {
        const int64_t last = run.next_position, first = std::max<int64_t>(0, last - kLensPositions + 1);
        run.lens_positions.clear();
        for (int64_t p = first; p <= last; ++p) run.lens_positions.push_back(p);
    }
    // The last block's outputs may hold the logits' rows only (ModelTrace::last_rows_only):
    // its entry is the run's own logits, as the next tokens are.
    if (entry + 1 == lens_entries(run)) {
        auto& output = run.lens.emplace_back();
        for (const int64_t p : run.lens_positions) output.push_back(top_next_tokens(run_logits_at(run, p), top));
        return;
    }
    const Matrix& residual = entry == 0 ? trace.embeddings : trace.blocks[entry - 1].outputs;
    Matrix rows(static_cast<Eigen::Index>(run.lens_positions.size()), residual.cols());  // P x d
    for (size_t i = 0; i < run.lens_positions.size(); ++i)
        rows.row(static_cast<Eigen::Index>(i)) = residual.row(run.lens_positions[i]);
    run.lens.push_back(read_residual(*run.model.model, rows, top));
}

void read_run_lens(ModelRun& run, int top) {
    run.lens.clear();
    while (run.lens.size() < lens_entries(run)) read_next_lens_entry(run, top);
}

}  // namespace attn

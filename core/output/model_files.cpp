#include "output/model_files.h"

#include <algorithm>

#include "attention/stage_catalogue.h"
#include "output/model_json.h"
#include "output/stage_files.h"

namespace attn {

std::vector<std::string> export_model_run(const std::filesystem::path& dir, const ModelRun& run,
                                          const std::vector<std::string>& keep) {
    ExportDir out(dir);
    const std::vector<BlockTrace>& blocks = run.trace->blocks;
    for (size_t l = 0; l < blocks.size(); ++l)
        for (size_t h = 0; h < blocks[l].attention.heads.size(); ++h)
            if (stage_kept(keep, "weights"))
                out.matrix(layer_head_file(static_cast<int>(l), static_cast<int>(h)) + "_weights",
                           blocks[l].attention.heads[h].at("weights"));

    if (run.layer >= 0) {  // what the JSON's "detail" holds, in the same order
        const BlockTrace& block = blocks[static_cast<size_t>(run.layer)];
        const std::string layer = "layer" + std::to_string(run.layer) + "_";
        const std::string head = layer_head_file(run.layer, run.head) + "_";
        out.matrix(layer + "inputs", block.inputs);
        out.matrix(layer + "normed", block.normed1);
        for (const Stage& s : block.attention.heads[static_cast<size_t>(run.head)].stages)
            // weights: written with every head's above
            if (s.name != "weights" && stage_kept(keep, s.name))
                out.matrix(head + s.name, s.value, s.rows == Axis::One);
        if (const Stage* W_out = block.attention.model.find("W_out")) out.matrix(layer + "W_out", W_out->value);  // a GPT's out_proj
        if (const Stage* b_out = block.attention.model.find("b_out")) out.matrix(layer + "b_out", b_out->value, /*as_vector=*/true);
        out.matrix(layer + "attention_output", block.attention.output[0]);
        out.matrix(layer + "residual", block.residual1);
    }

    out.file("trace.json", [&](std::ostream& o) { write_model_json(o, run, keep); });
    out.file("tokens.txt", [&](std::ostream& o) { write_tokens_txt(o, run.tokens); });
    return out.written;
}

}  // namespace attn

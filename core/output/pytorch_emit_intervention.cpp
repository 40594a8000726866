// A model's program with heads switched off or patched: forward pre-hooks on the output
// projections change each head's slice of z (what out_proj / o_proj reads), as
// core/interventions/hooked_run.cpp does, and the program prints the changed run's next
// tokens beside the baseline's.
#include <sstream>

#include "output/pytorch_emit_parts.h"

namespace attn::pytorch_emit_parts {

namespace {

std::string heads_list(const std::vector<HeadSite>& heads) {
    std::string out = "[";
    for (size_t i = 0; i < heads.size(); ++i)
        out += (i ? ", (" : "(") + std::to_string(heads[i].layer) + ", " + std::to_string(heads[i].head) + ")";
    return out + "]";
}

}  // namespace

void emit_intervention(std::ostream& py, const ModelProgram& p, const std::string& o_proj) {
    const Intervention& how = *p.intervention;
    const bool patch = how.kind == Intervention::Kind::Patch;
    const char* mode = patch ? "patch" : how.kind == Intervention::Kind::Mean ? "mean" : "zero";
    const int head_dim = model_shape(p.run.model).head_dim;
    py << "\n\n" << section("The intervention: forward pre-hooks on the output projections")
       << "# A head's output z is its context vectors, its slice of what the layer's output projection reads.\n"
       << "# A pre-hook on that nn.Linear changes the slice before the projection (its bias is still added):\n"
       << "# zero: set to 0; mean: set to its mean over the positions as the hook sees them; patch: taken from\n"
       << "# the run of another text of as many tokens. Everything after it is computed from the changed stream.\n"
       << "HEADS = " << heads_list(how.heads) << "  # (layer, head), both from 0\n"
       << "MODE = \"" << mode << "\"\n"
       << "POSITIONS = " << (how.positions.empty() ? "None  # every position" : py_ints(how.positions, 12)) << "\n"
       << "HEAD_DIM = " << head_dim << "\n"
       << "\n"
       << "\n"
       << "def o_proj(layer):\n"
       << "    return " << o_proj << "\n"
       << "\n"
       << "\n";
    if (patch)
        py << "# The patch's source: its tokens, and each layer's z as a hook records it.\n"
           << "patch_ids = " << py_ints(p.patch_ids, 12) << "\n"
           << "source_z = {}\n"
           << "\n"
           << "\n"
           << "def record(layer):\n"
           << "    def hook(module, inputs):\n"
           << "        source_z[layer] = inputs[0].detach().clone()\n"
           << "    return hook\n"
           << "\n"
           << "\n";
    py << "def change(layer):\n"
       << "    def hook(module, inputs):\n"
       << "        z = inputs[0].clone()  # [..., tokens, heads * head_dim]\n"
       << "        rows = POSITIONS if POSITIONS is not None else list(range(z.shape[-2]))\n"
       << "        for l, h in HEADS:\n"
       << "            if l != layer:\n"
       << "                continue\n"
       << "            cols = slice(h * HEAD_DIM, (h + 1) * HEAD_DIM)\n"
       << "            if MODE == \"zero\":\n"
       << "                z[..., rows, cols] = 0.0\n"
       << "            elif MODE == \"mean\":\n"
       << "                z[..., rows, cols] = inputs[0][..., :, cols].mean(dim=-2, keepdim=True)\n"
       << "            else:\n"
       << "                z[..., rows, cols] = source_z[layer][..., rows, cols]\n"
       << "        return (z,)\n"
       << "    return hook\n";
    if (patch)
        py << "\n"
           << "\n"
           << "recording = [o_proj(layer).register_forward_pre_hook(record(layer)) for layer in sorted({l for l, _ in HEADS})]\n"
           << "with torch.no_grad():\n"
           << "    model(torch.tensor([patch_ids]))\n"
           << "for handle in recording:\n"
           << "    handle.remove()\n";
}

std::string hooked_forward_lines(const ModelProgram& p) {
    if (!p.intervention) return "";
    return "with torch.no_grad():\n"
           "    baseline_logits = model(idx)  # without the intervention\n"
           "hooks = [o_proj(layer).register_forward_pre_hook(change(layer)) for layer in sorted({l for l, _ in HEADS})]\n";
}

std::string unhook_lines(const ModelProgram& p) {
    if (!p.intervention) return "";
    const bool last = p.run.next_position + 1 == static_cast<int64_t>(p.run.tokens.ids.size());
    return "for handle in hooks:\n"
           "    handle.remove()\n"
           "baseline_top = torch.topk(torch.softmax(baseline_logits[0, " +
           (last ? std::string("-1") : std::to_string(p.run.next_position)) + "], dim=-1), " +
           std::to_string(p.run.next_tokens.size()) + ")\n";
}

}  // namespace attn::pytorch_emit_parts

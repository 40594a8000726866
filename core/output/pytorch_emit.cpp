// emit_pytorch: the program, section by section. This file writes its header, the
// classes section, the forward pass, the JSON and the main block; the other sections and
// the classes come from the files pytorch_emit_parts.h lists.
#include "output/pytorch_emit.h"

#include <algorithm>
#include <sstream>

#include "run/model_run.h"
#include "output/pytorch_emit_model.h"
#include "output/pytorch_emit_parts.h"

namespace attn {

namespace pytorch_emit_parts {

namespace {

void emit_header(std::ostream& py, const Settings& s, const Run& run, const Plan& plan) {
    const std::size_t T = run.tokens.ids.size();
    std::string embedding;
    if (run.embedding == "book") embedding = "the book's hand-written 3-d embedding of its sentence";
    else embedding = "a seeded nn.Embedding table of " + std::to_string(s.d_in) + "-d vectors";
    if (s.pos) embedding += " plus positional embeddings";
    py << "# attnscope, reproduced in PyTorch: " << plan.title << ".\n"
       << "#\n"
       << "# This program computes, with the code of \"Build a Large Language Model (From Scratch)\"\n"
       << "# and its companion notebooks, what attnscope shows for\n"
       << "#\n"
       << "#     " << cli_command(s) << "\n"
       << "#\n"
       << "# on a text of " << T << (T == 1 ? " token" : " tokens") << " (" << embedding << ").\n"
       << "# Run it with PyTorch (python3 this_file.py): it prints the key tensors as the book does,\n"
       << "# then, as its last line, the JSON object that command prints: every stage of the\n"
       << "# forward pass, masked scores (-inf) written as null. With --json it prints only the JSON.\n"
       << "# Lines marked \"attnscope\" are additions to the book's code: they record the stages.\n"
       << "#\n"
       << "# Written by attnscope-cli --emit-pytorch.\n"
       << "import json\n"
       << "import sys\n"
       << "\n"
       << "import torch\n";
    if (plan.cls) py << "import torch.nn as nn\n";
    py << "\n\n";
}

void emit_classes(std::ostream& py, const Plan& plan) {
    if (!plan.cls) return;  // 3.3 has no class
    const std::vector<std::string> blocks = plan.cls->definitions(plan.cfg);
    py << "\n\n" << section("The attention module");
    for (std::size_t i = 0; i < blocks.size(); ++i) py << (i ? "\n\n" : "") << blocks[i];
}

std::string batch_stack(const std::string& inputs, int batch) {
    if (batch == 1) return "torch.stack((" + inputs + ",), dim=0)  # a batch of one text";
    if (batch == 2) return "torch.stack((" + inputs + ", " + inputs + "), dim=0)  # the text twice, as the book stacks it";
    return "torch.stack([" + inputs + "] * " + std::to_string(batch) + ", dim=0)  # --batch " + std::to_string(batch) +
           ": the text " + std::to_string(batch) + " times";
}

// Builds the module, runs it; defines the output as `context_vecs` (all_context_vecs for 3.3).
void emit_forward(std::ostream& py, const Plan& plan, const Names& names) {
    const AttentionConfig& c = plan.cfg;
    const int B = c.batch;
    py << "\n\n" << section("The forward pass");
    if (!plan.cls) {
        py << "attn_scores = " << names.inputs << " @ " << names.inputs << ".T\n"
           << "attn_weights = torch.softmax(attn_scores, dim=-1)\n"
           << "all_context_vecs = attn_weights @ " << names.inputs << "\n"
           << "\n"
           << "# attnscope: the stages, for the JSON at the end\n"
           << "trace = {\"scores\": attn_scores, \"weights\": attn_weights, \"context\": all_context_vecs}\n";
        return;
    }
    if (plan.batched) py << "batch = " << batch_stack(names.inputs, B) << "\n\n";
    py << "torch.manual_seed(" << c.seed << ")\n";
    const std::string& m = plan.object;
    py << plan.cls->construct(c, m, names);

    const bool cross = variant_info(c.variant).second_text;
    if (cross) {
        py << "\nfirst_input = " << names.inputs << "\n";
        if (names.inputs2.empty())
            py << "second_input = torch.rand(" << c.kv_len << ", d_in)  # seed 004: drawn right after the module's weights\n";
        else
            py << "second_input = " << names.inputs2 << "\n";
    }
    if (plan.batched) {
        if (!c.training) py << m << ".eval()  # attnscope --eval: evaluation mode, dropout does nothing\n";
        if (c.dropout_seed)
            py << "\ntorch.manual_seed(" << *c.dropout_seed
               << ")  # attnscope --dropout-seed: re-seed right before the forward, as the book does before dropout\n";
        if (plan.kv_cache)
            py << "# use_cache=True: the forward also fills the module's KV cache, which the JSON's kv_cache\n"
               << "# weighs. On an empty cache the numbers are those of use_cache=False.\n"
               << "context_vecs = " << m << "(batch, use_cache=True)\n";
        else
            py << "context_vecs = " << m << "(batch)\n";
        return;
    }
    const std::string args = cross ? "(first_input, second_input)" : "(" + names.inputs + ")";
    const std::string arg_b = cross ? "(x, second_input)" : "(x)";
    if (B == 1) {
        py << "\ncontext_vecs = " << m << args << "\n";
    } else {
        py << "\nbatch = " << batch_stack(cross ? "first_input" : names.inputs, B) << "\n"
           << "# This class takes one text at a time: one forward per batch element. Every element is\n"
           << "# the same text, so the stages recorded by the last call are element 0's too.\n"
           << "context_vecs = torch.stack([" << m << arg_b << " for x in batch])\n";
    }
}

std::string head_list(const Plan& plan) {
    if (!plan.cls) return "[stages(trace)]";
    switch (plan.cls->heads) {
    case HeadsAre::Listed: return "[stages(head.trace) for head in " + plan.object + ".heads]";
    case HeadsAre::Split: return "[stages(head) for head in " + plan.object + ".trace[\"heads\"]]";
    case HeadsAre::One: break;
    }
    return "[stages(" + plan.object + ".trace)]";
}

void emit_json(std::ostream& py, const Settings& s, const Run& run, const Plan& plan, const Names& names) {
    const AttentionConfig& c = plan.cfg;
    const bool out_3d = plan.batched || (c.batch > 1 && plan.cls);
    const bool split = plan.cls && plan.cls->heads == HeadsAre::Split;
    py << "\n\n" << section("The trace, as attnscope-cli prints it")
       << "def plain(t):\n"
       << "    \"\"\"A tensor as nested lists of floats, with -inf (a masked score) as None: JSON has\n"
       << "    no infinity, so attnscope writes null there.\"\"\"\n"
       << "    def fix(v):\n"
       << "        if isinstance(v, list):\n"
       << "            return [fix(e) for e in v]\n"
       << "        return None if v == float(\"-inf\") else v\n"
       << "    return fix(t.tolist())\n"
       << "\n\n"
       << "def stages(trace):\n"
       << "    return {name: plain(t) if torch.is_tensor(t) else t for name, t in trace.items()}  # a number as it is\n"
       << "\n\n";
    if (plan.kv_cache) py << kv_cache_helper() << "\n\n";
    py << "def attnscope_json():\n"
       << "    return {\n"
       << "        \"variant\": " << py_str(variant_name(c.variant)) << ",\n"
       << "        \"tokens\": tokens,\n"
       << "        \"token_ids\": token_ids,\n";
    if (run.tokens2) py << "        \"tokens2\": tokens2,\n        \"token_ids2\": token_ids2,\n";
    py << "        \"embedding\": " << py_str(run.embedding) << ",\n"
       << "        \"token_embeddings\": plain(" << names.token_embeddings << "),\n";
    if (s.pos) py << "        \"pos_embeddings\": plain(" << names.pos_embeddings << "),\n";
    py << "        \"inputs\": plain(" << names.inputs << "),\n";
    if (variant_info(c.variant).second_text) py << "        \"inputs2\": plain(second_input),\n";
    if (split)
        py << "        **stages(" << plan.object << ".trace[\"module\"]),  # concat, out_proj's weights, ...\n";
    else if (c.heads > 1)
        py << "        \"concat\": plain(context_vecs" << (out_3d ? "[0]" : "") << "),  # the heads side by side\n";
    py << "        \"heads\": " << head_list(plan) << ",\n";
    if (plan.kv_cache) py << "        \"kv_cache\": " << plan.cls->kv_cache(plan.object) << ",\n";
    if (!plan.cls)
        py << "        \"output\": [plain(all_context_vecs)] * " << c.batch << ",  # one per batch element\n";
    else if (out_3d)
        py << "        \"output\": plain(context_vecs),\n";
    else
        py << "        \"output\": [plain(context_vecs)],  # a batch of one\n";
    py << "    }\n";
}

std::string weights_expr(const Plan& plan) {
    if (!plan.cls) return "attn_weights";
    switch (plan.cls->heads) {
    case HeadsAre::Listed: return plan.object + ".heads[0].trace[\"weights\"]";
    case HeadsAre::Split: return plan.object + ".trace[\"heads\"][0][\"weights\"]";
    case HeadsAre::One: break;
    }
    return plan.object + ".trace[\"weights\"]";
}

void emit_main(std::ostream& py, const Plan& plan, const Names& names) {
    const bool several = plan.cfg.heads > 1 || (plan.cls && plan.cls->heads != HeadsAre::One);
    const bool batch0 = plan.batched;
    const std::string out = plan.cls ? "context_vecs" : "all_context_vecs";
    py << "\n\nif __name__ == \"__main__\":\n"
       << "    if sys.argv[1:] != [\"--json\"]:  # the book's prints; --json leaves only the JSON line\n"
       << "        print(" << names.print_tokens << ")\n"
       << "        print(" << names.inputs << ")\n";
    if (!plan.cls) py << "        print(attn_scores)\n";
    py << "        print(" << weights_expr(plan) << ")  # attention weights"
       << (several ? " of head 0" : "") << (batch0 ? ", batch element 0" : "") << "\n"
       << "        print(" << out << ")\n"
       << "        print(\"" << out << ".shape:\", " << out << ".shape)\n"
       << "    print(json.dumps(attnscope_json()))\n";
}

}  // namespace

}  // namespace pytorch_emit_parts

std::string emit_pytorch(const Settings& s, const Run& run) {
    using namespace pytorch_emit_parts;
    if (run.model) {  // a model's layer, as the app shows it: the model's program
        Settings shown = s;
        shown.layer = std::max(run.model->layer, 0);
        shown.head = s.head.value_or(std::max(run.model->head, 0));
        return emit_model_pytorch(shown, *run.model, true);
    }
    const Plan plan = plan_for(s);
    Names names;
    std::ostringstream py;
    emit_header(py, s, run, plan);
    emit_text(py, s, run, names);
    emit_embedding(py, s, run, names);
    emit_classes(py, plan);
    emit_forward(py, plan, names);
    emit_json(py, s, run, plan, names);
    emit_main(py, plan, names);
    return py.str();
}

}  // namespace attn

// emit_model_pytorch: a model's program, section by section. This file writes a GPT
// model's header, the tokens, the forward pass with its prints and the JSON; its classes and
// the model come from pytorch_emit_model_weights.cpp, a Llama-family model's header, classes,
// model and forward from pytorch_emit_llama.cpp (the tokens, prints and JSON are these).
#include "output/pytorch_emit_model.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "run/pipeline.h"
#include "output/cli_command.h"
#include "output/pytorch_emit_parts.h"
#include "output/stage_files.h"  // ExportError
#include "run/switched_off.h"
#include "text/gpt2_tokenizer.h"

namespace attn {

namespace pytorch_emit_parts {

std::string plural(std::size_t n, const std::string& one) { return std::to_string(n) + " " + one + (n == 1 ? "" : "s"); }

namespace {

// The position whose next tokens the run lists (--next-at): the last is -1, as the book
// indexes it; another its 0-based index.
bool next_at_last(const ModelRun& run) { return run.next_position + 1 == static_cast<int64_t>(run.tokens.ids.size()); }
std::string next_index(const ModelProgram& p) { return next_at_last(p.run) ? "-1" : std::to_string(p.run.next_position); }
std::string next_tokens_comment(const ModelProgram& p) {
    const std::string n = std::to_string(p.run.next_tokens.size()), at = std::to_string(p.run.next_position);
    return next_at_last(p.run) ? "# The next token: the softmax of the last position's logits, its " + n + " most probable ids.\n"
                               : "# The next token after position " + at + " (tokens[" + at + "], --next-at " + at +
                                     "): the softmax of its logits,\n# its " + n + " most probable ids.\n";
}

}  // namespace

std::string what_it_prints(const ModelProgram& p, const std::string& head, const std::string& encoding) {
    const ModelRun& run = p.run;
    std::ostringstream py;
    const std::size_t in_view = run.tokens.ids.size() - p.prompt;
    if (in_view > 0)
        py << "# and the " << plural(in_view, "token") << " attnscope's window generated after the text: it reads the\n"
           << "# text's " << plural(p.prompt, "token") << " and those, " << run.tokens.ids.size() << " in all, as the window showed them.\n"
           << "#\n";
    py << "# Run it with PyTorch (python3 this_file.py; no other package): it prints layer " << p.layer << "'s\n"
       << "# " << head << ", the " << run.next_tokens.size() << " most probable next tokens"
       << (next_at_last(run) ? "" : " after position " + std::to_string(run.next_position))
       << (p.generate ? " and the " + plural(static_cast<std::size_t>(p.generate),
                                             p.sampling.sampled() ? "sampled token" : "greedy token")
                      : std::string())
       << ",\n"
       << "# then, as its last line, the same as JSON, named as attnscope-cli's JSON names them:\n"
       << "# layers[" << p.layer << "][\"heads\"][" << p.head << "][\"weights\"]"
       << (p.generate ? ", next_token and generated" : " and next_token") << ". With --json it prints only that line.\n"
       << "# It encodes nothing itself: the token ids are "
       << (p.ids_given ? "those attnscope was given (--ids)" : "attnscope's " + encoding) << ".\n";
    return py.str();
}

std::string next_token_lines(const ModelProgram& p) {
    return next_tokens_comment(p) +
           (next_at_last(p.run) || p.generate == 0 ? ""
                                                    : "# (Generation continues after the last position: logits[0, -1].)\n") +
           "probas = torch.softmax(logits[0, " + next_index(p) + "], dim=-1)\n" +
           "top = torch.topk(probas, " + std::to_string(p.run.next_tokens.size()) + ")\n";
}

std::string generation_lines(const ModelProgram& p) {
    std::ostringstream py;
    if (p.generate > 0 && !p.sampling.sampled())
        py << "\n"
           << "# Chapter 4's greedy generation: the most probable next token, appended, " << p.generate
           << (p.generate == 1 ? " time" : " times") << ".\n"
           << "out = generate_text_simple(model=model, idx=idx, max_new_tokens=" << p.generate << ",\n"
           << "                           context_size=" << p.config << "[\"context_length\"])\n"
           << "generated = out[0, len(token_ids):].tolist()\n";
    if (p.generate > 0 && p.sampling.sampled()) {
        const std::string top_k = p.sampling.top_k ? std::to_string(*p.sampling.top_k) : "None";
        py << "\n"
           << "# Chapter 5's generate: " << (p.sampling.top_k ? "the " + top_k + " largest logits, " : std::string())
           << "divided by the temperature, then\n"
           << "# torch.multinomial on their softmax, " << p.generate << (p.generate == 1 ? " time" : " times")
           << ", its random stream seeded once before.\n"
           << "torch.manual_seed(" << p.sampling.seed << ")\n"
           << "out = generate(model=model, idx=idx, max_new_tokens=" << p.generate << ",\n"
           << "               context_size=" << p.config << "[\"context_length\"], top_k=" << top_k
           << ", temperature=" << py_float(p.sampling.temperature) << ")\n"
           << "generated = out[0, len(token_ids):].tolist()\n";
    }
    return py.str();
}

namespace {

void emit_header(std::ostream& py, const ModelProgram& p) {
    const ModelRun& run = p.run;
    const GptConfig& c = run.model.model->gpt_weights()->cfg;
    const std::string what = run.model.file.empty() ? "chapter 4's GPTModel, seeded " + std::to_string(run.model.seed) +
                                                          " and untrained"
                                                    : "the checkpoint " + run.model.name;
    py << "# attnscope, reproduced in PyTorch: " << what << ",\n"
       << "# " << plural(static_cast<std::size_t>(c.n_layers), "layer") << " of "
       << plural(static_cast<std::size_t>(c.n_heads), "head") << ", " << c.emb_dim << "-d embeddings.\n"
       << "#\n"
       << "# This program runs, with the code of \"Build a Large Language Model (From Scratch)\" (chapter 4's\n"
       << "# GPTModel" << (p.generate && !p.sampling.sampled() ? " and generate_text_simple" : "")
       << (run.model.file.empty() ? "" : ", chapter 5's load_weights_into_gpt")
       << (p.generate && p.sampling.sampled() ? ", chapter 5's generate" : "") << "), what attnscope shows for\n"
       << "#\n"
       << "#     " << p.command << "\n"
       << "#\n";
    py << what_it_prints(p, "head " + std::to_string(p.head) + "'s attention weights", "GPT-2 byte-pair encoding")
       << "#\n"
       << "# Written by " << (p.app ? "attnscope's File > Copy as PyTorch" : "attnscope-cli --emit-pytorch") << ".\n"
       << "import json\n"
       << (p.file.empty() ? "" : "import struct\n")  // the safetensors reader's
       << "import sys\n"
       << "\n"
       << (p.file.empty() ? "" : "import numpy as np\n")
       << "import torch\n"
       << "import torch.nn as nn\n";
}

void emit_tokens(std::ostream& py, const Settings& s, const ModelProgram& p) {
    const ModelRun& run = p.run;
    py << "\n\n" << section("The text and its tokens")
       << (p.ids_given ? "# The token ids attnscope was given (--ids), as they are: the text is not read.\n"
           : run.model.model->llama_weights() ? "# The encoding of the text by the model's tokenizer.json (the ids of Hugging Face's tokenizers),\n"
                               "# as attnscope computed it, written out: this program needs no tokenizer.\n"
                             : "# GPT-2's byte-pair encoding of the text (tiktoken.get_encoding(\"gpt2\")'s ids), as attnscope\n"
                               "# computed it, written out: this program needs no tokenizer.\n");
    const std::size_t extra = run.tokens.ids.size() - p.prompt;
    if (extra > 0)
        py << "# The last " << plural(extra, "id") << " are the tokens attnscope generated after the text.\n";
    py << "text = " << py_str(s.text) << "\n"
       << "token_ids = " << py_ints(run.tokens.ids, 13) << "\n"
       << "tokens = " << py_strs(run.tokens.tokens, 10) << "  # each id as attnscope shows it\n";
    // The prints name the tokens they list; the program has no vocabulary, so attnscope
    // writes the few it will meet (those of the model in the file: another file may differ).
    std::map<int64_t, std::string> texts;
    for (std::size_t i = 0; i < run.tokens.ids.size(); ++i) texts[run.tokens.ids[i]] = run.tokens.tokens[i];
    for (const TokenProbability& t : run.next_tokens) texts.emplace(t.id, model_token_text(run.model, t.id));
    if (p.generate > 0)
        for (const int64_t id : run.generated) texts.emplace(id, model_token_text(run.model, id));
    std::vector<std::string> items;
    for (const auto& [id, text] : texts) items.push_back(std::to_string(id) + ": " + py_str(text));
    std::string dict = py_list(items, 13);
    dict.front() = '{';
    dict.back() = '}';
    py << "# For the prints: the texts of the ids attnscope's run met (tokens, next tokens, generated).\n"
       << "TOKEN_TEXT = " << dict << "\n";
}

void emit_forward(std::ostream& py, const ModelProgram& p) {
    py << "\n\n" << section("The forward pass")
       << "layer, head = " << p.layer << ", " << p.head << "  # the head attnscope shows (--layer " << p.layer << " --head "
       << p.head << ")\n"
       << "attention = model.trf_blocks[layer].att\n"
       << "attention.keep_weights = True  # attnscope: keep the softmax weights of this block's heads\n"
       << "idx = torch.tensor([token_ids])  # a batch of one text\n"
       << hooked_forward_lines(p)
       << "with torch.no_grad():\n"
       << "    logits = model(idx)\n"
       << "attention.keep_weights = False\n"
       << unhook_lines(p)
       << "attn_weights = attention.last_weights[0, head]  # [queries, keys]: rows sum to 1, the future is 0\n"
       << "\n"
       << next_token_lines(p);
    py << generation_lines(p);
}

void emit_json_and_main(std::ostream& py, const ModelProgram& p) {
    py << "\n\n" << section("The numbers, as attnscope-cli prints them")
       << "def attnscope_json():\n"
       << "    return {\n"
       << "        \"token_ids\": token_ids,\n"
       << "        \"layer\": layer,\n"
       << "        \"head\": head,\n"
       << "        \"weights\": attn_weights.tolist(),  # attnscope-cli's layers[layer][\"heads\"][head][\"weights\"]\n"
       << "        \"next_token\": [{\"id\": i, \"prob\": p} for i, p in zip(top.indices.tolist(), top.values.tolist())],\n"
       << "        \"next_token_position\": " << p.run.next_position << ",\n";
    if (p.intervention)
        py << "        \"baseline_next_token\": [{\"id\": i, \"prob\": p} for i, p in zip(baseline_top.indices.tolist(),\n"
           << "                                                                  baseline_top.values.tolist())],\n";
    if (p.generate > 0) py << "        \"generated\": generated,\n";
    py << "    }\n"
       << "\n\n"
       << "if __name__ == \"__main__\":\n"
       << "    if sys.argv[1:] != [\"--json\"]:  # the prints; --json leaves only the JSON line\n"
       << "        print(\"token ids:\", token_ids)\n"
       << "        print(f\"layer {layer}, head {head}: attention weights (rows: queries, columns: keys)\")\n"
       << "        print(attn_weights)\n"
       << "        print(\"the most probable next tokens after position " << p.run.next_position
       << " (id, probability, text):\")\n"
       << "        for i, p in zip(top.indices.tolist(), top.values.tolist()):\n"
       << "            print(f\"{i:8d}  {p:.6f}  {TOKEN_TEXT.get(i, '?')!r}\")\n";
    if (p.generate > 0)
        py << "        print(\"generated:\", generated, [TOKEN_TEXT.get(i, \"?\") for i in generated])\n";
    py << "    print(json.dumps(attnscope_json()))\n";
}

}  // namespace

}  // namespace pytorch_emit_parts

namespace {

// The flags besides the settings' that give `how` (the patch's source as ids): --ablate's
// heads are a setting, in cli_command's line already.
std::string intervention_flags(const Intervention& how, const std::vector<int64_t>& patch_ids) {
    const auto join = [](const auto& items, auto text) {
        std::string out;
        for (const auto& item : items) out += (out.empty() ? "" : ",") + text(item);
        return out;
    };
    const std::string heads = join(how.heads, [](const HeadSite& h) { return layer_head(h); });
    const std::string positions = join(how.positions, [](int64_t t) { return std::to_string(t); });
    if (how.kind == Intervention::Kind::Patch)
        return " --patch " + heads + " --patch-from-ids " + join(patch_ids, [](int64_t t) { return std::to_string(t); }) +
               (positions.empty() ? "" : " --patch-at " + positions);
    return std::string(how.kind == Intervention::Kind::Mean ? " --ablate-mode mean" : "") +
           (positions.empty() ? "" : " --ablate-at " + positions);
}

std::string program(const Settings& s, const ModelRun& run, bool generated_in_view, const InterventionRun* iv);

}  // namespace

std::string emit_model_pytorch(const Settings& s, const ModelRun& run, bool generated_in_view) {
    return program(s, run, generated_in_view, nullptr);
}

std::string emit_intervention_pytorch(const Settings& s, const ModelRun& run, const InterventionRun& iv) {
    if (iv.intervention.heads.empty()) throw InputError("the run switches no head off and patches none");
    return program(s, run, false, &iv);
}

namespace {

std::string program(const Settings& s, const ModelRun& run, bool generated_in_view, const InterventionRun* iv) {
    using namespace pytorch_emit_parts;
    const ModelShape shape = model_shape(run.model);
    ModelProgram p(run);
    p.layer = s.layer.value_or(0);
    p.head = s.head.value_or(0);
    if (p.layer < 0 || p.layer >= shape.layers || p.layer >= static_cast<int>(run.trace->blocks.size()))
        throw InputError("--layer " + std::to_string(p.layer) + ": the model has " + std::to_string(shape.layers) + " layers");
    if (p.head < 0 || p.head >= shape.heads)
        throw InputError("--head " + std::to_string(p.head) + ": the model has " + std::to_string(shape.heads) + " heads a layer");
    if (run.tokens.ids.empty() || run.next_tokens.empty()) throw InputError("the run has no tokens to reproduce");
    const std::size_t in_view = generated_in_view ? std::min(run.generated.size(), run.tokens.ids.size() - 1) : 0;
    p.prompt = run.tokens.ids.size() - in_view;
    p.generate = generated_in_view ? 0 : static_cast<int>(run.generated.size());
    p.sampling = run.sampler.how();
    p.app = generated_in_view;
    p.ids_given = s.ids.has_value();
    Settings shown = s;  // the CLI's command for the same head, on the text alone
    shown.layer = p.layer;
    shown.head = p.head;
    if (generated_in_view) {  // the program reads the generated tokens: how they came does not matter
        shown.generate = 0;
        shown.sampling = Sampling{};
        // The run's position when the text alone has it and it is not the text's last (a
        // pin past the tokens shows the last's; one on a generated token has no command).
        shown.next_at.reset();
        if (run.next_position + 1 < static_cast<int64_t>(p.prompt)) shown.next_at = static_cast<int>(run.next_position);
    }
    p.command = cli_command(shown);
    // The app's heads switched off or patched (at every position), or the CLI's intervention.
    const Intervention app_change = run_intervention(run);
    p.intervention = iv ? &iv->intervention : app_change.kind != Intervention::Kind::None ? &app_change : nullptr;
    if (p.intervention) {
        const std::optional<Tokenized>& source = iv ? iv->patch_tokens : run.patch_tokens;
        if (source) p.patch_ids = source->ids;
        if (p.intervention->kind == Intervention::Kind::Patch) {  // the command gives the source as ids
            shown.patch.reset();
            shown.patch_from.reset();
        }
        p.command = cli_command(shown) + intervention_flags(*p.intervention, p.patch_ids);
    }
    p.file = model_file_path(run.model);

    std::ostringstream py;
    if (run.model.model->llama_weights()) {  // scripts/llama_family.py's LlamaFamily on the folder's weights
        emit_llama_header(py, p);
        emit_llama_classes(py, p);
        p.config = emit_llama_model(py, p);
        emit_tokens(py, s, p);
        if (p.intervention) emit_intervention(py, p, "family.layers[layer].o_proj");
        emit_llama_forward(py, p);
    } else {  // the book's GPTModel
        emit_header(py, p);
        emit_gpt_classes(py, !p.file.empty(), p.generate > 0 && p.sampling.sampled());
        p.config = emit_gpt_model(py, run.model, p.file);
        emit_tokens(py, s, p);
        if (p.intervention) emit_intervention(py, p, "model.trf_blocks[layer].att.out_proj");
        emit_forward(py, p);
    }
    emit_json_and_main(py, p);
    return py.str();
}

}  // namespace

std::string model_program_problem(const ModelRun& run) {
    try {
        pytorch_emit_parts::model_file_path(run.model);
        return "";
    } catch (const UserError& e) {
        return e.what();
    }
}

}  // namespace attn

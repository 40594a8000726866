#include "cli_options.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "model/model_source.h"
#include "output/trace_json.h"
#include "settings/flag_reader.h"

namespace cli {

namespace {

std::vector<std::string> split_commas(const std::string& list) {
    std::vector<std::string> items;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

int parse_time_runs(const std::string& flag, const std::string& text) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        throw attn::ArgsError(flag + " needs a whole number, got '" + text + "'");
    if (value < 1 || value > 100000) throw attn::ArgsError(flag + " must be between 1 and 100000, got " + text);
    return value;
}

}  // namespace

std::string cli_usage() {
    return "usage: attnscope-cli [settings] [--stages a,b,...] [--time N] [--emit-pytorch] [--export DIR]\n"
           "settings:\n" +
           attn::settings_usage() +
           "Prints every stage of the attention forward pass as one JSON object;\n"
           "--emit-pytorch prints a PyTorch program that prints the same JSON instead,\n"
           "--export DIR writes every stage to DIR as .npy and .csv files.\n"
           "--model NAME|PATH runs a GPT model instead (gpt-ch4: chapter 4's, seeded; sotu-small:\n"
           "the shipped trained model; gpt2: from the Hugging Face cache; ORG/NAME: a GPT-2 or Llama-family\n"
           "repository on the Hugging Face Hub, downloaded into its cache when it is not there, --revision REV\n"
           "for a branch, tag or commit other than main (docs/models.md: HF_ENDPOINT, HF_TOKEN,\n"
           "HF_HUB_OFFLINE); or a .safetensors file or folder) and prints every layer's and head's weights and the next tokens (after the\n"
           "last token, or --next-at P's, 0-based); --layer L --head H adds every stage of that\n"
           "head, --generate N appends N tokens (greedy, or sampled as chapter 5's generate with\n"
           "--temperature, --top-k, --sample-seed); --export DIR writes every head's weights (and\n"
           "that head's stages) as .npy and .csv files with the JSON beside them;\n"
           "with --emit-pytorch, a PyTorch program on the book's GPTModel printing that head's (or\n"
           "head 0.0's) weights, the next tokens and the generated ones.\n"
           "--model DIR with a Llama-family checkpoint (config.json's model_type llama, qwen2 or\n"
           "qwen3, and its safetensors) runs the same way, --text tokenized with DIR/tokenizer.json (each\n"
           "head's JSON names its key/value head); --ids 1,2,3 gives any model exact token ids instead;\n"
           "with --text, --emit-pytorch and --layer L --head H: a PyTorch program on scripts/llama_family.py.\n"
           "With --model, on every model: --ablate L.H[,L.H...] switches heads off (--ablate-mode zero|mean,\n"
           "--ablate-at P[,P...]); --patch L.H[,...] --patch-from TEXT (or --patch-from-ids IDS; --patch-at P)\n"
           "takes those heads' outputs from another text of as many tokens; the JSON then has next_token of\n"
           "the changed run and baseline_next_token. --logit-lens adds every layer's top 5 at each position;\n"
           "--attribute ID[,ID2] splits that token's logit (minus ID2's) after --next-at's position into its\n"
           "heads, MLPs and embeddings; --head-effects prob:ID|logit-diff:ID1,ID2 changes each head alone\n"
           "(ablated, or patched with --patch-from) and gives the metric's change per layer and head.\n"
           "--tokenizer PATH/tokenizer.json: a Hugging Face byte-level BPE tokenizer for the chapter 3\n"
           "module; with --tokenize FILE (a JSON list of strings) only prints each string's token_ids,\n"
           "tokens and decoded text.\n"
           "--check FILE: FILE recorded from your own attention module by attnscope_record (--print-recorder\n"
           "prints it; docs/check.md): each stage compared with attnscope's in the order the data flows,\n"
           "the first that differs with its cell worked out, and the known mistake that gives your numbers;\n"
           "--json for JSON. Exit 0 when every stage matches, 1 when one differs, 2 for a bad file.\n"
           "Work that would need more memory than the budget (default a third of the machine's,\n"
           "or ATTNSCOPE_MEMORY_BUDGET; e.g. 2G) or over 60 s is refused before it starts.\n";
}

CliOptions parse_cli_options(const std::vector<std::string>& args) {
    attn::ParsedArgs parsed = attn::parse_settings(args);
    CliOptions o;
    o.settings = parsed.settings;
    o.help = parsed.help;
    const std::vector<std::string>& rest = parsed.rest;
    for (attn::FlagReader flags(rest); flags.next();) {
        const std::string& flag = flags.flag();
        if (flag == "--stages") o.output.stages = split_commas(flags.value());
        else if (flag == "--time") o.output.time_runs = parse_time_runs(flag, flags.value());
        else if (flag == "--emit-pytorch") o.output.emit_pytorch = true;
        else if (flag == "--export") o.export_dir = flags.value();
        else if (flag == "--tokenize") o.tokenize_file = flags.value();
        else if (flag == "--check") o.check_file = flags.value();
        else if (flag == "--json") o.json = true;
        else if (flag == "--print-recorder") o.print_recorder = true;
        else if (flag == "--revision") o.revision = flags.value();
        else if (o.interventions.read(flag, [&] { return flags.value(); })) continue;
        else throw attn::ArgsError("unknown argument '" + flag + "' (see --help)");
    }
    if (o.help) return o;
    for (const std::string& name : o.output.stages)
        if (std::find(attn::stage_names().begin(), attn::stage_names().end(), name) == attn::stage_names().end())
            throw attn::ArgsError("unknown stage '" + name + "' in --stages");
    if (o.output.emit_pytorch && o.export_dir) throw attn::ArgsError("--emit-pytorch and --export cannot be combined");
    if (o.tokenize_file && (o.settings.model || o.export_dir || o.output.emit_pytorch))
        throw attn::ArgsError("--tokenize only tokenizes: it takes --tokenizer PATH/tokenizer.json and nothing to run");
    if ((o.check_file || o.print_recorder) &&
        (o.settings.model || o.export_dir || o.output.emit_pytorch || !o.output.stages.empty() || o.tokenize_file ||
         o.interventions.any() || o.output.time_runs || (o.check_file && o.print_recorder)))
        throw attn::ArgsError("--check FILE reads the recorded module only (with --json for JSON), --print-recorder "
                              "prints the recorder: neither takes anything to run");
    attn::check_revision_flag(o.settings.model, o.revision);
    if (o.json && !o.check_file) throw attn::ArgsError("--json is --check's: the other outputs are JSON already");
    if (o.settings.model && o.output.time_runs)
        throw attn::ArgsError("--time times the chapter 3 module only (bench/gpt_bench times models)");
    o.interventions.ablate = o.settings.ablate;
    o.interventions.patch = o.settings.patch;
    o.interventions.patch_from = o.settings.patch_from;
    o.interventions.logit_lens = o.settings.logit_lens;
    o.interventions.attribute = o.settings.attribute;
    o.interventions.head_effects = o.settings.head_effects;
    if (o.interventions.any()) {
        if (!o.settings.model)
            throw attn::ArgsError("--ablate, --patch, --logit-lens, --attribute and --head-effects act on a model's heads: "
                                  "give --model (the chapter 3 module has no layers)");
        const attn::InterventionFlags& f = o.interventions;
        if (o.export_dir || !o.output.stages.empty() || o.settings.generate)
            throw attn::ArgsError("an intervention's run prints JSON or its PyTorch program: --export, --stages and "
                                  "--generate do not go with it yet");
        if (o.output.emit_pytorch && (f.logit_lens || f.attribute || f.head_effects))
            throw attn::ArgsError("--emit-pytorch writes the hooks of --ablate and --patch; --logit-lens, --attribute "
                                  "and --head-effects are the JSON's");
        if (o.output.emit_pytorch && !f.ablate && !f.patch)
            throw attn::ArgsError("--emit-pytorch with an intervention needs --ablate or --patch");
        if (!o.output.emit_pytorch && (o.settings.layer || o.settings.head))
            throw attn::ArgsError("an intervention's JSON has every head's weights: --layer and --head pick "
                                  "--emit-pytorch's head");
    }
    o.output.export_files = o.export_dir.has_value();
    // The app keeps the values of greyed-out controls; asked of the CLI, they would silently do nothing.
    attn::check_applicable(o.settings);
    return o;
}

}  // namespace cli

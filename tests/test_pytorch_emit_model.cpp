// A GPT model's emitted PyTorch program (core/output/pytorch_emit_model.h): it quotes the
// project's scripts as they are, reads the model's file by its absolute path (refused,
// in one line, once that file has gone), and the app's program reads the tokens in view.
// tests/emit_pytorch_model.test.sh runs the programs under PyTorch.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run/intervention_run.h"
#include "run/model_run.h"
#include "model/safetensors.h"
#include "output/cli_command.h"
#include "output/pytorch_emit_model.h"
#include "output/python_scripts.h"
#include "llama_fixture.h"

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

const std::string kScripts = std::string(ATTNSCOPE_TESTS_DIR) + "/../scripts/";
const std::string kCheckpoint = std::string(ATTNSCOPE_TESTS_DIR) + "/golden/checkpoints/f32-config";

attn::Settings model_settings(const std::string& model, const std::string& text) {
    attn::Settings s;
    s.model = model;
    s.text = text;
    return s;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("the emitted GPT program quotes the scripts as they are in the repository", "[emit_model]") {
    // Compiled in at configure time; an edited script reconfigures the build.
    CHECK(std::string(attn::kBookGptPy) == read_text(kScripts + "book_gpt.py"));
    CHECK(std::string(attn::kGpt2SafetensorsPy) == read_text(kScripts + "gpt2_safetensors.py"));

    const std::string gpt = attn::python_definition(attn::kBookGptPy, "GPTModel");
    CHECK(gpt.rfind("class GPTModel(nn.Module):\n", 0) == 0);
    CHECK(has(gpt, "        return logits\n"));
    CHECK(!has(gpt, "def generate"));
    // A name is a whole name: generate is not generate_text_simple.
    CHECK(attn::python_definition(attn::kBookGptPy, "generate_text_simple").rfind("def generate_text_simple(", 0) == 0);
    const std::string dtypes = attn::python_definition(attn::kGpt2SafetensorsPy, "DTYPES");
    CHECK(dtypes.rfind("DTYPES = {", 0) == 0);
    CHECK(dtypes.back() == '\n');
    CHECK(std::count(dtypes.begin(), dtypes.end(), '\n') == 1);
    CHECK_THROWS_AS(attn::python_definition(attn::kBookGptPy, "NoSuchClass"), std::logic_error);
    // A Llama-family model's program quotes the float32 reference of the golden data.
    CHECK(std::string(attn::kLlamaFamilyPy) == read_text(kScripts + "llama_family.py"));
    CHECK(attn::python_definition(attn::kLlamaFamilyPy, "LlamaFamily").rfind("class LlamaFamily(nn.Module):\n", 0) == 0);
}

TEST_CASE("a Llama-family model's program names its folder and the head's key/value group, and is refused once "
          "the folder has gone", "[emit_model]") {
    const std::string dir = (std::filesystem::temp_directory_path() / "attnscope-emit-llama-test").string();
    attn::test::copy_golden_llama("qwen2-bias-f16-shards", dir, /*with_tokenizer=*/true);
    attn::Settings s = model_settings(dir, "Hello world");
    s.layer = 2;
    s.head = 2;
    const attn::ModelRun run = attn::run_model(s, attn::load_model(dir, 0), attn::default_budget());
    const std::string program = attn::emit_model_pytorch(s, run, false);
    CHECK(has(program, "MODEL_DIR = \"" + dir + "\"\n"));
    CHECK(has(program, "class LlamaFamily(nn.Module):\n"));
    CHECK(has(program, "\"model_type\": \"qwen2\",\n"));
    CHECK(has(program, "\"num_key_value_heads\": 2,\n"));
    CHECK(has(program, "its keys are key/value head 1's,\n# shared by query heads 2-3)"));
    CHECK(has(program, "attn_weights = family.weights[layer][head]"));
    CHECK(!has(program, "GPTModel"));
    CHECK(attn::model_program_problem(run).empty());
    std::filesystem::remove_all(dir);
    CHECK(has(attn::model_program_problem(run), "no such folder any more"));
    CHECK_THROWS_AS(attn::emit_model_pytorch(s, run, false), attn::ModelFileError);
}

TEST_CASE("the program names the model file by its absolute path, and is refused once it has gone", "[emit_model]") {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "attnscope-emit-model-test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(kCheckpoint + "/model.safetensors", dir / "model.safetensors");
    std::filesystem::copy_file(kCheckpoint + "/config.json", dir / "config.json");

    attn::Settings s = model_settings(dir.string(), "a!b!c");
    s.layer = 1;
    s.head = 3;
    s.generate = 2;
    const attn::LoadedModel model = attn::load_model(dir.string(), 0);
    const attn::ModelRun run = attn::run_model(s, model, attn::default_budget());
    const std::string program = attn::emit_model_pytorch(s, run, false);
    CHECK(has(program, "MODEL_FILE = \"" + (dir / "model.safetensors").string() + "\"\n"));
    CHECK(has(program, "layer, head = 1, 3"));
    CHECK(has(program, "max_new_tokens=2"));
    CHECK(has(program, "def load_weights_into_gpt(model, params, prefix=\"\"):"));
    CHECK(has(program, "#     attnscope-cli --model " + dir.string() + " --text 'a!b!c' --layer 1 --head 3 --generate 2\n"));
    CHECK(attn::model_program_problem(run).empty());

    std::filesystem::remove_all(dir);
    CHECK(has(attn::model_program_problem(run), "no such file any more"));
    CHECK_THROWS_AS(attn::emit_model_pytorch(s, run, false), attn::ModelFileError);
}

TEST_CASE("the app's program reads the tokens in view, the generated ones included", "[emit_model]") {
    attn::Settings s = model_settings(kCheckpoint, "a!b");
    s.generate = 2;
    const attn::LoadedModel model = attn::load_model(kCheckpoint, 0);
    const attn::ModelRun run = attn::run_model(s, model, attn::default_budget(), /*generated_in_view=*/true);
    REQUIRE(run.tokens.ids.size() == 5);
    const std::string program = attn::emit_model_pytorch(s, run, true);
    std::string ids = "token_ids = [";
    for (size_t i = 0; i < run.tokens.ids.size(); ++i) ids += (i ? ", " : "") + std::to_string(run.tokens.ids[i]);
    CHECK(has(program, ids + "]\n"));
    CHECK(has(program, "the 2 tokens attnscope's window generated after the text"));
    CHECK(!has(program, "generate_text_simple(model=model"));  // they are read, not generated again
    CHECK(has(program, "layer, head = 0, 0"));  // the CLI's default when unset
    CHECK_THROWS_AS(attn::emit_model_pytorch([&] {
                        attn::Settings bad = s;
                        bad.head = 4;  // the checkpoint has 4 heads a layer
                        return bad;
                    }(),
                                             run, true),
                    attn::InputError);
}

TEST_CASE("a model's command names the model and only what a model takes", "[emit_model]") {
    attn::Settings s = model_settings("sotu-small", "Hi");
    s.attention.d_out = 7;  // the app keeps the module's controls' values: not the model's
    s.attention.seed = 5;   // draws gpt-ch4's weights, not a checkpoint's
    s.layer = 2;
    s.head = 1;
    CHECK(attn::cli_command(s) == "attnscope-cli --model sotu-small --text Hi --layer 2 --head 1");
    s.model = "gpt-ch4";
    CHECK(attn::cli_command(s) == "attnscope-cli --model gpt-ch4 --text Hi --seed 5 --layer 2 --head 1");
}

TEST_CASE("the app's program for heads patched from another text hooks them as the CLI's --patch program does",
          "[emit_model]") {
    // The CLI's program is run by PyTorch against the CLI (tests/emit_pytorch_model.test.sh);
    // the app's differs from it only in the heads' order and the lines naming its writer.
    attn::Settings s = model_settings("sotu-small", "The state of the Union is strong");
    s.patch = "1.1,0.2";
    s.patch_from = "The state of the Nation is weak";
    const attn::LoadedModel model = attn::load_model("sotu-small", 0);
    const attn::ModelRun run = attn::run_model(s, model, attn::default_budget(), /*generated_in_view=*/true);
    REQUIRE(run.patched.size() == 2);
    attn::InterventionFlags flags;
    flags.patch = "0.2,1.1";
    flags.patch_from = s.patch_from;
    const attn::InterventionRun cli = attn::run_interventions(s, flags, model, attn::default_budget());
    const auto from = [](const std::string& program, const std::string& line) { return program.substr(program.find(line)); };
    const std::string ours = attn::emit_model_pytorch(s, run, true);
    const std::string theirs = attn::emit_intervention_pytorch(s, run, cli);
    std::string ids;
    for (const int64_t id : run.patch_tokens->ids) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    CHECK(has(ours, "--patch 0.2,1.1 --patch-from-ids " + ids));
    CHECK(has(ours, "HEADS = [(0, 2), (1, 1)]"));
    CHECK(from(ours, "import json") == from(theirs, "import json"));  // the program itself, after its header
}

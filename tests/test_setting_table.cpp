// The settings and variant tables: every row is reachable from every place that
// derives from it (flags, --help, session keys), and the rules read from them hold.
#include <catch2/catch.hpp>

#include <set>

#include "classroom/session_file.h"
#include "settings/settings.h"

namespace {

// A Settings with every row moved off its default, the way a user could.
attn::Settings everything_changed() {
    attn::Settings s;
    s.text = "a b c";
    s.text2 = "d e";
    s.tokenizer = "simple";
    s.corpus_file = "/tmp/corpus.txt";
    s.embedding = "random";
    s.d_in = 5;
    s.d_out_v = 3;
    s.embed_seed = 7;
    s.vocab_size = 99;
    s.context_length = 12;
    s.pos = true;
    attn::AttentionConfig& a = s.attention;
    a.variant = attn::Variant::Cross;
    a.d_out = 4;
    a.heads = 2;
    a.dropout = 0.25;
    a.training = false;
    a.qkv_bias = true;
    a.causal = true;
    a.batch = 3;
    a.seed = 9;
    a.dropout_seed = 11;
    a.kv_len = 5;
    a.kv_groups = 2;
    a.rope = true;
    a.rope_base = 500000;
    a.window = 5;
    a.latent_dim = 8;
    s.model = "gpt-ch4";
    s.ids = "1,2,3";
    s.layer = 3;
    s.head = 2;
    s.generate = 4;
    s.next_at = 2;
    s.ablate = "1.0,2.1";
    s.patch = "0.1";
    s.patch_from = "another text";
    s.logit_lens = true;
    s.attribute = "5,7";
    s.head_effects = "prob:5";
    s.sampling.temperature = 1.4;
    s.sampling.top_k = 25;
    s.sampling.seed = 7;
    return s;
}

}  // namespace

TEST_CASE("every setting has one key and one flag, and --help names it", "[settings]") {
    std::set<std::string> keys, flags;
    const std::string help = attn::settings_usage();
    for (const attn::SettingRow& row : attn::setting_rows()) {
        INFO(row.key);
        CHECK(keys.insert(row.key).second);
        CHECK(flags.insert(row.flag).second);
        CHECK(help.find(row.flag) != std::string::npos);
        CHECK(attn::find_setting_flag(row.flag) == &row);
        CHECK(*row.pytorch);
        if (row.app.control != attn::Control::None) CHECK(*row.app.label);
        const std::string needs = row.needs;
        if (!needs.empty()) CHECK(attn::find_setting(needs.substr(needs[0] == '!', needs.find('=') - (needs[0] == '!'))));
    }
}

TEST_CASE("every row moves off its default in the test's settings", "[settings]") {
    // Else the round trips below would not cover a row added later.
    CHECK(attn::differing_settings(attn::Settings{}, everything_changed()).size() == attn::setting_rows().size());
}

TEST_CASE("the flags of a settings parse back to the same settings", "[settings]") {
    const attn::Settings s = everything_changed();
    const attn::ParsedArgs parsed = attn::parse_settings(attn::settings_flags(s));
    CHECK(parsed.rest.empty());
    for (const attn::SettingRow* row : attn::differing_settings(s, parsed.settings)) FAIL_CHECK(row->key);
    CHECK(parsed.settings == s);
    CHECK(attn::settings_flags(attn::Settings{}).empty());
}

TEST_CASE("a session file holds every row under its key, and reads back", "[settings][session]") {
    const nlohmann::json j = attn::settings_json(everything_changed());
    CHECK(j.size() == attn::setting_rows().size());
    for (const attn::SettingRow& row : attn::setting_rows()) CHECK(j.contains(row.key));
    attn::SavedSession saved;
    saved.settings = everything_changed();
    CHECK(attn::parse_session(attn::session_json(saved), "t.json").settings == saved.settings);
}

TEST_CASE("values out of a row's range are refused with the flag's name", "[settings][args]") {
    CHECK_THROWS_WITH(attn::parse_settings({"--d-in", "5000"}), "--d-in must be between 1 and 4096, got 5000");
    CHECK_THROWS_WITH(attn::parse_settings({"--heads", "0"}), "--heads must be between 1 and 64, got 0");
    CHECK_THROWS_WITH(attn::parse_settings({"--dropout", "1.5"}), "--dropout must be in [0, 1], got 1.5");
    CHECK_THROWS_WITH(attn::parse_settings({"--tokenizer", "bert"}),
                      "unknown tokenizer 'bert' (words, simple, gpt2, or a PATH/tokenizer.json)");
    CHECK(attn::parse_settings({"--tokenizer", "models/x/tokenizer.json"}).settings.tokenizer == "models/x/tokenizer.json");
    attn::Settings s;
    s.d_in = 0;  // as typed into the app
    CHECK_THROWS_WITH(attn::check_ranges(s), "--d-in must be between 1 and 4096, got 0");
}

TEST_CASE("a setting the variant does not take is refused by name, or reset", "[settings][variants]") {
    attn::Settings s;
    s.attention.variant = attn::Variant::Causal;
    CHECK_NOTHROW(attn::check_applicable(s));
    s.attention.heads = 2;
    CHECK_THROWS_WITH(attn::check_applicable(s), "causal has one head (--heads applies to self-v1, mha-wrapper, mha, cross, gqa, swa, mla, alibi)");
    s.attention.heads = 1;
    s.context_length = 8;
    CHECK_THROWS_WITH(attn::check_applicable(s), "--context-length needs --pos");
    s.corpus_file = "x.txt";
    s.context_length.reset();
    CHECK_THROWS_WITH(attn::check_applicable(s), "--corpus needs --tokenizer simple");
    attn::Settings cross;
    cross.attention.variant = attn::Variant::Cross;
    cross.attention.kv_len = 4;
    CHECK_NOTHROW(attn::check_applicable(cross));
    cross.text2 = "keys and values";
    CHECK_THROWS_WITH(attn::check_applicable(cross), "--kv-len is only used without --text2");

    attn::Settings t = everything_changed();
    t.model.reset();  // the chapter 3 module
    t.attention.variant = attn::Variant::Simplified;
    attn::reset_inapplicable(t);
    CHECK_NOTHROW(attn::check_applicable(t));
    CHECK(t.attention.heads == 1);
    CHECK(!t.text2);
    CHECK(t.attention.dropout == 0.0);
    CHECK(t.context_length == 12);  // pos is on
    CHECK(t.corpus_file);           // the simple tokenizer
    CHECK(!t.layer);                // needs a model
    CHECK(t.generate == 0);
}

TEST_CASE("with a GPT model, the chapter 3 module's settings do not apply", "[settings][model]") {
    attn::Settings s;
    s.model = "gpt-ch4";
    s.layer = 1;
    s.head = 0;
    s.attention.seed = 5;  // chapter 4's model is seeded
    s.text = "Hello";
    CHECK_NOTHROW(attn::check_applicable(s));
    s.attention.heads = 2;
    CHECK_THROWS_WITH(attn::check_applicable(s), Catch::StartsWith("--heads describes the chapter 3 module"));
    s.attention.heads = 1;
    s.model = "some/file.safetensors";
    CHECK_THROWS_WITH(attn::check_applicable(s), Catch::StartsWith("--seed draws chapter 4's model"));
    attn::Settings m = everything_changed();
    attn::reset_inapplicable(m);
    CHECK_NOTHROW(attn::check_applicable(m));
    CHECK(m.text == "a b c");  // what the model reads stays
    CHECK(m.layer == 3);
    CHECK(m.attention.variant == attn::Settings{}.attention.variant);
    CHECK(m.d_in == attn::Settings{}.d_in);
}

TEST_CASE("what a change reruns comes from the table", "[settings]") {
    const attn::Settings a;
    attn::Settings b = a;
    b.attention.dropout = 0.5;
    b.attention.training = false;
    CHECK(attn::same_up_to(a, b, attn::Reruns::Attention));  // dropout alone: only what follows the weights
    b.attention.heads = 2;
    CHECK(!attn::same_up_to(a, b, attn::Reruns::Attention));
    CHECK(attn::same_up_to(a, b, attn::Reruns::Embedding));  // the same tokens and input vectors
    b.d_in = 4;
    CHECK(!attn::same_up_to(a, b, attn::Reruns::Embedding));
}

TEST_CASE("the variant table names each variant once, in enum order", "[variants]") {
    std::set<std::string> names;
    for (size_t i = 0; i < attn::variants().size(); ++i) {
        const attn::VariantInfo& v = attn::variants()[i];
        CHECK(static_cast<size_t>(v.id) == i);
        CHECK(names.insert(v.name).second);
        CHECK(attn::variant_from_name(v.name) == v.id);
        CHECK(*v.label);
        CHECK(v.heads == (*v.heads_are != '\0'));  // what heads means is said where there are heads
    }
    CHECK(attn::variants_with(&attn::VariantInfo::dropout) == "causal, mha-wrapper, mha, gqa, swa, mla, alibi");
    CHECK(attn::variants_with(&attn::VariantInfo::split) == "mha, gqa, swa, mla, alibi");
}

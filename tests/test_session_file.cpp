// Session files: every control survives a round trip; damaged, foreign, newer and
// out-of-range files are refused with a specific one-line message; a failed save
// keeps the old file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "classroom/lesson.h"
#include "run/pipeline.h"
#include "classroom/session_file.h"
#include "output/trace_json.h"

namespace fs = std::filesystem;
using Catch::Contains;

namespace {

// A fresh directory per test case, removed afterwards.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("attnscope-session-" + name)) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        fs::permissions(path, fs::perms::owner_all);
        fs::remove_all(path);
    }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Every control away from its default.
attn::SavedSession every_field_changed() {
    attn::SavedSession s;
    attn::Settings& t = s.settings;
    t.text = "Life is short, eat dessert first — “quoted” and --text";
    t.text2 = "one step";
    t.tokenizer = "simple";
    t.embedding = "random";
    t.corpus_file = "/tmp/corpus.txt";
    t.d_in = 7;
    t.d_out_v = 5;
    t.embed_seed = 9;
    t.vocab_size = 1234;
    t.context_length = 77;
    t.pos = true;
    t.attention.variant = attn::Variant::Cross;
    t.attention.d_out = 6;
    t.attention.heads = 3;
    t.attention.dropout = 0.1;
    t.attention.training = false;
    t.attention.qkv_bias = true;
    t.attention.causal = true;
    t.attention.batch = 4;
    t.attention.seed = 4242;
    t.attention.dropout_seed = 17;
    t.attention.kv_len = 11;
    s.lesson = attn::LessonPosition{"3.5.1", 3};
    s.ui = {{"selected_head", 2}, {"ui_scale", 1.5}, {"presenter", true}, {"colormap", "cividis"}};
    return s;
}

std::string load_error(const std::string& path) {
    try {
        attn::load_session(path);
    } catch (const attn::SessionError& e) {
        return e.what();
    }
    return "(no error)";
}

// A session file whose "settings" hold `fields`.
std::string with_settings(const std::string& fields) {
    return R"({"format": "attnscope-session", "version": 1, "settings": {)" + fields + "}}";
}

}  // namespace

TEST_CASE("a session round-trips every control, the lesson position and the ui object", "[session]") {
    TempDir dir("roundtrip");
    const attn::SavedSession saved = every_field_changed();
    attn::save_session(dir.file("s.json"), saved);
    const attn::SavedSession loaded = attn::load_session(dir.file("s.json"));
    const attn::Settings &a = saved.settings, &b = loaded.settings;
    CHECK(b.text == a.text);
    CHECK(b.text2 == a.text2);
    CHECK(b.tokenizer == a.tokenizer);
    CHECK(b.embedding == a.embedding);
    CHECK(b.corpus_file == a.corpus_file);
    CHECK(b.d_in == a.d_in);
    CHECK(b.d_out_v == a.d_out_v);
    CHECK(b.embed_seed == a.embed_seed);
    CHECK(b.vocab_size == a.vocab_size);
    CHECK(b.context_length == a.context_length);
    CHECK(b.pos == a.pos);
    CHECK(b.attention.variant == a.attention.variant);
    CHECK(b.attention.d_out == a.attention.d_out);
    CHECK(b.attention.heads == a.attention.heads);
    CHECK(b.attention.dropout == a.attention.dropout);  // exactly: 0.1 reads back as 0.1
    CHECK(b.attention.training == a.attention.training);
    CHECK(b.attention.qkv_bias == a.attention.qkv_bias);
    CHECK(b.attention.causal == a.attention.causal);
    CHECK(b.attention.batch == a.attention.batch);
    CHECK(b.attention.seed == a.attention.seed);
    CHECK(b.attention.dropout_seed == a.attention.dropout_seed);
    CHECK(b.attention.kv_len == a.attention.kv_len);
    REQUIRE(loaded.lesson);
    CHECK(loaded.lesson->lesson_id == "3.5.1");
    CHECK(loaded.lesson->step == 3);
    CHECK(loaded.ui == saved.ui);

    // And the defaults, with no lesson, round-trip too.
    attn::save_session(dir.file("d.json"), attn::SavedSession{});
    const attn::SavedSession d = attn::load_session(dir.file("d.json"));
    CHECK_FALSE(d.lesson);
    CHECK_FALSE(d.settings.text2);
    CHECK(d.settings.attention.training);
    CHECK(d.ui == nlohmann::json::object());
    // Saving leaves no temporary files behind.
    CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 2);
}

TEST_CASE("a hand-written session may leave fields at their defaults", "[session]") {
    const attn::SavedSession s = attn::parse_session(with_settings(R"("variant": "causal", "dropout": 0.5)"), "mine");
    CHECK(s.settings.attention.variant == attn::Variant::Causal);
    CHECK(s.settings.attention.dropout == 0.5);
    CHECK(s.settings.text == attn::Settings{}.text);
}

TEST_CASE("damaged session files are refused with a message", "[session]") {
    TempDir dir("damaged");
    attn::save_session(dir.file("good.json"), every_field_changed());
    const std::string good = read(dir.file("good.json"));

    write(dir.file("truncated.json"), good.substr(0, good.size() / 2));
    CHECK(load_error(dir.file("truncated.json")) == dir.file("truncated.json") + ": the file is truncated (its JSON ends early)");

    write(dir.file("garbage.json"), std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
    CHECK_THAT(load_error(dir.file("garbage.json")), Contains("garbage.json: the file is damaged or not JSON (byte"));

    write(dir.file("empty.json"), "");
    CHECK(load_error(dir.file("empty.json")) == dir.file("empty.json") + ": the file is empty");

    CHECK(load_error(dir.file("missing.json")) == dir.file("missing.json") + ": no such file");
    CHECK(load_error(dir.path.string()) == dir.path.string() + ": not a file");

    write(dir.file("huge.json"), std::string((1 << 20) + 1, ' '));
    CHECK(load_error(dir.file("huge.json")) == dir.file("huge.json") + ": the file is 1048577 bytes; a session is at most 1 MB");
}

TEST_CASE("foreign files are refused with what they are", "[session]") {
    TempDir dir("foreign");
    const std::string lesson = attn::load_lessons(attn::lessons_dir()).lessons.at(0).file;
    CHECK_THAT(load_error(lesson), Contains(": the file is an attnscope lesson, not a session"));

    std::ostringstream trace;
    attn::write_run_json(trace, attn::compute(attn::Settings{}), {}, std::nullopt);
    write(dir.file("trace.json"), trace.str());
    CHECK(load_error(dir.file("trace.json")) == dir.file("trace.json") + ": the file is an attnscope-cli trace, not a session");

    write(dir.file("array.json"), "[1, 2, 3]");
    CHECK(load_error(dir.file("array.json")) == dir.file("array.json") + ": the file is JSON but not an attnscope session");

    write(dir.file("other.json"), R"({"name": "attnscope", "version": "1.0.0"})");
    CHECK_THAT(load_error(dir.file("other.json")), Contains("JSON but not an attnscope session (no \"format\""));
}

TEST_CASE("wrong versions, wrong types and out-of-range values are refused", "[session]") {
    const auto error = [](const std::string& text) {
        try {
            attn::parse_session(text, "s.json");
        } catch (const attn::SessionError& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    CHECK(error(R"({"format": "attnscope-session", "version": 2})") ==
          "s.json: the session is version 2; this attnscope reads version 1");
    CHECK(error(R"({"format": "attnscope-session", "version": "1"})") == "s.json: the session has no valid \"version\"");
    CHECK(error(R"({"format": "attnscope-session"})") == "s.json: the session has no valid \"version\"");
    CHECK(error(with_settings(R"("heads": "two")")) == "s.json: \"heads\" must be a whole number, got text");
    CHECK(error(with_settings(R"("d_out": 2.5)")) == "s.json: \"d_out\" must be a whole number, got a number");
    CHECK(error(with_settings(R"("causal": 1)")) == "s.json: \"causal\" must be true or false, got a number");
    CHECK(error(with_settings(R"("text": null)")) == "s.json: \"text\" must be text, got null");
    CHECK(error(with_settings(R"("heads": 0)")) ==
          "s.json: a setting is out of range: --heads must be between 1 and 64, got 0");
    CHECK(error(with_settings(R"("seed": -1)")) ==
          "s.json: a setting is out of range: --seed must be between 0 and 9223372036854775807, got -1");
    CHECK(error(with_settings(R"("dropout": 1.5)")) == "s.json: a setting is out of range: --dropout must be in [0, 1], got 1.5");
    CHECK(error(with_settings(R"("variant": "gpt")")) ==
          "s.json: a setting is out of range: unknown variant 'gpt' (simplified, self-v1, self-v2, causal, mha-wrapper, mha, cross, gqa, swa, mla, alibi)");
    CHECK(error(with_settings(R"("colour": "red")")) ==
          "s.json: unknown field \"colour\" in \"settings\" (a newer or foreign file?)");
    CHECK(error(R"({"format": "attnscope-session", "version": 1, "lesson": {"id": "3.3.1", "step": -1}})") ==
          "s.json: the lesson step must be between 0 and 10000, got -1");
    CHECK(error(R"({"format": "attnscope-session", "version": 1, "lesson": "3.3.1"})") ==
          "s.json: \"lesson\" must be null or {\"id\": text, \"step\": whole number}");
    CHECK(error(R"({"format": "attnscope-session", "version": 1, "ui": []})") == "s.json: \"ui\" must be an object");
}

TEST_CASE("saving into an unwritable directory fails and keeps the old file", "[session]") {
    TempDir dir("readonly");
    const std::string path = dir.file("s.json");
    attn::save_session(path, attn::SavedSession{});
    const std::string old = read(path);
    fs::permissions(dir.path, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                  fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    const attn::SavedSession changed = every_field_changed();
    if (::geteuid() == 0) {
        // root writes anywhere: try as nobody, in a child so this process keeps its rights.
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
            try {
                attn::save_session(path, changed);
            } catch (const attn::SessionError& e) {
                ::_exit(std::string(e.what()).find(path + ": cannot save: Permission denied") == 0 ? 0 : 2);
            }
            ::_exit(1);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        REQUIRE(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    } else {
        CHECK_THROWS_WITH(attn::save_session(path, changed), path + ": cannot save: Permission denied");
    }
    CHECK(read(path) == old);
    CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
}

// A link is a view (app/state/link.h): a query reads as the desktop flags it names, and
// the query written for a view reads back as that view.
#include <catch2/catch.hpp>

#include "settings/setting_table.h"
#include "state/link.h"
#include "state/startup.h"

using app::link_args;
using Args = std::vector<std::string>;

TEST_CASE("a link's query reads as the desktop app's flags", "[link]") {
    CHECK(link_args("") == Args{});
    CHECK(link_args("?variant=mha&heads=2&d-out=4") == Args{"--variant", "mha", "--heads", "2", "--d-out", "4"});
    CHECK(link_args("text=Your+journey%20starts%21") == Args{"--text", "Your journey starts!"});
    CHECK(link_args("presenter&lesson=3.5.1&lesson-step=3") ==
          Args{"--presenter", "--lesson", "3.5.1", "--lesson-step", "3"});
    CHECK(link_args("presenter=1") == Args{"--presenter"});
    CHECK(link_args("presenter=0") == Args{});
    CHECK(link_args("a=1&&") == Args{"--a", "1"});  // unknown names are the parser's to refuse
    CHECK(link_args("text=%E2%86%92") == Args{"--text", "\xE2\x86\x92"});
}

TEST_CASE("a link that cannot be a view is refused in one line", "[link]") {
    const auto refusal = [](const std::string& query) {
        try {
            link_args(query);
        } catch (const app::OptionsError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(refusal("screenshot=/tmp/x.png") == "'screenshot' is a flag of the desktop app; a link cannot give it");
    CHECK(refusal("save-py=x.py") == "'save-py' is a flag of the desktop app; a link cannot give it");
    CHECK(refusal("heads=2&heads=3") == "the link gives 'heads' twice");
    CHECK(refusal("text=%G1") == "the link has a broken escape at '%G1' (%XX needs two hex digits)");
    CHECK(refusal("text=%4") == "the link has a broken escape at '%4' (%XX needs two hex digits)");
    CHECK(refusal("presenter=yes") == "'presenter' is a switch: give presenter or presenter=1, got 'yes'");
    CHECK(refusal("%3Cscript%3E=1") ==
          "unknown link parameter '<script>' (parameters are the app's flags without their dashes)");
    CHECK(refusal("--heads=2").find("unknown link parameter") == 0);
    // Past the link: the flags' own parser gives the CLI's message.
    try {
        app::parse_startup(link_args("heads=0"));
        FAIL("heads=0 was accepted");
    } catch (const std::exception& e) {
        CHECK(std::string(e.what()).find("--heads") != std::string::npos);
    }
}

TEST_CASE("the link written for a view opens that view", "[link]") {
    const attn::Settings s =
        app::parse_startup({"--text", "Hi there, & = + % ?", "--variant", "mha", "--heads", "2"}).settings;
    app::ViewState classroom;
    classroom.presenter = true;
    classroom.theme = "colorblind";
    classroom.show_tab(app::ViewTab::HeadLines);
    const std::string query = app::link_query(s, {1, &classroom});
    CHECK(query.find("text=Hi+there%2C+%26+%3D+%2B+%25+%3F") != std::string::npos);
    const app::Startup back = app::parse_startup(link_args(query));
    CHECK(attn::differing_settings(s, back.settings).empty());
    CHECK(back.options.selected_head == 1);
    CHECK(back.options.presenter);
    CHECK(back.options.colormap == "colorblind");
    CHECK(back.options.tab == "head-view");
    CHECK(app::link_query(attn::Settings{}, {}) == "");  // the defaults need no parameters
}

TEST_CASE("a link in a lesson names the lesson and its step", "[link]") {
    app::ViewState classroom;
    attn::Lesson lesson;
    lesson.id = "3.5.1";
    classroom.library.lessons.push_back(lesson);
    classroom.lesson = 0;
    classroom.step = 2;
    classroom.in_lesson = true;
    attn::Settings s;
    s.attention.heads = 3;  // the step's own settings: the step sets them again
    CHECK(app::link_query(s, {0, &classroom}) == "lesson=3.5.1&lesson-step=3");
}

TEST_CASE("a link leaves out what names a file on this machine", "[link]") {
    const attn::Settings opened =
        app::parse_startup({"--model", "/uploads/model.safetensors", "--layer", "1", "--text", "a!b"}).settings;
    CHECK(app::link_query(opened, {}) == "text=a%21b");
    const attn::Settings shipped = app::parse_startup({"--model", "sotu-small", "--layer", "1"}).settings;
    CHECK(app::link_query(shipped, {}) == "model=sotu-small&layer=1");
    const attn::Settings hub = app::parse_startup({"--model", "Qwen/Qwen3-0.6B", "--layer", "1"}).settings;
    const std::string query = app::link_query(hub, {});  // a Hub repository is anyone's to fetch
    CHECK(app::link_args(query) == std::vector<std::string>{"--model", "Qwen/Qwen3-0.6B", "--layer", "1"});
    const attn::Settings corpus =
        app::parse_startup({"--tokenizer", "simple", "--corpus", "/uploads/verdict.txt"}).settings;
    CHECK(app::link_query(corpus, {}) == "tokenizer=simple");
}

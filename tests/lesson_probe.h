#pragma once
// For the placeholder tests: one lesson step over `flags` showing "weights", its own run,
// and what a text renders to against it (or the LessonError it gives).
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "classroom/lesson.h"
#include "run/run_session.h"

struct LessonProbe {
    attn::LessonStep step;
    attn::Run run;
    explicit LessonProbe(std::vector<std::string> flags, int head = 0) {
        step.stage = "weights";
        step.head = head;
        step.flags = std::move(flags);
        run = attn::compute_view(attn::step_settings(step));
    }
    std::string operator()(const std::string& text) {
        step.text = text;
        attn::validate_step(step, run);
        return attn::render_step_text(step, run);
    }
    std::string error(const std::string& text) {
        step.text = text;
        try {
            attn::validate_step(step, run);
        } catch (const attn::LessonError& e) {
            CHECK(attn::render_step_text(step, run) == "—");  // lenient rendering: a dash
            return e.what();
        }
        return "(no error)";
    }
};

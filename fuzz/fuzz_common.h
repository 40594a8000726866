#pragma once
// What every target treats as fine and what is a finding.
//
// Fine: the engine's documented refusals, std::runtime_error subclasses whose what() is one
// line for a user (ArgsError, InputError, ConfigError, TokenizeError, SessionError,
// LessonError, ComparisonError, ModelFileError). A finding: a crash, an ASan/UBSan report, any other
// exception escaping (nlohmann::json's, std::bad_alloc, std::out_of_range, ...: libFuzzer
// reports the std::terminate), a unit slower than -timeout, more memory than -rss_limit_mb,
// a refusal whose message holds a line break, or a broken invariant (fuzz_fail).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unistd.h>

#include "attention/attention.h"
#include "run/comparisons.h"
#include "classroom/lesson.h"
#include "run/pipeline.h"
#include "classroom/session_file.h"
#include "model/safetensors.h"
#include "settings/settings.h"
#include "text/tokenizer.h"

namespace fuzz {

[[noreturn]] inline void fuzz_fail(const std::string& what) {
    std::fprintf(stderr, "\n==FINDING== %s\n", what.c_str());
    std::abort();
}

inline void check(bool ok, const char* what) {
    if (!ok) fuzz_fail(std::string("invariant broken: ") + what);
}

inline void one_line(const char* type, const char* message) {
    const std::string_view m(message);
    if (m.find_first_of("\n\r") != std::string_view::npos)
        fuzz_fail(std::string(type) + " message is not one line: \"" + std::string(m) + "\"");
}

// Runs f; the engine's one-line refusals are fine, anything else escapes to libFuzzer.
// Returns true when f returned normally.
template <class F>
bool refusals_are_fine(F&& f) {
    try {
        f();
        return true;
    } catch (const attn::ArgsError& e) {
        one_line("ArgsError", e.what());
    } catch (const attn::InputError& e) {
        one_line("InputError", e.what());
    } catch (const attn::ConfigError& e) {
        one_line("ConfigError", e.what());
    } catch (const attn::TokenizeError& e) {
        one_line("TokenizeError", e.what());
    } catch (const attn::SessionError& e) {
        one_line("SessionError", e.what());
    } catch (const attn::LessonError& e) {
        one_line("LessonError", e.what());
    } catch (const attn::ComparisonError& e) {
        one_line("ComparisonError", e.what());
    } catch (const attn::ModelFileError& e) {
        one_line("ModelFileError", e.what());
    }
    return false;
}

// For parsers that only read a path: the input written to one file per process, reused.
inline std::string write_temp(const char* stem, const uint8_t* data, size_t size) {
    static const std::string path = [&] {
        static std::string p = "/tmp/attnscope-" + std::string(stem) + "." + std::to_string(::getpid());
        std::atexit([] { ::unlink(p.c_str()); });
        return p;
    }();
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) fuzz_fail("cannot write " + path);
    if (size && std::fwrite(data, 1, size, f) != size) fuzz_fail("cannot write " + path);
    std::fclose(f);
    return path;
}

}  // namespace fuzz

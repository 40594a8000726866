#pragma once
// The settings table: every setting a user chooses is one row, and everything that
// names, parses, checks, saves, shows or prints a setting reads it from there: the
// CLI's parser and --help, lesson flags, session files, the app's controls and state
// file, `cli_command` and the equality of two settings. To add a setting: a field in
// Settings (settings.h), a row in setting_table.cpp, and the engine code that uses it.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "attention/variants.h"

namespace attn {

struct Settings;

// A setting's value: unset (an optional left to its default), a switch, a whole
// number, a real number or a text (a choice is its name).
using SettingValue = std::variant<std::monostate, bool, int64_t, double, std::string>;

enum class SettingType {
    Text,       // --text TEXT
    OptText,    // a text, or unset (null in files)
    Choice,     // one of `choices`
    Int,        // a whole number in [lo, hi]
    OptInt,     // a whole number, or unset
    Real,       // a plain decimal in [lo, hi]
    Switch,     // the flag alone sets it true
    SwitchOff,  // the flag alone sets it false (--eval: training off)
};

// What a change of the setting makes the engine recompute (pipeline.h).
enum class Reruns {
    Embedding,  // the tokens and input vectors, and all that follows
    Attention,  // the module and its forward pass
    Dropout,    // only what follows the softmax weights
    Nothing,    // limits: a run that fits is the same run
};

enum class Control {
    None,        // not in the app's panel: command line, session files and lessons only
    Own,         // drawn by a widget of its own (tokenizer and corpus, variant)
    TextBox,     // a text box under a caption; its hint is unset_label
    Slider,      // whole numbers over [ui_lo, ui_hi]
    LogSlider,   // the same on a logarithmic scale (widths)
    RealSlider,  // real numbers over [ui_lo, ui_hi] with two decimals
    Checkbox,
};

// How the app shows an unset optional.
enum class Unset {
    None,      // not optional
    Zero,      // the slider's 0 means unset (shown as unset_label)
    Checkbox,  // a checkbox labelled unset_label; the slider shows `falls_back_to`'s value
    Empty,     // an empty text box means unset (unset_label is its hint)
};

struct AppControl {
    const char* label = "";
    Control control = Control::None;
    int64_t ui_lo = 0, ui_hi = 0;     // the slider's range; ctrl+click types any accepted value
    bool hide_inapplicable = false;   // hidden, rather than greyed out, for other variants
    Unset unset = Unset::None;
    const char* unset_label = "";
    const char* falls_back_to = "";   // Unset::Checkbox: the key whose value an unset one takes
    const char* tooltip = "";
    // Unset::Checkbox, instead of falls_back_to: the value an unset one takes, computed.
    int64_t (*fallback)(const Settings&) = nullptr;
};

// The value the app shows for an unset Unset::Checkbox row.
SettingValue fallback_value(const AppControl& control, const Settings& s);

// A row's data; SettingRow adds how it reads and writes its field of Settings.
struct SettingSpec {
    const char* key;      // session files, the state file, the app's widget names
    const char* flag;     // the CLI's and lessons': "--d-out"
    SettingType type;
    const char* metavar;  // in --help: "N"
    int64_t lo = 0, hi = 0;            // accepted range (Int, OptInt, Real)
    std::vector<std::string> choices;  // Choice
    bool VariantInfo::*applies;        // the variant table's column (VariantInfo::all: every variant)
    const char* missing;               // what a variant without it lacks: "has no dropout"
    const char* needs;                 // "" or what it needs: "pos" (on), "tokenizer=simple", "!text2" (unset)
    Reruns reruns;
    AppControl app;
    const char* pytorch;  // where it shows in an emitted PyTorch program
    // Whether it applies when a GPT model replaces the chapter 3 module (--model): the
    // text, the seed (chapter 4's model is seeded), the model's own rows. The others
    // describe the module the model replaces.
    bool with_model = false;
    // Choice: besides the choices, a path to a file of this name ("tokenizer.json": a
    // Hugging Face tokenizer for --tokenizer); "" for none.
    const char* or_file_named = "";
};

struct SettingRow : SettingSpec {
    using Get = std::function<SettingValue(const Settings&)>;
    using Set = std::function<void(Settings&, const SettingValue&)>;
    using Equal = std::function<bool(const Settings&, const Settings&)>;
    SettingRow(SettingSpec spec, Get g, Set s, Equal e)
        : SettingSpec(std::move(spec)), get(std::move(g)), set(std::move(s)), equal(std::move(e)) {}
    Get get;
    Set set;      // a value parse_value accepted
    Equal equal;  // the two fields compared in place: the live run compares every frame, a text may be 1 MB
};

const std::vector<SettingRow>& setting_rows();  // in the order of the app's panel
const SettingRow* find_setting(const std::string& key);
const SettingRow* find_setting_flag(const std::string& flag);
const SettingRow& setting(const std::string& key);  // throws std::out_of_range

bool applies(const SettingRow& row, Variant v);
// The variant takes it (or, with a model, the model does) and what it needs is set
// ("model": a model is chosen).
bool applies(const SettingRow& row, const Settings& s);

// The value a CLI argument spells (the flag alone for switches); throws ArgsError with
// one line naming the flag ("--d-in must be between 1 and 4096, got 5000").
SettingValue parse_value(const SettingRow& row, const std::string& text);
// Whether the value is in the row's range (Int, OptInt, Real); else the message.
std::string range_error(const SettingRow& row, const SettingValue& value);
// The CLI's spelling of a value: "4", "0.1", the text; "" for unset or a switch.
std::string value_text(const SettingValue& value);
// The flags that give `s` from the defaults (the switches alone), in table order.
std::vector<std::string> settings_flags(const Settings& s);

// The rows that differ between a and b.
std::vector<const SettingRow*> differing_settings(const Settings& a, const Settings& b);
// True when every setting that reruns `upto` or less is equal (Embedding < Attention <
// Dropout): with Embedding, a and b share their tokens and input vectors; with
// Attention, b's run is a's with the dropout recomputed.
bool same_up_to(const Settings& a, const Settings& b, Reruns upto);

// Throws ArgsError when a value is outside its row's range (a value typed into the app,
// or set by code, has not been through parse_value).
void check_ranges(const Settings& s);
// Throws ArgsError for a setting given to a variant that does not take it: "causal has
// one head (--heads applies to self-v1, mha-wrapper, mha, cross)", or without what it
// needs ("--context-length needs --pos"). A setting left at its default always passes.
// The CLI and lessons ask this; the app greys such controls out.
void check_applicable(const Settings& s);
// For the app: a setting a variant does not take goes back to its default.
void reset_inapplicable(Settings& s);

}  // namespace attn

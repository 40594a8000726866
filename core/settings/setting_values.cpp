// Reading, checking and comparing the values of the settings table's rows.
#include <cctype>
#include <charconv>
#include <cmath>

#include "settings/setting_table.h"
#include "settings/settings.h"
#include "base/decimal_text.h"
#include "model/model_source.h"

namespace attn {

namespace {

// Length of the run of ASCII digits at text[i].
size_t digits_at(const std::string& text, size_t i) {
    size_t n = 0;
    while (i + n < text.size() && std::isdigit(static_cast<unsigned char>(text[i + n]))) ++n;
    return n;
}

// Plain decimal notation: [-]digits[.digits][(e|E)[+-]digits], nothing before or after.
// strtod also took " 0.5", "0x1p-2", "inf" and "nan", and from_chars takes "1." and
// "1.e5"; no user means any of them as a rate. (Session files write their numbers with
// nlohmann::json, e.g. 1e-05 and 0.1, which pass.)
bool plain_decimal(const std::string& text) {
    size_t i = text.size() > 0 && text[0] == '-' ? 1 : 0;
    size_t n = digits_at(text, i);
    if (n == 0) return false;
    i += n;
    if (i < text.size() && text[i] == '.') {
        if ((n = digits_at(text, i + 1)) == 0) return false;
        i += 1 + n;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        if ((n = digits_at(text, i)) == 0) return false;
        i += n;
    }
    return i == text.size();
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

std::string number_text(double v) { return shortest_decimal(v); }

}  // namespace

SettingValue parse_value(const SettingRow& row, const std::string& text) {
    const std::string flag = row.flag;
    SettingValue value;
    switch (row.type) {
    case SettingType::Switch: return true;
    case SettingType::SwitchOff: return false;
    case SettingType::Text:
    case SettingType::OptText: return text;
    case SettingType::Choice:
        for (const std::string& choice : row.choices)
            if (text == choice) return text;
        if (*row.or_file_named) {
            const std::string name = row.or_file_named;
            if (text.size() >= name.size() && text.compare(text.size() - name.size(), name.size(), name) == 0) return text;
            throw ArgsError("unknown " + std::string(row.key) + " '" + text + "' (" + joined(row.choices) + ", or a PATH/" +
                            name + ")");
        }
        throw ArgsError("unknown " + std::string(row.key) + " '" + text + "' (" + joined(row.choices) + ")");
    case SettingType::Int:
    case SettingType::OptInt: {
        int64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size())
            throw ArgsError(flag + " needs a whole number, got '" + text + "'");
        value = v;
        break;
    }
    case SettingType::Real: {
        double v = 0.0;
        if (!plain_decimal(text) || !read_decimal(text, v) || !std::isfinite(v))
            throw ArgsError(flag + " needs a number such as 0.5, got '" + text + "'");
        value = v;
        break;
    }
    }
    if (const std::string why = range_error(row, value); !why.empty()) throw ArgsError(why + ", got " + text);
    return value;
}

std::string range_error(const SettingRow& row, const SettingValue& value) {
    const std::string flag = row.flag;
    if (const auto* v = std::get_if<int64_t>(&value); v && (*v < row.lo || *v > row.hi))
        return flag + " must be between " + std::to_string(row.lo) + " and " + std::to_string(row.hi);
    if (const auto* v = std::get_if<double>(&value);
        v && !(*v >= static_cast<double>(row.lo) && *v <= static_cast<double>(row.hi)))
        return flag + " must be in [" + std::to_string(row.lo) + ", " + std::to_string(row.hi) + "]";
    return "";
}

std::string value_text(const SettingValue& value) {
    if (const auto* v = std::get_if<int64_t>(&value)) return std::to_string(*v);
    if (const auto* v = std::get_if<double>(&value)) return number_text(*v);
    if (const auto* v = std::get_if<std::string>(&value)) return *v;
    return "";
}

std::vector<std::string> settings_flags(const Settings& s) {
    std::vector<std::string> flags;
    for (const SettingRow* row : differing_settings(Settings{}, s)) {
        // A switch that differs from its default is given; an optional that does is set.
        if (row->type == SettingType::Switch || row->type == SettingType::SwitchOff)
            flags.push_back(row->flag);
        else
            flags.insert(flags.end(), {row->flag, value_text(row->get(s))});
    }
    return flags;
}

std::vector<const SettingRow*> differing_settings(const Settings& a, const Settings& b) {
    std::vector<const SettingRow*> rows;
    for (const SettingRow& row : setting_rows())
        if (!row.equal(a, b)) rows.push_back(&row);
    return rows;
}

bool same_up_to(const Settings& a, const Settings& b, Reruns upto) {
    for (const SettingRow* row : differing_settings(a, b))
        if (row->reruns <= upto) return false;
    return true;
}

void check_ranges(const Settings& s) {
    for (const SettingRow& row : setting_rows())
        if (const std::string why = range_error(row, row.get(s)); !why.empty())
            throw ArgsError(why + ", got " + value_text(row.get(s)));
}

void check_applicable(const Settings& s) {
    const Variant v = s.attention.variant;
    if (s.model && !is_seeded_model(s.model) && s.attention.seed != Settings{}.attention.seed)
        throw ArgsError("--seed draws chapter 4's model (--model gpt-ch4); a checkpoint's weights are its own");
    for (const SettingRow* row : differing_settings(Settings{}, s)) {
        if (s.model && !row->with_model)
            throw ArgsError(std::string(row->flag) + " describes the chapter 3 module; with --model the model's own " +
                            "weights and sizes are used (and its GPT-2 tokens)");
        if (!s.model && !applies(*row, v))
            throw ArgsError(variant_name(v) + " " + row->missing + " (" + row->flag + " applies to " +
                            variants_with(row->applies) + ")");
        if (!applies(*row, s)) {  // what it needs is not set, or what it stands in for is
            const std::string needs = row->needs;
            if (needs[0] == '!')
                throw ArgsError(std::string(row->flag) + " is only used without " + setting(needs.substr(1)).flag);
            const size_t eq = needs.find('=');
            const SettingRow& other = setting(needs.substr(0, eq));
            throw ArgsError(std::string(row->flag) + " needs " + other.flag +
                            (eq == std::string::npos ? "" : " " + needs.substr(eq + 1)));
        }
    }
}

void reset_inapplicable(Settings& s) {
    const Settings defaults;
    // Table order puts what a row needs before it (pos before context_length).
    for (const SettingRow& row : setting_rows())
        if (!applies(row, s)) row.set(s, row.get(defaults));
}

}  // namespace attn

#include "state/link.h"

#include <algorithm>
#include <set>

#include "model/model_source.h"
#include "settings/setting_table.h"
#include "state/app_options.h"

namespace app {

namespace {

// The app's flags that write files, read local files or drive tests and benchmarks: a
// link opens a view, it does not act on the visitor's machine.
const std::set<std::string> kDesktopOnly = {"screenshot", "frames", "state-out", "size", "bench-frames",
                                            "bench-changes", "bench-change", "lesson-tour", "session", "export-all",
                                            "save-py", "save-session", "help", "version"};

bool is_switch(const std::string& flag) {
    if (flag == "--presenter") return true;
    const attn::SettingRow* row = attn::find_setting_flag(flag);
    return row && (row->type == attn::SettingType::Switch || row->type == attn::SettingType::SwitchOff);
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string unescape(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '+') {
            out += ' ';
        } else if (text[i] == '%') {
            const int hi = i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
            const int lo = hi >= 0 ? hex_digit(text[i + 2]) : -1;
            if (lo < 0) throw OptionsError("the link has a broken escape at '" + text.substr(i, 3) + "' (%XX needs two hex digits)");
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

bool plain_name(const std::string& name) {
    return !name.empty() && name[0] >= 'a' && name[0] <= 'z' && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

}  // namespace

std::vector<std::string> link_args(const std::string& query) {
    std::vector<std::string> args;
    std::set<std::string> seen;
    size_t start = !query.empty() && query[0] == '?' ? 1 : 0;
    while (start <= query.size()) {
        const size_t end = std::min(query.find('&', start), query.size());
        const std::string part = query.substr(start, end - start);
        start = end + 1;
        if (part.empty()) continue;
        const size_t eq = part.find('=');
        const std::string name = unescape(part.substr(0, eq));
        const bool has_value = eq != std::string::npos;
        const std::string value = has_value ? unescape(part.substr(eq + 1)) : "";
        if (!plain_name(name))
            throw OptionsError("unknown link parameter '" + name.substr(0, 40) + "' (parameters are the app's flags without their dashes)");
        if (kDesktopOnly.count(name))
            throw OptionsError("'" + name + "' is a flag of the desktop app; a link cannot give it");
        if (!seen.insert(name).second) throw OptionsError("the link gives '" + name + "' twice");
        const std::string flag = "--" + name;
        if (is_switch(flag)) {
            if (has_value && value != "1" && value != "0")
                throw OptionsError("'" + name + "' is a switch: give " + name + " or " + name + "=1, got '" +
                                   value.substr(0, 40) + "'");
            if (value != "0") args.push_back(flag);
        } else {
            args.push_back(flag);
            if (has_value) args.push_back(value);  // a flag without its value: the parser says it needs one
        }
    }
    return args;
}

std::string link_escape(const std::string& text) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (const char ch : text) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
            c == '.' || c == '~')
            out += ch;
        else if (c == ' ')
            out += '+';
        else
            out += {'%', hex[c >> 4], hex[c & 15]};
    }
    return out;
}

std::string link_query(const attn::Settings& s, const LinkView& view) {
    std::vector<std::pair<std::string, std::string>> params;  // name, value ("" for a switch)
    const ViewState* c = view.classroom;
    const bool in_lesson = c && c->in_lesson && c->lesson >= 0 &&
                           static_cast<size_t>(c->lesson) < c->library.lessons.size();
    if (in_lesson) {
        params.push_back({"lesson", c->library.lessons[static_cast<size_t>(c->lesson)].id});
        params.push_back({"lesson-step", std::to_string(c->step + 1)});
    } else {
        // A link cannot give a file on the visitor's machine: a checkpoint or a corpus
        // opened from a file is left out, with what only it takes (a model's layer). A Hub
        // repository is anyone's: the link names it and opening it fetches it.
        attn::Settings shared = s;
        if (shared.model && !attn::is_model_name(*shared.model) && !attn::is_hub_repo_id(*shared.model))
            shared.model.reset();
        shared.corpus_file.reset();
        attn::reset_inapplicable(shared);
        const std::vector<std::string> flags = attn::settings_flags(shared);
        for (size_t i = 0; i < flags.size(); ++i) {
            const std::string name = flags[i].substr(2);
            if (is_switch(flags[i])) params.push_back({name, ""});
            else if (i + 1 < flags.size()) params.push_back({name, flags[++i]});
        }
        if (view.head > 0 && !shared.model) params.push_back({"head", std::to_string(view.head + 1)});
        if (c && c->tab != ViewTab::Pipeline) params.push_back({"tab", view_tab_name(c->tab)});
        if (c && c->compare) params.push_back({"compare", attn::comparison_name(*c->compare)});
    }
    if (c && c->presenter) params.push_back({"presenter", ""});
    if (c && c->theme != "default") params.push_back({"colormap", c->theme});
    std::string query;
    for (const auto& [name, value] : params) {
        query += (query.empty() ? "" : "&") + name;
        if (!value.empty() || !is_switch("--" + name)) query += "=" + link_escape(value);
    }
    return query;
}

}  // namespace app

// The attnscope-cli command for a set of settings (see cli_command.h).
#include "output/cli_command.h"

#include <algorithm>
#include <cstdio>

#include "model/model_source.h"
#include "text/utf8.h"

namespace attn {

namespace {

// A word for a POSIX shell, on one line: '...' quoting, or bash's $'...' when the text
// holds control characters (a newline would end the program's comment line) or bytes
// that are not UTF-8 (a Python source file must be UTF-8), each written as \xNN.
std::string shell_quote(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,:=+") ==
                          std::string::npos)
        return s;
    const auto plain = [](unsigned char u) { return u >= 0x20 && u != 0x7f; };
    const bool ansi = !is_valid_utf8(s) || !std::all_of(s.begin(), s.end(), [&](char c) { return plain(static_cast<unsigned char>(c)); });
    if (!ansi) {
        std::string out = "'";
        for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return out + "'";
    }
    std::string out = "$'";
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        const auto u = static_cast<unsigned char>(c);
        const std::size_t len = decode_utf8_char(s, i).len;
        if (c == '\'' || c == '\\') out += {'\\', c};
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (len == 0 || !plain(u)) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", u);
            out += buf;
        } else {
            out.append(s, i, len);
            i += len - 1;
        }
    }
    return out + "'";
}

}  // namespace

std::string cli_command(const Settings& s) {
    // The variant first, always: the command reads as "which module, then how". A GPT
    // model replaces the module: then --model first, and only the settings a model takes
    // (the app keeps the module's controls' values, which the CLI would refuse).
    std::string cmd = "attnscope-cli";
    if (!s.model) cmd += " --variant " + variant_name(s.attention.variant);
    const std::vector<std::string> flags = settings_flags(s);  // the settings table's, in its order
    for (size_t i = 0; i < flags.size(); ++i) {
        const SettingRow& row = *find_setting_flag(flags[i]);
        const bool alone = row.type == SettingType::Switch || row.type == SettingType::SwitchOff;
        std::string item = " " + flags[i];
        if (!alone) item += " " + shell_quote(flags[++i]);
        const std::string key = row.key;
        if (key == "variant") continue;
        if (s.model && (!applies(row, s) || (key == "seed" && !is_seeded_model(s.model)))) continue;
        if (key == "model") cmd.insert(std::string("attnscope-cli").size(), item);
        else cmd += item;
    }
    return cmd;
}

}  // namespace attn

// The settings' command-line flags, read through the settings table.
#include "base/byte_sizes.h"
#include "settings/settings.h"
#include "settings/flag_reader.h"

namespace attn {

bool operator==(const Settings& a, const Settings& b) { return differing_settings(a, b).empty(); }

std::string settings_usage() {
    std::string usage, line = " ";
    for (const SettingRow& row : setting_rows()) {
        std::string item = std::string(" [") + row.flag;
        if (row.type == SettingType::Choice && row.metavar[0] == '\0') {
            std::string names;
            for (const std::string& c : row.choices) names += (names.empty() ? "" : "|") + c;
            item += " " + names;
        } else if (*row.metavar) {
            item += std::string(" ") + row.metavar;
        }
        item += "]";
        if (line.size() + item.size() > 78) {
            usage += line + "\n";
            line = " ";
        }
        line += item;
    }
    usage += line + " [--memory-budget SIZE]\n";
    return usage;
}

ParsedArgs parse_settings(const std::vector<std::string>& args) {
    ParsedArgs parsed;
    for (FlagReader flags(args); flags.next();) {
        const std::string& flag = flags.flag();
        if (flag == "--help" || flag == "-h") {
            parsed.help = true;
        } else if (flag == "--memory-budget") {
            parsed.settings.memory_budget = parse_size(flag, flags.value());
        } else if (const SettingRow* row = find_setting_flag(flag)) {
            const bool alone = row->type == SettingType::Switch || row->type == SettingType::SwitchOff;
            row->set(parsed.settings, parse_value(*row, alone ? std::string() : flags.value()));
        } else {
            parsed.rest.push_back(flag);
        }
    }
    return parsed;
}

}  // namespace attn

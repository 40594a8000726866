#pragma once
// What the controls edit: every setting of the settings table, the values of greyed-out
// controls included, so that switching variants and back restores them. Settings the
// app has no control for (embedding, vocab size, batch, dropout seed) keep the values
// given on the command line, a lesson step or a session file.
#include "settings/settings.h"

namespace app {

using ControlValues = attn::Settings;

// The corpus path being typed; ControlValues::corpus_file is the one in use.
struct CorpusField {
    std::string path;
    std::string error;  // why the last Load failed (the core's message), or empty
};


// What a run is asked for: the controls' values, without those the variant does not
// take (setting_table.h's reset_inapplicable); `fixed` carries the memory budget.
attn::Settings settings_from(const ControlValues& c, const attn::Settings& fixed);

}  // namespace app

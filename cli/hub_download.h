#pragma once
// --model ORG/NAME that is not in the Hugging Face cache: fetched there first (hub/hub_fetch.h),
// with a progress bar on stderr when it is a terminal.
#include <optional>
#include <string>

#include "settings/settings.h"

namespace cli {

// The model `settings` names, fetched when it is a Hub repository id that is not a path
// here; with a `revision` other than main, settings.model becomes the snapshot's folder.
// Throws attn::HubError (one line).
void fetch_hub_model(attn::Settings& settings, const std::optional<std::string>& revision);

}  // namespace cli

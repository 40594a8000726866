#pragma once
// The page's downloads from the Hugging Face Hub (web_hub.cpp, with app/web/hub.js): what
// platform.h's fetch_model does in the page for a repository id; web.cpp's fetch_model
// hands such a model here and keeps the shipped models' downloads.
#include <string>

namespace app::platform {

// fetch_model for `repo` (ORG/NAME): the progress line, "" once its files are in the page's
// file system; `error` gets why they could not come.
std::string fetch_hub_model(const std::string& repo, std::string& error);

}  // namespace app::platform

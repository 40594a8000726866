#pragma once
// The model list's "Get a model from the Hub": the models attnscope offers by name
// (model/hub_catalog.h) with their download sizes, a field for any other ORG/NAME, and,
// while one downloads, its progress bar and Cancel below the list.
#include "state/control_values.h"
#include "state/widget_rects.h"

namespace app {

// Inside the open model list: choosing one sets the controls' model to its repository id
// (the platform downloads it first: platform.h's fetch_model).
void draw_hub_entries(ControlValues& c, WidgetRects& rects);
// Below the list: the download of the controls' model as a bar, with Cancel (nothing when
// none runs); its words are the run's activity line.
void draw_hub_download(const ControlValues& c, WidgetRects& rects);

}  // namespace app

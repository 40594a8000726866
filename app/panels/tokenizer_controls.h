#pragma once
// Chapter 2's choice of tokenizer: words (seed 004), simple (SimpleTokenizerV2, with
// an optional corpus file as its vocabulary) or GPT-2's byte-level BPE.
#include <string>

#include "state/control_values.h"
#include "state/widget_rects.h"

namespace app {

// The corpus path being typed, apart from the corpus in use: a path only replaces
// the vocabulary once "Load" finds a readable text file there.
void draw_tokenizer_controls(ControlValues& c, CorpusField& corpus, WidgetRects& rects);

}  // namespace app

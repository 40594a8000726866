#pragma once
// What a frame drew where, for the state file (state_file.h) that tests and scripts
// read: the named widgets, each heatmap's rectangle and hovered cell, the token chips,
// the sliding window's numbers. Plain data: the views fill it in, nothing here draws.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "state/widget_rects.h"

namespace app {

// One axis label as drawn: `as` is "whole" (flat, in full), "turned" (at 90°, in full),
// "shortened" (cut with "…") or "hidden" (no room: the tokens are on hover).
struct LabelInfo {
    std::string text;              // the whole token
    std::string as;
    bool emphasised = false;       // the pointer's or the lesson's row or column: drawn whole
    float full_px = 0.0f;          // the whole token's length in the font at full size
    float type = 1.0f;             // the size it was drawn in, of the font: smaller to stay whole
    Rect rect{};                   // where it was drawn (turned: its upright bounding box)
};
struct AxisLabelsInfo {            // a heatmap's row or column labels
    bool present = false;          // the heatmap has labels on this axis at all
    bool turned = false;           // columns at 90°
    float room = 0.0f;             // the longest a label may be along its text, in pixels
    bool note = false;             // none drawn, and a line says they are on hover
    int hidden = 0;                // labels not drawn (no room); the others are in `labels`
    std::vector<LabelInfo> labels;
};
// A number or a line holding one (a colour bar's tick, a card's "largest |difference|"),
// with the font's line height: a rectangle taller than one line means it wrapped.
struct FigureInfo {
    std::string text;
    Rect rect{};
    float line_h = 0.0f;
};

struct HeatmapInfo {
    Rect rect{};                  // the heatmap's screen rectangle
    float cell_w = 0.0f, cell_h = 0.0f;
    bool visible = false;         // at least partly inside the scrolled view
    bool hovered = false;
    int row = -1, col = -1;       // the hovered cell
    int rows = 0, cols = 0;
    std::vector<Rect> marked;     // a lesson step's outlined cells and rows on it
    // The block of cells drawn (the focus view zoomed in); 0 rows: all of them.
    int row0 = 0, col0 = 0, block_rows = 0, block_cols = 0;
    float font_px = 0.0f;         // of its labels and values
    AxisLabelsInfo row_labels{}, col_labels{};
    std::vector<FigureInfo> figures{};  // its colour bar's ticks and notes
    Rect view{};                  // the room its view gave it (focus: the pane below the bar)
    float value_px = 0.0f;        // the width a cell's number needs, margins included (0: none asked for)
    bool values = false;          // numbers were drawn in the cells
};
// By stage name for the pipeline ("weights", "masked_scores", ...) and "heads/<k>"
// for the per-head view: what a test needs to find a cell on screen.
using HeatmapRegistry = std::map<std::string, HeatmapInfo>;

struct ChipInfo {  // one chip as drawn, for the state file and the tests
    std::string text;
    int64_t id = 0;
    bool special = false;  // <|endoftext|>
    bool unk = false;      // <|unk|>: a word outside the vocabulary
    int64_t word = -1;     // pieces of one word share it; -1 when the tokenizer has no sub-words
    bool marked = false;   // the picked one: the position a model's next tokens follow
    Rect rect{};
};

struct WindowReport {  // for the state file
    int max_length = 0, stride = 0;
    size_t pairs = 0;
    std::string error;  // the core's message for bad parameters, or empty
};

struct StepperReport {  // the KV cache and tiled softmax tabs, for the state file
    bool shown = false;
    long step = 0, steps = 0;     // KV cache: the token fed (1-based) of T; tiled: tiles done of all
    long cached = 0;              // KV cache: tokens the cache holds; tiled: keys per tile
    long cache_bytes = 0;         // KV cache: what it holds, in bytes
    double max_difference = -1;   // against the full forward (output row; weights); -1: none
    std::string error;
};

struct HeadViewReport {  // the head view (lines), for the state file
    bool shown = false;
    bool model_view = false;       // the thumbnails of every layer x head instead of one layer
    int layer = -1, layers = 1;    // a model's layer drawn (-1: a chapter 3 module's run)
    std::vector<bool> heads;       // each head: its lines switched on
    int hovered_query = -1, hovered_key = -1;  // the token under the pointer, left or right
    long lines = 0;                // lines drawn this frame
    std::vector<int> line_heads, line_queries, line_keys;  // those with a line drawn, ascending
};

struct CheckReport {  // the Check tab, for the state file
    bool shown = false;
    std::string path, report;          // the record, and attnscope-cli --check's text
    std::vector<std::string> stages;   // compared, in the order the data flows
    std::string stage;                 // the one on screen
    int head = -1, heads = 0;          // its head (-1: a stage of the heads side by side)
    bool matches = false;              // every recorded stage matches
    long differing = 0, outlined = 0;  // cells beyond the tolerance on screen, and those outlined
};

struct PointerReport {  // what the app saw of the mouse: tests print it when a click seems lost
    bool known = false;    // Dear ImGui has a position (the pointer is over the focused window)
    float x = 0, y = 0;
    long clicks = 0;       // left-button presses seen since the app started
    bool focused = false;  // GLFW says the window has the keyboard
    // Key presses that reached the app, held back or not (keyboard.h): a test
    // counts the frames a key takes from here, whatever the X server took to deliver it.
    long keys = 0;
};

struct FrameReport {  // where things were drawn this frame, for the state file
    WidgetRects widgets;
    HeatmapRegistry heatmaps;
    std::vector<ChipInfo> chips;  // the first text's, then the second text's
    WindowReport window;
    StepperReport kv_cache, tiled;
    HeadViewReport head_view;
    CheckReport check;
    Rect viewport{};          // the visible part of the view (the pane right of the controls)
    bool popup_open = false;  // a menu, combo list or dialog: the next click closes it first
    PointerReport pointer;
};

}  // namespace app

#include "text/hf_pretokenizer.h"

#include <algorithm>

namespace attn {

const char* const kByteLevelPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

namespace {

struct Part {
    std::size_t begin, end;
    bool is_match;
};

std::vector<Utf8Match> literal_matches(std::string_view literal, std::string_view text) {
    std::vector<Utf8Match> matches;
    if (literal.empty()) return matches;
    for (std::size_t at = text.find(literal); at != std::string_view::npos; at = text.find(literal, at + literal.size()))
        matches.push_back({at, at + literal.size()});
    return matches;
}

// The text as alternating non-matched and matched parts (tokenizers' Pattern::find_matches).
std::vector<Part> find_parts(const PreTokenizerStep& step, std::string_view text) {
    if (text.empty()) return {{0, 0, false}};
    const std::vector<Utf8Match> matches = step.regex ? step.regex->find_all(text) : literal_matches(step.literal, text);
    std::vector<Part> parts;
    std::size_t prev = 0;
    for (const Utf8Match& m : matches) {
        if (prev != m.begin) parts.push_back({prev, m.begin, false});
        parts.push_back({m.begin, m.end, true});
        prev = m.end;
    }
    if (prev != text.size()) parts.push_back({prev, text.size(), false});
    return parts;
}

// tokenizers' NormalizedString::split: the parts, joined or dropped as the behaviour says.
std::vector<Part> apply_behavior(std::vector<Part> parts, SplitBehavior behavior) {
    std::vector<Part> out;
    bool previous_match = false;
    switch (behavior) {
    case SplitBehavior::Isolated: return parts;
    case SplitBehavior::Removed:
        for (const Part& p : parts)
            if (!p.is_match) out.push_back(p);
        return out;
    case SplitBehavior::MergedWithPrevious:
        for (const Part& p : parts) {
            if (p.is_match && !previous_match && !out.empty()) out.back().end = p.end;
            else out.push_back({p.begin, p.end, p.is_match && !previous_match});
            previous_match = p.is_match;
        }
        return out;
    case SplitBehavior::MergedWithNext:
        for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
            if (it->is_match && !previous_match && !out.empty()) out.back().begin = it->begin;
            else out.push_back({it->begin, it->end, it->is_match && !previous_match});
            previous_match = it->is_match;
        }
        std::reverse(out.begin(), out.end());
        return out;
    case SplitBehavior::Contiguous:
        for (const Part& p : parts) {
            if (p.is_match == previous_match && !out.empty()) out.back().end = p.end;
            else out.push_back({p.begin, p.end, false});
            previous_match = p.is_match;
        }
        return out;
    }
    return parts;
}

void split_piece(const PreTokenizerStep& step, std::string_view piece, std::vector<std::string>& out) {
    std::vector<Part> parts = find_parts(step, piece);
    if (step.invert)
        for (Part& p : parts) p.is_match = !p.is_match;
    for (const Part& p : apply_behavior(std::move(parts), step.behavior))
        if (p.end > p.begin) out.emplace_back(piece.substr(p.begin, p.end - p.begin));
}

void byte_level_piece(const PreTokenizerStep& step, std::string_view piece, std::vector<std::string>& out) {
    std::string text(piece);
    if (step.add_prefix_space && (text.empty() || text[0] != ' ')) text.insert(text.begin(), ' ');
    if (!step.regex) {
        if (!text.empty()) out.push_back(std::move(text));
        return;
    }
    split_piece(step, text, out);  // Isolated, as ByteLevel splits
}

}  // namespace

std::vector<std::string> pre_tokenize(const std::vector<PreTokenizerStep>& steps, std::string_view text) {
    std::vector<std::string> pieces;
    if (!text.empty()) pieces.emplace_back(text);
    for (const PreTokenizerStep& step : steps) {
        std::vector<std::string> next;
        for (const std::string& piece : pieces) {
            if (step.kind == PreTokenizerStep::Kind::ByteLevel) byte_level_piece(step, piece, next);
            else split_piece(step, piece, next);
        }
        pieces = std::move(next);
    }
    return pieces;
}

}  // namespace attn

#pragma once
// Head-type scores for the model view's layer x head tiles, as TransformerLens's `detect_head`
// (transformer_lens/head_detector.py) defines them: a 0/1 template P of the query-key pairs a
// head of that type would attend to, and the fraction of the head's attention that lands on it,
//   score = sum(A o P) / sum(A)
// ("mul" error measure, exclude_bos = exclude_current_token = False, TransformerLens's defaults).
//
// The previous-token, duplicate-token and induction templates are TransformerLens's. The
// first-token template is not in TransformerLens; it is the app's label for attention sinks,
// heads that park their attention on position 0, scored the same way.
#include <cstdint>
#include <optional>
#include <vector>

#include "numerics/tensor.h"

namespace attn {

enum class HeadType { PreviousToken, DuplicateToken, Induction, FirstToken };

// "previous-token", "duplicate-token", "induction", "first-token sink".
const char* head_type_name(HeadType type);
// "prev", "dup", "ind", "sink": short enough for a small tile label.
const char* head_type_short(HeadType type);

// The T x T 0/1 template P (rows = queries, columns = keys) of a head type for these token ids,
// T = ids.size(); every template is lower-triangular:
//   previous-token  P[i][i-1] = 1                                 (row 0 is empty)
//   duplicate-token P[i][j] = 1 for j < i with ids[j] == ids[i]   (the diagonal is not a duplicate)
//   induction       P[i][j] = 1 for 1 <= j <= i with ids[j-1] == ids[i]: the token right after an
//                   earlier occurrence of the current token. j == i is included when ids[i-1] ==
//                   ids[i], as in TransformerLens (its shifted duplicate pattern keeps it).
//   first-token     P[i][0] = 1
// head_score does not build this matrix; it is here for tests and for the app's overlay.
Matrix head_template(HeadType type, const std::vector<int64_t>& ids);

// sum(A o P) / sum(A) for the T x T attention weights A of one head (rows = queries) and the
// template P of `type` for `ids`, without materialising P. 0 when sum(A) is 0 (TransformerLens
// would give NaN). Throws std::invalid_argument unless A is ids.size() x ids.size().
double head_score(const Matrix& weights, const std::vector<int64_t>& ids, HeadType type);

struct HeadScores {
    double previous_token = 0.0;
    double duplicate_token = 0.0;
    double induction = 0.0;
    double first_token = 0.0;
    // The induction stripe (Olsson et al. 2022's prefix matching): the induction template's
    // share of the weight of the rows that have an earlier copy of their token only. The
    // score above counts every row, so on a text said twice a perfect induction head scores
    // under 0.5 (the first copy's rows have nothing to look back to) and is outscored by the
    // sink those rows park on; here it scores 1. 0 where no token has an earlier copy.
    double induction_stripe = 0.0;
};

// All four scores at once, finding the earlier occurrences of each token only once; each equals
// head_score for its type.
HeadScores head_scores(const Matrix& weights, const std::vector<int64_t>& ids);

// What the scores divide, summed row by row (in double): the head's attention in all, and
// on each template. A row's masses depend on that row and the ids up to it only, so a run
// edited after its first k tokens keeps the masses of its rows before k.
struct HeadMasses {
    double total = 0.0, previous_token = 0.0, duplicate_token = 0.0, induction = 0.0, first_token = 0.0;
    double copy_rows = 0.0;  // the weight of the rows whose token has an earlier copy: the stripe divides it
};
HeadScores scores_of(const HeadMasses& m);
// The masses of rows [0, r) for r = 0..T (T + 1 of them), continuing `before` (the same
// for another matrix whose rows and ids agree with these up to before.size() - 1; empty:
// from row 0). The last is head_scores' masses: the same bits whether a row was summed here
// or in `before` (a row's zeros past the diagonal add nothing).
std::vector<HeadMasses> head_mass_prefixes(const Matrix& weights, const std::vector<int64_t>& ids,
                                           std::vector<HeadMasses> before = {});

// The type whose score is highest (the first in HeadType order among equals), if that score is
// at least `threshold` (e.g. 0.4); otherwise nothing. Induction competes with its stripe, which a
// head that copies reaches on any text with a repeat.
std::optional<HeadType> dominant_type(const HeadScores& s, double threshold);

}  // namespace attn

#pragma once
// How near attnscope's numbers must be to PyTorch's: the one definition every comparison
// against PyTorch uses (attnscope-cli --check against the user's own module included) (chapter 3's and the chapter 4 bonus variants' golden data, the seed
// documents' printed tensors, the GPT and Llama-family models, natively and under node;
// tests/compare_json.py and tests/compare_model_program.py read the two constants from this
// file; the tests reach them through tests/tolerance.h).
//
// Why a stage's scale and not each element: every element of a stage is a sum of products
// (a query: d_in terms; a score: head_dim terms; a context vector: one term per key). Summed
// in another order (another BLAS kernel's blocking, another vector width, another split over
// threads), each partial sum is rounded to float32, by up to half an ulp of the partial sum,
// and the partial sums are as large as the largest terms: the stage's scale, whatever the
// element ends at. An element that cancels to near zero keeps the rounding of the large terms
// (a score of -0.0379 in a stage whose largest is 147.55, where one ulp is 1.5e-5, differed by
// 1.3e-5 under another CPU's kernels). So the bound is a multiple of float32's unit roundoff
// u = 2^-24 (6e-8) times the stage's largest |value|: n additions in another order move a
// sum by about sqrt(n) u (n u at worst), and each stage carries the rounding of the stages it
// was computed from.
//  - kStageRelative, 1e-5 (168 u): one attention layer's stages, sums of up to ~1,000 terms
//    through up to four products in a row (inputs, queries, scores, weights, context, output).
//  - kModelRelative, 1e-4: a model's stages, after up to 30 layers that each add their own
//    rounding, with norms that divide by a small spread.
// Both are far from a real error: a dropped term, a wrong scale (sqrt(d_in) for the head's
// sqrt(head_dim)) or two rows swapped move an element by a sizeable part of the scale;
// tests/test_tolerance.cpp shows, for each suite, that a change of one ulp of the scale passes
// and each of those fails.
#include <algorithm>
#include <cmath>

#include "numerics/tensor.h"

namespace attn {

inline constexpr double kStageRelative = 1e-5;
inline constexpr double kModelRelative = 1e-4;

// The largest finite |value| of a stage (a masked score's -inf is no part of its scale).
inline double stage_scale(const Matrix& m) {
    double scale = 0.0;
    for (Eigen::Index i = 0; i < m.size(); ++i)
        if (std::isfinite(m.data()[i])) scale = std::max(scale, std::abs(static_cast<double>(m.data()[i])));
    return scale;
}

}  // namespace attn

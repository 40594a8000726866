#pragma once
// Rotary position embeddings as Llama 3 computes them (the book's
// pkg/llms_from_scratch/llama3.py: compute_rope_params, apply_rope, the split-halves
// form): the pair (x[j], x[j + hd/2]) of a query or key at position p is turned by the
// angle p * inv_freq[j], inv_freq[j] = 1 / base^(2j / hd). A dot product of two rotated
// vectors then depends on how far apart their positions are, not where they are.
#include <optional>

#include "numerics/gemm.h"

namespace attn {

struct RopeTables {
    Matrix angles;    // T x hd/2: position p, frequency j -> p * inv_freq[j]
    Matrix cos, sin;  // T x hd: cos and sin of the angles, the two halves alike
};

// Llama 3.1's rope_scaling ("rope_type": "llama3"): long wavelengths slowed by `factor`,
// short ones kept, those between blended (transformers' _compute_llama3_parameters).
struct Llama3RopeScaling {
    double factor = 8.0;
    double low_freq_factor = 1.0, high_freq_factor = 4.0;
    double original_context = 8192.0;  // original_max_position_embeddings
};

// The tables for positions 0..T-1 of a head of width head_dim (even), in float32 as torch
// computes them. Throws ConfigError for an odd head_dim.
RopeTables rope_tables(Eigen::Index T, Eigen::Index head_dim, int base);
// The same with a real-valued base (Hugging Face's rope_theta) and Llama 3's scaling.
RopeTables rope_tables(Eigen::Index T, Eigen::Index head_dim, double base,
                       const std::optional<Llama3RopeScaling>& scaling);

// x * cos + cat(-x2, x1) * sin, row p at position p: x is T x hd (one head's queries, or one
// key/value group's keys).
Matrix apply_rope(const ConstMatrixView& x, const RopeTables& tables);
// apply_rope on each of the n heads (or key/value groups) side by side in `all`:
// T x (n * head_dim), head i in columns [i * head_dim, (i + 1) * head_dim).
Matrix apply_rope_to_heads(const Matrix& all, int n, int head_dim, const RopeTables& tables);

}  // namespace attn

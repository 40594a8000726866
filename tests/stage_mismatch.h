#pragma once
// One comparison of an engine matrix with torch's, for the golden tests of models: the
// first element off by more than `relative` of the stage's scale (the largest |value|
// torch gives for it; why: tolerance.h), described with its indices; empty if none. A
// null in torch's data is -inf (a masked score), which ours must equal exactly.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/next_token.h"
#include "numerics/tensor.h"
#include "tolerance.h"

namespace attn::test {

inline std::string mismatch(const std::string& stage, const Matrix& ours, const nlohmann::json& torch,
                            double relative = kModelRelative) {
    std::ostringstream why;
    if (ours.rows() != static_cast<Eigen::Index>(torch.size()) || torch.empty() ||
        ours.cols() != static_cast<Eigen::Index>(torch[0].size())) {
        why << stage << ": shape " << ours.rows() << " x " << ours.cols() << ", torch " << torch.size() << " x "
            << (torch.empty() ? 0 : torch[0].size());
        return why.str();
    }
    double scale = 0.0;
    for (const nlohmann::json& row : torch)
        for (const nlohmann::json& v : row)
            if (!v.is_null()) scale = std::max(scale, std::abs(v.get<double>()));
    const double tolerance = relative * std::max(scale, 1e-30);
    for (Eigen::Index i = 0; i < ours.rows(); ++i)
        for (Eigen::Index j = 0; j < ours.cols(); ++j) {
            const nlohmann::json& value = torch[static_cast<size_t>(i)][static_cast<size_t>(j)];
            const double t = value.is_null() ? -INFINITY : value.get<double>();
            if (value.is_null() ? ours(i, j) != -INFINITY : !(std::abs(ours(i, j) - t) <= tolerance)) {
                why << stage << "(" << i << ", " << j << "): " << ours(i, j) << ", torch " << t << " (scale " << scale
                    << ", tolerance " << tolerance << ")";
                return why.str();
            }
        }
    return "";
}

// The first of the k most probable next tokens that differs from torch's [{id, prob}]
// (ids exactly, probabilities within kModelRelative of the most probable's), described;
// empty if none.
inline std::string next_token_mismatch(const RowVector& logits, const nlohmann::json& torch) {
    const auto top = top_next_tokens(logits, static_cast<int>(torch.size()));
    if (top.size() != torch.size()) return "top " + std::to_string(top.size()) + " tokens, torch " + std::to_string(torch.size());
    const double tolerance = kModelRelative * torch[0].at("prob").get<double>();
    for (size_t i = 0; i < top.size(); ++i) {
        const int64_t id = torch[i].at("id");
        const double prob = torch[i].at("prob");
        if (top[i].id != id || !(std::abs(top[i].prob - prob) <= tolerance))
            return "rank " + std::to_string(i) + ": id " + std::to_string(top[i].id) + " p " + std::to_string(top[i].prob) +
                   ", torch id " + std::to_string(id) + " p " + std::to_string(prob);
    }
    return "";
}

}  // namespace attn::test

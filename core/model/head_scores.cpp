#include "model/head_scores.h"

#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace attn {

namespace {

using Index = Eigen::Index;

Index length(const std::vector<int64_t>& ids) { return static_cast<Index>(ids.size()); }

void check_square_over(const Matrix& weights, const std::vector<int64_t>& ids) {
    const Index T = length(ids);
    if (weights.rows() != T || weights.cols() != T)
        throw std::invalid_argument("head_score: attention weights are " +
                                    std::to_string(weights.rows()) + " x " +
                                    std::to_string(weights.cols()) + " but there are " +
                                    std::to_string(T) + " tokens");
}

// earlier[i] is the latest position p < i with ids[p] == ids[i], or -1. Following the chain
// i -> earlier[i] -> earlier[earlier[i]] ... visits every earlier occurrence of the current
// token, which are the duplicate template's columns in row i; the induction template's are the
// same columns one to the right. Row i costs its number of earlier occurrences, not T.
std::vector<Index> earlier_occurrences(const std::vector<int64_t>& ids) {
    std::vector<Index> earlier(ids.size(), -1);
    std::unordered_map<int64_t, Index> last_seen;
    last_seen.reserve(ids.size());
    for (Index i = 0; i < length(ids); ++i) {
        const auto [it, first_time] = last_seen.try_emplace(ids[i], i);
        if (!first_time) {
            earlier[i] = it->second;
            it->second = i;
        }
    }
    return earlier;
}

// A row's sum in double (a 1024-token head has a million weights, and float would lose the
// last digits the tests compare), in eight running sums that vectorise: element j goes to
// sum j % 8 whatever the row's length, so the zeros past a causal row's diagonal leave it
// the same bits in a longer matrix.
double row_mass(const float* row, Index n) {
    double sums[8] = {};
    Index j = 0;
    for (; j + 8 <= n; j += 8)
        for (int k = 0; k < 8; ++k) sums[k] += static_cast<double>(row[j + k]);
    for (int k = 0; j < n; ++j, ++k) sums[k] += static_cast<double>(row[j]);
    return ((sums[0] + sums[1]) + (sums[2] + sums[3])) + ((sums[4] + sums[5]) + (sums[6] + sums[7]));
}

double fraction(double on_template, double total) { return total == 0.0 ? 0.0 : on_template / total; }

}  // namespace

const char* head_type_name(HeadType type) {
    switch (type) {
        case HeadType::PreviousToken: return "previous-token";
        case HeadType::DuplicateToken: return "duplicate-token";
        case HeadType::Induction: return "induction";
        case HeadType::FirstToken: return "first-token sink";
    }
    return "unknown";
}

const char* head_type_short(HeadType type) {
    switch (type) {
        case HeadType::PreviousToken: return "prev";
        case HeadType::DuplicateToken: return "dup";
        case HeadType::Induction: return "ind";
        case HeadType::FirstToken: return "sink";
    }
    return "?";
}

// Written straight from the definitions, entry by entry, so that the tests can hold the fast
// scores against it. TransformerLens builds the same matrices as:
//   previous-token  tril of eye(T-1) placed one row down;
//   duplicate-token tril(ids[i] == ids[j]) with the diagonal zeroed;
//   induction       the duplicate pattern rolled one column right, column 0 zeroed (it holds
//                   the wrapped-around last column), then tril. The roll turns j < i into
//                   j <= i, so that final tril removes nothing and the diagonal is kept.
Matrix head_template(HeadType type, const std::vector<int64_t>& ids) {
    const Index T = length(ids);
    Matrix P = Matrix::Zero(T, T);
    for (Index i = 0; i < T; ++i) {
        for (Index j = 0; j <= i; ++j) {
            bool on = false;
            switch (type) {
                case HeadType::PreviousToken: on = j == i - 1; break;
                case HeadType::DuplicateToken: on = j < i && ids[j] == ids[i]; break;
                case HeadType::Induction: on = j >= 1 && j - 1 < i && ids[j - 1] == ids[i]; break;
                case HeadType::FirstToken: on = j == 0; break;
            }
            if (on) P(i, j) = 1.0f;
        }
    }
    return P;
}

double head_score(const Matrix& weights, const std::vector<int64_t>& ids, HeadType type) {
    const HeadScores s = head_scores(weights, ids);
    switch (type) {
        case HeadType::PreviousToken: return s.previous_token;
        case HeadType::DuplicateToken: return s.duplicate_token;
        case HeadType::Induction: return s.induction;
        case HeadType::FirstToken: return s.first_token;
    }
    return 0.0;
}

HeadScores head_scores(const Matrix& weights, const std::vector<int64_t>& ids) {
    return scores_of(head_mass_prefixes(weights, ids).back());
}

HeadScores scores_of(const HeadMasses& m) {
    HeadScores s;
    s.previous_token = fraction(m.previous_token, m.total);
    s.duplicate_token = fraction(m.duplicate_token, m.total);
    s.induction = fraction(m.induction, m.total);
    s.first_token = fraction(m.first_token, m.total);
    s.induction_stripe = fraction(m.induction, m.copy_rows);
    return s;
}

std::vector<HeadMasses> head_mass_prefixes(const Matrix& A, const std::vector<int64_t>& ids,
                                           std::vector<HeadMasses> before) {
    check_square_over(A, ids);
    const Index T = length(ids);
    if (before.empty() || static_cast<Index>(before.size()) > T + 1) before.assign(1, HeadMasses{});
    const std::vector<Index> earlier = earlier_occurrences(ids);
    std::vector<HeadMasses> prefixes = std::move(before);
    prefixes.reserve(static_cast<size_t>(T) + 1);
    for (Index i = static_cast<Index>(prefixes.size()) - 1; i < T; ++i) {
        HeadMasses m = prefixes.back();
        const double mass = row_mass(&A(i, 0), A.cols());
        m.total += mass;
        if (earlier[static_cast<size_t>(i)] >= 0) m.copy_rows += mass;
        if (i > 0) m.previous_token += A(i, i - 1);
        m.first_token += A(i, 0);
        // p < i, so the induction column p + 1 <= i stays inside the lower triangle.
        for (Index p = earlier[static_cast<size_t>(i)]; p >= 0; p = earlier[static_cast<size_t>(p)]) {
            m.duplicate_token += A(i, p);
            m.induction += A(i, p + 1);
        }
        prefixes.push_back(m);
    }
    return prefixes;
}

std::optional<HeadType> dominant_type(const HeadScores& s, double threshold) {
    const std::pair<HeadType, double> candidates[] = {
        {HeadType::PreviousToken, s.previous_token},
        {HeadType::DuplicateToken, s.duplicate_token},
        {HeadType::Induction, s.induction_stripe},
        {HeadType::FirstToken, s.first_token},
    };
    const std::pair<HeadType, double>* best = &candidates[0];
    for (const auto& c : candidates)
        if (c.second > best->second) best = &c;  // strict: the first of equals wins
    if (best->second >= threshold) return best->first;
    return std::nullopt;
}

}  // namespace attn

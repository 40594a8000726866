#include "state/open_check.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "output/check_report.h"

namespace app {

namespace {

bool differs(float yours, float ours, double tolerance) { return !(std::abs(yours - ours) <= tolerance); }  // nan too

}  // namespace

OpenCheck open_check(const std::string& path) {
    OpenCheck c;
    c.path = path;
    c.result = attn::check_attention(attn::read_recorded_attention(path));
    std::ostringstream text;
    attn::write_check_text(text, c.result);
    c.report = text.str();
    if (!c.result.compared.empty()) c.stage = c.result.compared.size() - 1;
    if (c.result.first && c.result.first->head >= 0) c.head = c.result.first->head;
    for (const attn::ComparedStage& s : c.result.compared) {
        std::vector<bool> heads;
        for (size_t h = 0; h < s.yours.size(); ++h) {
            bool any = false;
            for (Eigen::Index i = 0; i < s.yours[h].size() && !any; ++i)
                any = differs(s.yours[h].data()[i], s.ours[h].data()[i], s.tolerance);
            heads.push_back(any);
        }
        c.head_differs.push_back(std::move(heads));
    }
    return c;
}

const CheckCells& check_cells(OpenCheck& k) {
    static uint64_t versions = 0;  // across checks: a new file's cells are new values too
    CheckCells& c = k.cells;
    if (k.result.compared.empty()) return c;
    k.stage = std::min(k.stage, k.result.compared.size() - 1);
    const attn::ComparedStage& s = k.result.compared[k.stage];
    k.head = std::clamp(k.head, 0, static_cast<int>(s.yours.size()) - 1);
    if (c.head == k.head && c.stage == k.stage) return c;
    c = CheckCells{};
    c.stage = k.stage;
    c.head = k.head;
    c.version = ++versions;
    const attn::Matrix& yours = s.yours[static_cast<size_t>(k.head)];
    const attn::Matrix& ours = s.ours[static_cast<size_t>(k.head)];
    c.not_finite = attn::Matrix::Zero(yours.rows(), yours.cols());
    c.difference = yours - ours;  // rows x cols, as the stage
    for (Eigen::Index i = 0; i < yours.rows(); ++i)
        for (Eigen::Index j = 0; j < yours.cols(); ++j) {
            c.lo = std::min(c.lo, ours(i, j));
            c.hi = std::max(c.hi, ours(i, j));
            if (!std::isfinite(yours(i, j))) {
                c.not_finite(i, j) = 1.0f;
                c.difference(i, j) = 0.0f;
            } else {
                c.lo = std::min(c.lo, yours(i, j));
                c.hi = std::max(c.hi, yours(i, j));
            }
            c.largest = std::max(c.largest, std::abs(c.difference(i, j)));
            if (!differs(yours(i, j), ours(i, j), s.tolerance)) continue;
            ++c.differing;
            if (static_cast<long>(c.outlined.size()) < kMaxOutlined) c.outlined.emplace_back(i, j);
        }
    return c;
}

}  // namespace app

#include "views/cell_details.h"

#include <cmath>
#include <cstdio>

#include "views/stage_labels.h"
#include "output/worked_arithmetic.h"

namespace app {

namespace {

// Numbers and products as the lesson texts write them (core/output/worked_arithmetic.h).
std::string num(double v) { return attn::format_number(static_cast<float>(v)); }

std::string exact(float v) {
    if (std::isinf(v)) return attn::format_number(v);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));  // enough digits to identify the float
    return buf;
}

// "a·b + c·(−d) + … (n terms)": row `row` of a times column `col` of b (row `col`
// when b_by_rows).
std::string product_terms(const attn::Matrix& a, int row, const attn::Matrix& b, int col, bool b_by_rows) {
    std::vector<float> x(static_cast<size_t>(a.cols())), y(x.size());
    for (Eigen::Index k = 0; k < a.cols(); ++k) {
        x[static_cast<size_t>(k)] = a(row, k);
        y[static_cast<size_t>(k)] = b_by_rows ? b(col, k) : b(k, col);
    }
    return attn::format_dot_terms(x, y);
}

const attn::Matrix* find(const attn::HeadTrace* head, const char* name) {
    if (!head) return nullptr;
    const attn::Stage* s = head->find(name);
    return s ? &s->value : nullptr;
}

// The scores a head's softmax took: masked if there is a mask, else scaled, else raw.
const attn::Matrix* softmax_input(const attn::HeadTrace* head) {
    for (const char* name : {"masked_scores", "scaled_scores", "scores"})
        if (const attn::Matrix* m = find(head, name)) return m;
    return nullptr;
}

void explain_score(const attn::Run& run, const attn::HeadTrace* head, int r, int c, std::vector<std::string>& out) {
    const attn::Matrix* q = find(head, "queries");
    const attn::Matrix* k = find(head, "keys");
    std::string qn = "q", kn = "k";
    if (!q || !k) {  // 3.3 simplified: the inputs are their own queries and keys
        q = &run.trace.model.at("inputs");
        const attn::Stage* x2 = run.trace.model.find("inputs2");
        k = x2 ? &x2->value : q;
        qn = kn = "x";
    }
    out.push_back(qn + subscript(r + 1) + "·" + kn + subscript(c + 1) + " = " + product_terms(*q, r, *k, c, true));
    out.push_back("      = " + num((*q).row(r).dot((*k).row(c))));
}

void explain_weight(const attn::HeadTrace* head, const attn::Stage& stage, int r, int c,
                    std::vector<std::string>& out) {
    const attn::Matrix* s = softmax_input(head);
    if (!s) return;
    const float sv = (*s)(r, c);
    if (std::isinf(sv) && sv < 0) {
        out.push_back("masked: exp(−∞) = 0, so this key gets no weight");
        return;
    }
    // Shift by the row's largest score when exp would overflow a double.
    double m = -INFINITY;
    int kept = 0;
    for (Eigen::Index j = 0; j < s->cols(); ++j)
        if (std::isfinite((*s)(r, j))) {
            m = std::max(m, static_cast<double>((*s)(r, j)));
            ++kept;
        }
    const double shift = m > 200.0 ? m : 0.0;
    double sum = 0.0;
    for (Eigen::Index j = 0; j < s->cols(); ++j)
        if (std::isfinite((*s)(r, j))) sum += std::exp((*s)(r, j) - shift);
    const double e = std::exp(sv - shift);
    const std::string si = "s" + subscript(r + 1) + subscript(c + 1);
    const std::string shifted = shift ? " − " + num(shift) : "";
    out.push_back("softmax: exp(" + si + shifted + ") / Σₖ exp(s" + subscript(r + 1) + "ₖ" + shifted + ")");
    out.push_back("= exp(" + num(sv) + shifted + ") / (" + std::to_string(kept) + " terms) = " + num(e) + " / " +
                  num(sum) + " = " + num(e / sum));
    if (kept < s->cols()) out.push_back(std::to_string(s->cols() - kept) + " masked keys add exp(−∞) = 0 to the sum");
    if (stage.name == "dropped_weights") {
        const attn::Matrix* w = find(head, "weights");
        const attn::Matrix* f = find(head, "dropout_mask");
        if (w && f) out.push_back("after dropout: " + num((*w)(r, c)) + " × " + num((*f)(r, c)) + " = " +
                                  num(stage.value(r, c)));
    }
}

}  // namespace

std::vector<std::string> explain_cell(const attn::Run& run, const attn::HeadTrace* head, const attn::Stage& stage,
                                      int r, int c) {
    std::vector<std::string> out;
    out.push_back(stage_title(stage.name) + "   row " + std::to_string(r + 1) + ", column " +
                  std::to_string(c + 1));
    const auto rows = axis_labels(run, stage.rows, static_cast<int>(stage.value.rows()));
    const auto cols = axis_labels(run, stage.cols, static_cast<int>(stage.value.cols()));
    if (stage.rows != attn::Axis::One) out.push_back(axis_name(stage.rows, true) + ": " + rows[static_cast<size_t>(r)]);
    if (stage.cols != attn::Axis::One)
        out.push_back((stage.cols == attn::Axis::Tokens ? std::string("key tokens") : axis_name(stage.cols, false)) +
                      ": " + cols[static_cast<size_t>(c)]);
    const float v = stage.value(r, c);
    out.push_back("value = " + exact(v));

    const std::string& n = stage.name;
    if (n == "scores") {
        explain_score(run, head, r, c, out);
    } else if (n == "scaled_scores") {
        const attn::Matrix* k = find(head, "keys");
        const attn::Matrix* raw = find(head, "scores");
        if (k && raw)
            out.push_back("= " + num((*raw)(r, c)) + " / √" + std::to_string(k->cols()) + "   (d_k = " +
                          std::to_string(k->cols()) + ")");
    } else if (n == "position_bias") {
        const int distance = r - c;  // how many tokens key c lies before query r
        out.push_back(distance == 0 ? "= 0: a query's own key is not penalised"
                                    : "= −m·(i − j) = −" + num(-v / static_cast<float>(distance)) + " × " +
                                          std::to_string(distance) + "   (m: this head's ALiBi slope)");
    } else if (n == "masked_scores") {
        out.push_back(std::isinf(v) ? "masked: key " + std::to_string(c + 1) + " comes after query " +
                                          std::to_string(r + 1) + ", so the score becomes −∞"
                      : find(head, "position_bias") ? "not masked: the scaled score plus the ALiBi bias"
                                                    : "not masked: the scaled score unchanged");
    } else if (n == "mask") {
        out.push_back(v > 0.5f ? "1 = masked (this key is in the query's future)" : "0 = visible");
    } else if (n == "weights" || n == "dropped_weights") {
        explain_weight(head, stage, r, c, out);
    } else if (n == "dropout_mask") {
        out.push_back(v == 0.0f ? "dropped: this weight becomes 0" : "kept and scaled by 1/(1−p) = " + num(v));
    } else if (n == "context") {
        const attn::Matrix* w = find(head, "dropped_weights");
        if (!w) w = find(head, "weights");
        const attn::Matrix* vals = find(head, "values");
        if (!vals) vals = &run.trace.model.at("inputs");  // 3.3: the inputs are the values
        if (w) out.push_back("z" + subscript(r + 1) + "[" + std::to_string(c + 1) + "] = Σₖ w" + subscript(r + 1) +
                             "ₖ·v_k[" + std::to_string(c + 1) + "] = " + product_terms(*w, r, *vals, c, false));
    } else if (n == "queries" || n == "keys" || n == "values") {
        const char* w_name = n == "queries" ? "W_query" : n == "keys" ? "W_key" : "W_value";
        const attn::Matrix* W = find(head, w_name);
        const attn::Stage* x2 = run.trace.model.find("inputs2");
        const attn::Matrix& x = (n != "queries" && x2) ? x2->value : run.trace.model.at("inputs");
        // Weight-split heads project with their own columns of one big matrix; the
        // product below uses exactly those columns.
        if (W && x.rows() > r && W->rows() == x.cols())
            out.push_back("x" + subscript(r + 1) + "·" + std::string(w_name) + "[:, " + std::to_string(c + 1) +
                          "] = " + product_terms(x, r, *W, c, false) + (find(head, "b_query") ? " + bias" : ""));
    }
    return out;
}

}  // namespace app

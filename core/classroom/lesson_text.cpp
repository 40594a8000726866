// The {placeholders} of a lesson step's text, filled from a run (see lesson.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "classroom/lesson.h"
#include "classroom/lesson_model_scalars.h"
#include "attention/stage_catalogue.h"
#include "output/worked_arithmetic.h"

namespace attn {

namespace {

constexpr int kAll = -1;             // a `*` selector: the whole row or column
constexpr size_t kMaxListed = 8;     // longer rows are shortened, so a 1000-token text stays readable

// One stage reference: [headN.]stage[r][c], where r or c may be `*` (kAll).
struct Ref {
    int head = -1;  // -1: the step's head
    std::string stage;
    int selectors = 0;  // how many [..] followed
    int row = kAll, col = kAll;
};

struct Placeholder {
    std::string fn;      // "", "sum", "naive", ...
    std::string scalar;  // token, token2, d_k, ... (then no refs)
    int index = 0;       // token[i]
    Ref a, b;            // b only for dot
};

const std::vector<std::string> kReducers = {"sum", "max", "min", "maxabs", "zeros", "size"};
const std::vector<std::string> kScalars = {
    "d_k", "sqrt_d_k", "num_tokens", "num_heads", "batch",
    // today's variants (trace.h): KvCacheSize, the gqa groups, the swa window
    "kv_cache_bytes", "mha_cache_bytes", "kv_cache_tokens", "kv_cache_total", "kv_group", "kv_groups", "window"};
// Scalars of one head, which a headN. prefix may name: {head2.kv_group}.
const std::vector<std::string> kHeadScalars = {"d_k", "sqrt_d_k", "kv_group"};

bool contains(const std::vector<std::string>& list, const std::string& s) {
    return std::find(list.begin(), list.end(), s) != list.end();
}

bool known_stage(const std::string& name) { return find_stage_info(name) != nullptr; }

[[noreturn]] void fail(const std::string& what) { throw LessonError(what); }

int parse_index(const std::string& s, const std::string& whole) {
    if (s == "*") return kAll;
    if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
        fail("{" + whole + "}: an index must be a whole number or *, got '" + s + "'");
    return std::stoi(s);
}

Ref parse_ref(std::string s, const std::string& whole) {
    Ref r;
    if (s.rfind("head", 0) == 0 && s.find('.') != std::string::npos) {
        const std::string n = s.substr(4, s.find('.') - 4);
        r.head = parse_index(n, whole);
        if (r.head == kAll) fail("{" + whole + "}: head* is not a head");
        s = s.substr(s.find('.') + 1);
    }
    size_t i = 0;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    r.stage = s.substr(0, i);
    if (r.stage.empty()) fail("{" + whole + "}: expected a stage name");
    if (!known_stage(r.stage)) fail("unknown placeholder {" + whole + "}: '" + r.stage + "' is no stage or value");
    int* targets[] = {&r.row, &r.col};
    while (i < s.size()) {
        const size_t close = s.find(']', i);
        if (s[i] != '[' || close == std::string::npos || r.selectors == 2)
            fail("{" + whole + "}: expected at most two [index] after the stage name");
        *targets[r.selectors++] = parse_index(s.substr(i + 1, close - i - 1), whole);
        i = close + 1;
    }
    return r;
}

bool is_vector(const Ref& r) { return r.selectors >= 1 && ((r.row == kAll) != (r.col == kAll)); }

Placeholder parse_placeholder(const std::string& body) {
    Placeholder p;
    std::string rest = body;
    if (const size_t colon = body.find(':'); colon != std::string::npos) {
        p.fn = body.substr(0, colon);
        rest = body.substr(colon + 1);
    }
    if (p.fn.empty()) {
        if (contains(kScalars, rest) || is_model_scalar(rest)) {
            p.scalar = rest;
            return p;
        }
        if (const size_t dot = rest.find('.'); rest.rfind("head", 0) == 0 && dot != std::string::npos &&
                                               (contains(kHeadScalars, rest.substr(dot + 1)) ||
                                                is_model_head_scalar(rest.substr(dot + 1)))) {
            p.scalar = rest.substr(dot + 1);
            p.a.head = parse_index(rest.substr(4, dot - 4), body);
            if (p.a.head == kAll) fail("{" + body + "}: head* is not a head");
            return p;
        }
        if (const size_t open = rest.find('['); open != std::string::npos && rest.back() == ']') {
            const std::string name = rest.substr(0, open);
            if (name == "token" || name == "token2" || is_model_indexed_scalar(name)) {
                p.scalar = name;
                p.index = parse_index(rest.substr(name.size() + 1, rest.size() - name.size() - 2), body);
                if (p.index == kAll) fail("{" + body + "}: name one token");
                return p;
            }
        }
    }
    if (p.fn == "dot") {
        const size_t bar = rest.find('|');
        if (bar == std::string::npos) fail("{" + body + "}: dot needs two rows, dot:a[r]|b[r]");
        p.a = parse_ref(rest.substr(0, bar), body);
        p.b = parse_ref(rest.substr(bar + 1), body);
        if (p.a.selectors == 1) p.a.col = kAll;
        if (p.b.selectors == 1) p.b.col = kAll;
        if (!is_vector(p.a) || !is_vector(p.b)) fail("{" + body + "}: dot needs a row or column on each side");
        return p;
    }
    p.a = parse_ref(rest, body);
    if (p.a.selectors == 1) p.a.col = kAll;  // stage[r] is the row
    if (p.fn == "rows" || p.fn == "cols") {
        if (p.a.selectors != 0) fail("{" + body + "}: " + p.fn + " takes a stage name only");
    } else if (p.fn.empty() || p.fn == "exp" || p.fn == "naive") {
        if (p.a.selectors == 0) fail("{" + body + "}: name a cell, row or column, not the whole stage");
        if (p.a.row == kAll && p.a.col == kAll) fail("{" + body + "}: name a cell, row or column, not [*][*]");
    } else if (!contains(kReducers, p.fn)) {
        fail("{" + body + "}: unknown function '" + p.fn + "' (sum, max, min, maxabs, zeros, size, naive, exp, rows, cols, dot)");
    }
    return p;
}

std::string list(const std::vector<float>& values) {
    std::string out = "[";
    const size_t shown = values.size() > kMaxListed ? kMaxListed - 2 : values.size();
    for (size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + format_number(values[i]);
    if (shown < values.size()) out += ", … (" + std::to_string(values.size()) + " values)";
    return out + "]";
}

// Finds stages for one rendering: the head's own, the model's, "output", and the
// masking comparison (computed once, only when a placeholder asks for it).
class Resolver {
public:
    Resolver(const Run& run, int head) : run_(run), head_(head) {}

    int head(const Ref& r) const {
        const int h = r.head >= 0 ? r.head : head_;
        if (h < 0 || h >= static_cast<int>(run_.trace.heads.size()))
            fail("head " + std::to_string(h + 1) + " does not exist: the view has " +
                 std::to_string(run_.trace.heads.size()) + " head(s)");
        return h;
    }

    const Matrix& stage(const Ref& r) {
        const int h = head(r);
        if (contains(masking_stage_names(), r.stage)) {
            auto it = masking_.find(h);
            if (it == masking_.end()) {
                try {
                    it = masking_.emplace(h, compare_masking(run_.trace.heads[static_cast<size_t>(h)])).first;
                } catch (const ComparisonError& e) {
                    fail(e.what());
                }
            }
            return it->second.at(r.stage);
        }
        if (const Stage* s = run_.trace.heads[static_cast<size_t>(h)].find(r.stage)) return s->value;
        if (const Stage* s = run_.trace.model.find(r.stage)) return s->value;
        if (r.stage == "output" && !run_.trace.output.empty()) return run_.trace.output[0];
        fail("the " + run_.trace.variant + " view has no stage '" + r.stage + "'");
    }

    std::vector<float> select(const Ref& r) {
        const Matrix& m = stage(r);
        const auto check = [&](int i, Eigen::Index n, const char* what) {
            if (i != kAll && i >= n)
                fail(std::string(what) + " " + std::to_string(i) + " is outside " + r.stage + " (" +
                     std::to_string(m.rows()) + "x" + std::to_string(m.cols()) + ", counted from 0)");
        };
        check(r.row, m.rows(), "row");
        check(r.col, m.cols(), "column");
        std::vector<float> out;
        for (Eigen::Index i = 0; i < m.rows(); ++i)
            for (Eigen::Index j = 0; j < m.cols(); ++j)
                if ((r.row == kAll || r.row == i) && (r.col == kAll || r.col == j)) out.push_back(m(i, j));
        return out;
    }

    const Run& run() const { return run_; }

private:
    const Run& run_;
    int head_;
    std::map<int, StageList> masking_;
};

std::string token(const std::optional<Tokenized>& tokens, int i, const char* which) {
    if (!tokens) fail(std::string("the view has no ") + which);
    if (i >= static_cast<int>(tokens->tokens.size()))
        fail(std::string(which) + " " + std::to_string(i) + " does not exist: there are " +
             std::to_string(tokens->tokens.size()) + " (counted from 0)");
    return tokens->tokens[static_cast<size_t>(i)];
}

std::string scalar(const Placeholder& p, Resolver& res) {
    const Run& run = res.run();
    if (p.scalar == "token") return token(run.tokens, p.index, "token");
    if (p.scalar == "token2") return token(run.tokens2, p.index, "token2");
    if (p.scalar == "num_tokens") return std::to_string(run.tokens.tokens.size());
    if (p.scalar == "num_heads") return std::to_string(run.trace.heads.size());
    if (p.scalar == "batch") return std::to_string(run.trace.output.size());
    if (is_model_scalar(p.scalar) || is_model_indexed_scalar(p.scalar))
        return model_scalar(p.scalar, res.head(p.a), p.index, run);
    const std::string& variant = run.trace.variant;
    if (p.scalar.rfind("kv_cache", 0) == 0 || p.scalar == "mha_cache_bytes") {
        if (!run.trace.kv_cache) fail("the " + variant + " view has no KV cache size (gqa, swa and mla have one)");
        const KvCacheSize& c = *run.trace.kv_cache;
        const long n = p.scalar == "kv_cache_bytes"    ? c.bytes_per_token
                       : p.scalar == "mha_cache_bytes" ? c.mha_bytes_per_token
                       : p.scalar == "kv_cache_tokens" ? c.tokens
                                                       : c.bytes_per_token * c.tokens;
        return std::to_string(n);
    }
    if (p.scalar == "window") {
        if (run.trace.window <= 0) fail("the " + variant + " view has no sliding window (swa has)");
        return std::to_string(run.trace.window);
    }
    const int head = res.head(p.a);  // the step's head unless {headN.…} named one
    const std::vector<int>& groups = run.trace.head_groups;
    if (p.scalar == "kv_group" || p.scalar == "kv_groups") {
        if (groups.size() != run.trace.heads.size()) fail("the " + variant + " view has no key/value groups (gqa has)");
        // Counted from 1, as the head strip labels a group ("kv 1"); the trace counts from 0.
        const int group = p.scalar == "kv_group" ? groups[static_cast<size_t>(head)]
                                                 : *std::max_element(groups.begin(), groups.end());
        return std::to_string(group + 1);
    }
    // d_k: the width of the keys a query is compared with (the inputs' for simplified).
    const HeadTrace& h = run.trace.heads.at(static_cast<size_t>(head));
    const Eigen::Index d_k = h.find("keys") ? h.at("keys").cols() : run.trace.model.at("inputs").cols();
    if (p.scalar == "d_k") return std::to_string(d_k);
    return format_number(static_cast<float>(std::sqrt(static_cast<double>(d_k))));
}

std::string dot(const Placeholder& p, Resolver& res) {
    const std::vector<float> a = res.select(p.a), b = res.select(p.b);
    if (a.size() != b.size())
        fail("dot of " + p.a.stage + " (" + std::to_string(a.size()) + " values) and " + p.b.stage + " (" +
             std::to_string(b.size()) + " values)");
    return format_dot_terms(a, b);  // as the app's cell details write a product
}

std::string reduce(const std::string& fn, const std::vector<float>& v) {
    if (fn == "size") return std::to_string(v.size());
    if (fn == "zeros") return std::to_string(std::count(v.begin(), v.end(), 0.0f));
    if (v.empty()) fail("an empty selection");
    if (fn == "max") return format_number(*std::max_element(v.begin(), v.end()));
    if (fn == "min") return format_number(*std::min_element(v.begin(), v.end()));
    if (fn == "maxabs") {
        float m = 0.0f;
        for (const float x : v) m = std::max(m, std::fabs(x));
        return format_number(m);
    }
    double sum = 0.0;
    for (const float x : v) sum += x;
    return format_number(static_cast<float>(sum));
}

std::string fill(const Placeholder& p, Resolver& res) {
    if (!p.scalar.empty()) return scalar(p, res);
    if (p.fn == "dot") return dot(p, res);
    if (p.fn == "rows") return std::to_string(res.stage(p.a).rows());
    if (p.fn == "cols") return std::to_string(res.stage(p.a).cols());
    if (p.a.selectors == 0) {  // a reducer over the whole stage
        const Matrix& m = res.stage(p.a);
        return reduce(p.fn, std::vector<float>(m.data(), m.data() + m.size()));
    }
    std::vector<float> v = res.select(p.a);
    if (contains(kReducers, p.fn)) return reduce(p.fn, v);
    if (p.fn == "exp")
        for (float& x : v) x = std::exp(x);
    if (p.fn == "naive") {
        double sum = 0.0;
        for (const float x : v) sum += x;
        if (sum == 0.0) fail("naive normalisation of a row that sums to 0");
        for (float& x : v) x = static_cast<float>(x / sum);
    }
    const bool cell = p.a.row != kAll && p.a.col != kAll;
    return cell ? format_number(v[0]) : list(v);
}

// Fills every placeholder; strict throws at the first problem, lenient writes "—".
std::string render(const LessonStep& step, const Run& run, bool strict) {
    const std::string prefix = step.where.empty() ? "" : step.where + ": ";
    Resolver res(run, step.head);
    std::string out;
    const std::string& t = step.text;
    for (size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if ((c == '{' || c == '}') && i + 1 < t.size() && t[i + 1] == c) {
            out += c;
            ++i;
        } else if (c == '}') {
            if (strict) throw LessonError(prefix + "a '}' without '{' (write }} for a literal brace)");
            out += c;
        } else if (c == '{') {
            const size_t close = t.find('}', i);
            if (close == std::string::npos) {
                if (strict) throw LessonError(prefix + "a '{' without '}' (write {{ for a literal brace)");
                out += t.substr(i);
                break;
            }
            try {
                out += fill(parse_placeholder(t.substr(i + 1, close - i - 1)), res);
            } catch (const std::exception& e) {
                // Lenient rendering draws a step over whatever run is on screen, which
                // may lack the step's stage or cell until its own run arrives.
                if (strict) throw LessonError(prefix + e.what());
                out += "—";
            }
            i = close;
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace

std::string render_step_text(const LessonStep& step, const Run& run) { return render(step, run, false); }

void validate_step(const LessonStep& step, const Run& run) {
    const std::string prefix = step.where.empty() ? "" : step.where + ": ";
    const auto bad = [&](const std::string& why) { throw LessonError(prefix + why); };
    if (step.head < 0 || step.head >= static_cast<int>(run.trace.heads.size()))
        bad("head " + std::to_string(step.head) + " does not exist: the view has " +
            std::to_string(run.trace.heads.size()) + " head(s), counted from 0");
    if (step.stage == kNextTokensStage) {  // the model view's top: nothing to mark in it
        if (!run.model) bad(std::string("\"stage\": ") + kNextTokensStage + " needs a model's view (--model)");
        if (!step.cells.empty() || !step.rows.empty()) bad(std::string(kNextTokensStage) + " has no cells or rows to mark");
        render(step, run, true);
        return;
    }
    Ref shown;
    shown.stage = step.stage;
    Resolver res(run, step.head);
    const Matrix* m = nullptr;
    try {
        m = &res.stage(shown);
    } catch (const LessonError& e) {
        bad(std::string("\"stage\": ") + e.what());
    }
    for (const LessonCell& c : step.cells)
        if (c.row < 0 || c.col < 0 || c.row >= m->rows() || c.col >= m->cols())
            bad("cell [" + std::to_string(c.row) + ", " + std::to_string(c.col) + "] is outside " + step.stage + " (" +
                std::to_string(m->rows()) + "x" + std::to_string(m->cols()) + ", counted from 0)");
    for (const int r : step.rows)
        if (r < 0 || r >= m->rows())
            bad("row " + std::to_string(r) + " is outside " + step.stage + " (" + std::to_string(m->rows()) + " rows)");
    render(step, run, true);
}

}  // namespace attn

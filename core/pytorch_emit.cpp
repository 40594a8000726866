#include "pytorch_emit.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>

#include "bpe_tokenizer.h"
#include "simple_tokenizer.h"
#include "utf8.h"

namespace attn {

namespace {


// ---------------------------------------------------------------------------------
// Python and shell literals
// ---------------------------------------------------------------------------------

// A Python string literal. Text stays UTF-8 (Python 3's source encoding); a byte that is
// not part of well-formed UTF-8 becomes U+FFFD, as the CLI's JSON writes it.
std::string py_str(std::string_view s) {
    const bool squote = s.find('"') != std::string_view::npos && s.find('\'') == std::string_view::npos;
    const char q = squote ? '\'' : '"';
    std::string out(1, q);
    for (std::size_t i = 0; i < s.size();) {
        const Utf8Char ch = decode_utf8_char(s, i);
        if (ch.len == 0) {
            out += "\\ufffd";
            ++i;
            continue;
        }
        const char c = s[i];
        if (c == q || c == '\\') out += {'\\', c};
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (ch.cp < 0x20 || ch.cp == 0x7f || (ch.cp >= 0x80 && ch.cp < 0xa0) || ch.cp == 0x2028 || ch.cp == 0x2029) {
            char buf[12];
            std::snprintf(buf, sizeof buf, ch.cp < 0x100 ? "\\x%02x" : "\\u%04x", static_cast<unsigned>(ch.cp));
            out += buf;
        } else out.append(s.substr(i, ch.len));
        i += ch.len;
    }
    return out + q;
}

// items joined as a Python list, wrapped before ~96 columns with continuation lines
// indented by `indent` spaces.
std::string py_list(const std::vector<std::string>& items, std::size_t indent) {
    std::string out = "[", line;
    std::size_t column = indent + 1;
    for (std::size_t i = 0; i < items.size(); ++i) {
        std::string item = items[i] + (i + 1 < items.size() ? "," : "");
        if (column + item.size() > 96 && column > indent + 1) {
            out += "\n" + std::string(indent + 1, ' ');
            column = indent + 1;
        } else if (i) {
            out += ' ';
            ++column;
        }
        out += item;
        column += item.size();
    }
    return out + "]";
}

std::string py_ints(const std::vector<int64_t>& ids, std::size_t indent) {
    std::vector<std::string> items;
    for (int64_t id : ids) items.push_back(std::to_string(id));
    return py_list(items, indent);
}

std::string py_strs(const std::vector<std::string>& strs, std::size_t indent) {
    std::vector<std::string> items;
    for (const std::string& s : strs) items.push_back(py_str(s));
    return py_list(items, indent);
}

// Shortest text that reads back as the same double, always with a '.' (0.0, 0.5, 1.0).
std::string py_float(double v) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, res.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

// A word for a POSIX shell, on one line: '...' quoting, or bash's $'...' when the text
// holds control characters (a newline would end the program's comment line) or bytes
// that are not UTF-8 (a Python source file must be UTF-8), each written as \xNN.
std::string shell_quote(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,:=+") ==
                          std::string::npos)
        return s;
    const auto plain = [](unsigned char u) { return u >= 0x20 && u != 0x7f; };
    const bool ansi = !is_valid_utf8(s) || !std::all_of(s.begin(), s.end(), [&](char c) { return plain(static_cast<unsigned char>(c)); });
    if (!ansi) {
        std::string out = "'";
        for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return out + "'";
    }
    std::string out = "$'";
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        const auto u = static_cast<unsigned char>(c);
        const std::size_t len = decode_utf8_char(s, i).len;
        if (c == '\'' || c == '\\') out += {'\\', c};
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (len == 0 || !plain(u)) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", u);
            out += buf;
        } else {
            out.append(s, i, len);
            i += len - 1;
        }
    }
    return out + "'";
}

// Whether Python's str.split() finds the same words as the CLI's words tokenizer: Python
// also splits at Unicode's whitespace, C's >> only at ASCII's. When they differ, the
// program gets the words written out instead of splitting the sentence itself.
bool python_splits_like_cli(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const Utf8Char ch = decode_utf8_char(text, i);
        if (ch.len == 0) return false;
        const char32_t c = ch.cp;
        if ((c >= 0x1c && c <= 0x1f) || c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
            c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000)
            return false;
        i += ch.len;
    }
    return true;
}

// ---------------------------------------------------------------------------------
// Which of the book's classes a run uses
// ---------------------------------------------------------------------------------

enum class Module {
    Simplified,        // 000, 3.3: no class
    SelfAttentionV1,   // 000, 3.4.2
    SelfAttention004,  // 004: SelfAttention(d_in, d_out_kq, d_out_v)
    Wrapper004,        // 004: MultiHeadAttentionWrapper of SelfAttention
    SelfAttentionV2,   // 000, 3.4.2
    Causal,            // 000, 3.5.3
    MhaWrapper,        // 000, 3.6.1
    Mha,               // 000, 3.6.2
    Cross,             // 004: CrossAttention
    CrossWrapper       // 004's wrapper with CrossAttention heads
};

struct Plan {
    Module module;
    AttentionConfig cfg;
    std::string object;     // the module's Python variable
    std::string title;      // what the class is, for the header
    bool batched = false;   // forward takes (b, T, d_in); the others take one (T, d_in) text
};

Plan plan_for(const Settings& s) {
    Plan p{Module::Simplified, attention_config(s), "", "", false};
    const AttentionConfig& c = p.cfg;
    switch (c.variant) {
    case Variant::Simplified:
        p.title = "simplified self-attention without trainable weights (chapter 3.3)";
        break;
    case Variant::SelfV1:
        if (c.heads == 1 && c.d_out_v == c.d_out) {
            p = {Module::SelfAttentionV1, c, "sa_v1", "SelfAttention_v1 (chapter 3.4.2)", false};
        } else if (c.heads == 1) {
            p = {Module::SelfAttention004, c, "sa", "SelfAttention(d_in, d_out_kq, d_out_v) of seed 004", false};
        } else {
            p = {Module::Wrapper004, c, "mha", "seed 004's MultiHeadAttentionWrapper of SelfAttention heads", false};
        }
        break;
    case Variant::SelfV2:
        p = {Module::SelfAttentionV2, c, "sa_v2", "SelfAttention_v2 (chapter 3.4.2)", false};
        break;
    case Variant::Causal:
        p = {Module::Causal, c, "ca", "CausalAttention (chapter 3.5.3)", true};
        break;
    case Variant::MhaWrapper:
        p = {Module::MhaWrapper, c, "mha", "MultiHeadAttentionWrapper of CausalAttention heads (chapter 3.6.1)", true};
        break;
    case Variant::Mha:
        p = {Module::Mha, c, "mha", "MultiHeadAttention with weight splits (chapter 3.6.2)", true};
        break;
    case Variant::Cross:
        if (c.heads == 1) p = {Module::Cross, c, "crossattn", "CrossAttention of seed 004", false};
        else p = {Module::CrossWrapper, c, "crossattn", "CrossAttention heads of seed 004, side by side", false};
        break;
    }
    return p;
}

// ---------------------------------------------------------------------------------
// The `self.trace = {...}` block that ends an instrumented forward
// ---------------------------------------------------------------------------------

struct Row {
    std::string key, expr, comment;
};

// Rows rendered one per line, "key": expr, with comments in one column.
std::string trace_rows(const std::vector<Row>& rows, std::size_t indent) {
    std::size_t width = 0;
    for (const Row& r : rows) width = std::max(width, r.key.size() + r.expr.size() + 5);
    std::string out;
    for (const Row& r : rows) {
        std::string line = std::string(indent, ' ') + "\"" + r.key + "\": " + r.expr + ",";
        if (!r.comment.empty()) line += std::string(indent + width + 1 - line.size(), ' ') + "# " + r.comment;
        out += line + "\n";
    }
    return out;
}

// What one head's stages are called inside a forward, and how to take batch element 0
// (and head h) of them.
struct HeadVars {
    std::string w_query, w_key, w_value;  // in the x @ W orientation
    std::vector<std::string> biases;      // b_query, b_key, b_value expressions, or none
    std::string queries, keys, values;
    std::string scores;   // raw q·k
    std::string masked;   // the scores with -inf where masked (before scaling)
    std::string scale;    // sqrt(d_k)
    std::string mask;
    std::string weights, dropout_mask, dropped, context;  // dropout_mask empty: no dropout
    std::string at;       // index of batch element 0 (and head h): "" or "[0]" or "[0, h]"
};

std::vector<Row> head_rows(const HeadVars& v) {
    const auto at = [&](const std::string& e) { return e + v.at; };
    std::vector<Row> rows = {{"W_query", v.w_query, v.w_query.find(".weight.T") != std::string::npos
                                                        ? "nn.Linear keeps W transposed: x @ W.T"
                                                        : ""},
                             {"W_key", v.w_key, ""},
                             {"W_value", v.w_value, ""}};
    if (!v.biases.empty()) {
        rows.push_back({"b_query", v.biases[0], "--qkv-bias"});
        rows.push_back({"b_key", v.biases[1], ""});
        rows.push_back({"b_value", v.biases[2], ""});
    }
    std::vector<Row> more = {
        {"queries", at(v.queries), ""},
        {"keys", at(v.keys), ""},
        {"values", at(v.values), ""},
        {"scores", at(v.scores), "omega: raw q·k"},
        {"scaled_scores", at(v.scores) + " / " + v.scale, "divided by sqrt(d_k)"},
        {"mask", v.mask, "1 = masked (the future)"},
        {"masked_scores", at(v.masked) + " / " + v.scale, "the softmax input: -inf where masked"},
        {"weights", at(v.weights), "softmax, rows sum to 1"}};
    rows.insert(rows.end(), more.begin(), more.end());
    if (!v.dropout_mask.empty()) {
        rows.push_back({"dropout_mask", at(v.dropout_mask), "0 = dropped, 1/(1-p) = kept"});
        rows.push_back({"dropped_weights", at(v.dropped), "weights after dropout"});
    }
    rows.push_back({"context", v.context, "context vectors"});
    return rows;
}

std::string self_trace(const std::vector<Row>& rows, const std::string& what) {
    return "        # attnscope: every stage of this forward pass" + what + ", for the JSON at the end\n"
           "        self.trace = {\n" +
           trace_rows(rows, 12) + "        }\n";
}

// ---------------------------------------------------------------------------------
// The classes, as the seed documents write them, plus the lines that record stages
// ---------------------------------------------------------------------------------

void replace(std::string& text, const std::string& key, const std::string& value) {
    text.replace(text.find(key), key.size(), value);
}

// 004's causal section, applied inside the forward (--causal).
std::string causal_lines(bool causal) {
    if (!causal) return "";
    return "        # attnscope --causal, as seed 004 masks its scores: -inf where a token would see the future\n"
           "        scores = attn_scores\n"
           "        mask = torch.triu(torch.ones(attn_scores.shape), diagonal=1)\n"
           "        attn_scores = attn_scores.masked_fill(mask.bool(), -torch.inf)\n";
}

HeadVars rand_head_vars(bool causal, const std::string& q, const std::string& k, const std::string& v,
                        const std::string& scale) {
    HeadVars h;
    h.w_query = "self.W_query";
    h.w_key = "self.W_key";
    h.w_value = "self.W_value";
    h.queries = q;
    h.keys = k;
    h.values = v;
    h.scores = causal ? "scores" : "attn_scores";
    h.masked = "attn_scores";
    h.scale = scale;
    h.mask = causal ? "mask" : "torch.zeros(attn_scores.shape)";
    h.weights = "attn_weights";
    h.context = "context_vec";
    return h;
}

std::string class_self_attention_v1(bool causal) {
    std::string c = R"PY(class SelfAttention_v1(nn.Module):

    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key   = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value

        attn_scores = queries @ keys.T # omega
{CAUSAL}        attn_weights = torch.softmax(
            attn_scores / keys.shape[-1]**0.5, dim=-1
        )

        context_vec = attn_weights @ values
{TRACE}        return context_vec
)PY";
    replace(c, "{CAUSAL}", causal_lines(causal));
    replace(c, "{TRACE}", self_trace(head_rows(rand_head_vars(causal, "queries", "keys", "values", "keys.shape[-1]**0.5")), ""));
    return c;
}

std::string class_self_attention_004(bool causal) {
    std::string c = R"PY(class SelfAttention(nn.Module):

    def __init__(self, d_in, d_out_kq, d_out_v):
        super().__init__()
        self.d_out_kq = d_out_kq
        self.W_query = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_key   = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out_v))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value

        attn_scores = queries @ keys.T  # unnormalized attention weights
{CAUSAL}        attn_weights = torch.softmax(
            attn_scores / self.d_out_kq**0.5, dim=-1
        )

        context_vec = attn_weights @ values
{TRACE}        return context_vec
)PY";
    replace(c, "{CAUSAL}", causal_lines(causal));
    replace(c, "{TRACE}", self_trace(head_rows(rand_head_vars(causal, "queries", "keys", "values", "self.d_out_kq**0.5")), ""));
    return c;
}

std::string class_wrapper_004() {
    return R"PY(class MultiHeadAttentionWrapper(nn.Module):

    def __init__(self, d_in, d_out_kq, d_out_v, num_heads):
        super().__init__()
        self.heads = nn.ModuleList(
            [SelfAttention(d_in, d_out_kq, d_out_v)
             for _ in range(num_heads)]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)
)PY";
}

std::string class_cross_attention(bool causal) {
    std::string c = R"PY(class CrossAttention(nn.Module):

    def __init__(self, d_in, d_out_kq, d_out_v):
        super().__init__()
        self.d_out_kq = d_out_kq
        self.W_query = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_key   = nn.Parameter(torch.rand(d_in, d_out_kq))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out_v))

    def forward(self, x_1, x_2):           # x_2 is new
        queries_1 = x_1 @ self.W_query

        keys_2 = x_2 @ self.W_key          # new
        values_2 = x_2 @ self.W_value      # new

        attn_scores = queries_1 @ keys_2.T # new
{CAUSAL}        attn_weights = torch.softmax(
            attn_scores / self.d_out_kq**0.5, dim=-1)

        context_vec = attn_weights @ values_2
{TRACE}        return context_vec
)PY";
    replace(c, "{CAUSAL}", causal_lines(causal));
    replace(c, "{TRACE}", self_trace(head_rows(rand_head_vars(causal, "queries_1", "keys_2", "values_2", "self.d_out_kq**0.5")), ""));
    return c;
}

std::string class_cross_wrapper() {
    return R"PY(# attnscope's --heads for cross-attention: seed 004's MultiHeadAttentionWrapper, with
# CrossAttention heads that all read the same second input.
class MultiHeadCrossAttentionWrapper(nn.Module):

    def __init__(self, d_in, d_out_kq, d_out_v, num_heads):
        super().__init__()
        self.heads = nn.ModuleList(
            [CrossAttention(d_in, d_out_kq, d_out_v)
             for _ in range(num_heads)]
        )

    def forward(self, x_1, x_2):
        return torch.cat([head(x_1, x_2) for head in self.heads], dim=-1)
)PY";
}

HeadVars linear_head_vars(bool bias, const std::string& cols) {
    HeadVars h;
    h.w_query = "self.W_query.weight.T" + cols;
    h.w_key = "self.W_key.weight.T" + cols;
    h.w_value = "self.W_value.weight.T" + cols;
    if (bias) {
        const std::string b = cols.empty() ? "" : "[cols]";
        h.biases = {"self.W_query.bias" + b, "self.W_key.bias" + b, "self.W_value.bias" + b};
    }
    h.queries = "queries";
    h.keys = "keys";
    h.values = "values";
    h.scale = "keys.shape[-1]**0.5";
    h.weights = "attn_weights";
    return h;
}

std::string class_self_attention_v2(bool causal, bool bias) {
    std::string c = R"PY(class SelfAttention_v2(nn.Module):

    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.T
{CAUSAL}        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)

        context_vec = attn_weights @ values
{TRACE}        return context_vec
)PY";
    HeadVars h = linear_head_vars(bias, "");
    h.scores = causal ? "scores" : "attn_scores";
    h.masked = "attn_scores";
    h.mask = causal ? "mask" : "torch.zeros(attn_scores.shape)";
    h.context = "context_vec";
    replace(c, "{CAUSAL}", causal_lines(causal));
    replace(c, "{TRACE}", self_trace(head_rows(h), ""));
    return c;
}

std::string dropout_helper() {
    return R"PY(def dropout_with_mask(dropout, attn_weights):
    """dropout(attn_weights), and the mask it multiplied by (0 = dropped, 1/(1-p) = kept).

    nn.Dropout does not hand out its mask. Its random draws depend only on the tensor's
    shape, so running it again from the same generator state on a tensor of ones shows
    the mask; the generator is then put back where the real call left it."""
    before = torch.get_rng_state()
    dropped = dropout(attn_weights)
    after = torch.get_rng_state()
    torch.set_rng_state(before)
    mask = dropout(torch.ones_like(attn_weights))
    torch.set_rng_state(after)
    return dropped, mask
)PY";
}

std::string class_causal_attention(bool bias) {
    std::string c = R"PY(class CausalAttention(nn.Module):

    def __init__(self, d_in, d_out, context_length,
                 dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout) # New
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1)) # New

    def forward(self, x):
        b, num_tokens, d_in = x.shape # New batch dimension b
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.transpose(1, 2) # Changed transpose
        scores = attn_scores.clone()  # attnscope: the raw scores, before the in-place mask
        attn_scores.masked_fill_(  # New, _ ops are in-place
            self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)  # `:num_tokens` to account for cases where the number of tokens in the batch is smaller than the supported context_size
        attn_weights = torch.softmax(
            attn_scores / keys.shape[-1]**0.5, dim=-1
        )
        weights = attn_weights  # attnscope: before dropout
        attn_weights, dropout_mask = dropout_with_mask(self.dropout, attn_weights) # New (attnscope: and its mask)

        context_vec = attn_weights @ values
{TRACE}        return context_vec
)PY";
    HeadVars h = linear_head_vars(bias, "");
    h.scores = "scores";
    h.masked = "attn_scores";
    h.mask = "self.mask[:num_tokens, :num_tokens]";
    h.weights = "weights";
    h.dropout_mask = "dropout_mask";
    h.dropped = "attn_weights";
    h.context = "context_vec[0]";
    h.at = "[0]";
    replace(c, "{TRACE}", self_trace(head_rows(h), " for batch element 0"));
    return c;
}

std::string class_mha_wrapper() {
    return R"PY(class MultiHeadAttentionWrapper(nn.Module):

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
             for _ in range(num_heads)]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)
)PY";
}

std::string class_mha(bool bias) {
    std::string c = R"PY(class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert (d_out % num_heads == 0), \
            "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads # Reduce the projection dim to match desired output dim

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer(
            "mask",
            torch.triu(torch.ones(context_length, context_length),
                       diagonal=1)
        )

    def forward(self, x):
        b, num_tokens, d_in = x.shape

        keys = self.W_key(x) # Shape: (b, num_tokens, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)

        # We implicitly split the matrix by adding a `num_heads` dimension
        # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head
        scores = attn_scores.clone()  # attnscope: the raw scores, before the in-place mask

        # Original mask truncated to the number of tokens and converted to boolean
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]

        # Use the mask to fill attention scores
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        weights = attn_weights  # attnscope: before dropout
        attn_weights, dropout_mask = dropout_with_mask(self.dropout, attn_weights)  # attnscope: and its mask

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        concat = context_vec  # attnscope: the heads side by side, before out_proj
        context_vec = self.out_proj(context_vec) # optional projection

        # attnscope: every stage of this forward pass for batch element 0, for the JSON at
        # the end. Head h owns columns h*head_dim ... (h+1)*head_dim-1 of each projection.
        self.trace = {"concat": concat[0], "W_out": self.out_proj.weight.T, "b_out": self.out_proj.bias,
                      "heads": []}
        for h in range(self.num_heads):
            cols = slice(h * self.head_dim, (h + 1) * self.head_dim)
            self.trace["heads"].append({
{ROWS}            })
        return context_vec
)PY";
    HeadVars h = linear_head_vars(bias, "[:, cols]");
    h.scores = "scores";
    h.masked = "attn_scores";
    h.mask = "self.mask[:num_tokens, :num_tokens]";
    h.weights = "weights";
    h.dropout_mask = "dropout_mask";
    h.dropped = "attn_weights";
    h.context = "concat[0, :, cols]";
    h.at = "[0, h]";
    std::vector<Row> rows = head_rows(h);
    rows.push_back({"W_out", "self.out_proj.weight.T", "out_proj, which every head's context passes through"});
    rows.push_back({"b_out", "self.out_proj.bias", ""});
    replace(c, "{ROWS}", trace_rows(rows, 16));
    return c;
}

// ---------------------------------------------------------------------------------
// The program
// ---------------------------------------------------------------------------------

// Python names of what the text and embedding sections define.
struct Names {
    std::string token_embeddings, pos_embeddings, inputs;  // pos_embeddings empty without --pos
    std::string inputs2;                                   // cross: the keys' input
    std::string print_tokens;                              // what the book prints of the tokens
};

// "# --- Title ------": a section rule, 88 columns wide.
std::string section(const std::string& title) {
    const std::string head = "# --- " + title + " ";
    return head + std::string(head.size() < 88 ? 88 - head.size() : 3, '-') + "\n";
}

bool is_book_sentence(const Run& run) {
    if (run.tokens2 || run.tokens.ids.size() != 6) return false;
    for (int64_t i = 0; i < 6; ++i)
        if (run.tokens.ids[static_cast<std::size_t>(i)] != i) return false;
    return true;
}

void emit_header(std::ostream& py, const Settings& s, const Run& run, const Plan& plan) {
    const std::size_t T = run.tokens.ids.size();
    std::string embedding;
    if (run.embedding == "book") embedding = "the book's hand-written 3-d embedding of its sentence";
    else embedding = "a seeded nn.Embedding table of " + std::to_string(s.d_in) + "-d vectors";
    if (s.pos) embedding += " plus positional embeddings";
    py << "# attnscope, reproduced in PyTorch: " << plan.title << ".\n"
       << "#\n"
       << "# This program computes, with the code of \"Build a Large Language Model (From Scratch)\"\n"
       << "# and its companion notebooks, what attnscope shows for\n"
       << "#\n"
       << "#     " << cli_command(s) << "\n"
       << "#\n"
       << "# on a text of " << T << (T == 1 ? " token" : " tokens") << " (" << embedding << ").\n"
       << "# Run it with PyTorch (python3 this_file.py): it prints the key tensors as the book does,\n"
       << "# then, as its last line, the JSON object that command prints: every stage of the\n"
       << "# forward pass, masked scores (-inf) written as null. With --json it prints only the JSON.\n"
       << "# Lines marked \"attnscope\" are additions to the book's code: they record the stages.\n"
       << "#\n"
       << "# Written by attnscope-cli --emit-pytorch.\n"
       << "import json\n"
       << "import sys\n"
       << "\n"
       << "import torch\n";
    if (plan.module != Module::Simplified) py << "import torch.nn as nn\n";
    py << "\n\n";
}

// The sentence(s) and the token ids; defines tokens, token_ids (and tokens2, token_ids2).
void emit_text(std::ostream& py, const Settings& s, const Run& run, Names& names) {
    py << section("The text and its tokens");
    py << "sentence = " << py_str(s.text) << "\n";
    const bool two = run.tokens2.has_value();
    if (two) py << "sentence2 = " << py_str(*s.text2) << "  # cross-attention's second text: its keys and values\n";

    if (run.embedding == "book" && is_book_sentence(run)) {
        py << "tokens = sentence.split()\n"
           << "token_ids = [0, 1, 2, 3, 4, 5]  # each word's row in the book's table below\n";
        names.print_tokens = "tokens";
        return;
    }
    const bool words_in_python = s.tokenizer == "words" && python_splits_like_cli(s.text) &&
                                 (!two || python_splits_like_cli(*s.text2));
    if (run.embedding == "book" && words_in_python) {
        py << "tokens = sentence.replace(',', '').split()  # seed 004's split: commas dropped, then whitespace\n";
        if (two) py << "tokens2 = sentence2.replace(',', '').split()\n";
        names.print_tokens = "tokens";
        return;  // the ids are the rows of the book's table: see the embedding
    }
    if (words_in_python) {
        const std::string all = two ? "(sentence + ' ' + sentence2)" : "sentence";
        py << "# Seed 004's vocabulary: the sorted words" << (two ? " of both texts" : "")
           << ", commas dropped (set: each word once)\n"
           << "dc = {s:i for i,s in enumerate(sorted(set(" << all << ".replace(',', '').split())))}\n"
           << "tokens = sentence.replace(',', '').split()\n"
           << "token_ids = [dc[s] for s in tokens]\n";
        if (two)
            py << "tokens2 = sentence2.replace(',', '').split()\n"
               << "token_ids2 = [dc[s] for s in tokens2]\n";
        names.print_tokens = "dc";
        return;
    }
    if (s.tokenizer == "gpt2") {
        py << "# GPT-2's byte-pair encoding (chapter 2): tiktoken.get_encoding(\"gpt2\").encode(sentence,\n"
           << "# allowed_special={\"<|endoftext|>\"}) gives these ids; written out so tiktoken is not needed.\n";
    } else if (s.tokenizer == "simple") {
        py << "# Chapter 2's SimpleTokenizerV2, its vocabulary the sorted words and punctuation of "
           << (s.corpus_file ? "the corpus " + *s.corpus_file : std::string(two ? "both texts" : "the text"))
           << "\n# plus <|endoftext|> and <|unk|>: tokenizer.encode(sentence) gives these ids.\n";
    } else {
        py << "# Seed 004's words (commas dropped, split at whitespace) and their ids in the sorted\n"
           << "# vocabulary, written out: this text holds characters Python's str.split() treats otherwise.\n";
    }
    py << "token_ids = " << py_ints(run.tokens.ids, 12) << "\n"
       << "tokens = " << py_strs(run.tokens.tokens, 9) << "  # each id's text\n";
    if (two)
        py << "token_ids2 = " << py_ints(run.tokens2->ids, 13) << "\n"
           << "tokens2 = " << py_strs(run.tokens2->tokens, 10) << "\n";
    names.print_tokens = "token_ids";
}

const char* kBookTable = R"PY(torch.tensor(
  [[0.43, 0.15, 0.89], # Your     (x^1)
   [0.55, 0.87, 0.66], # journey  (x^2)
   [0.57, 0.85, 0.64], # starts   (x^3)
   [0.22, 0.58, 0.33], # with     (x^4)
   [0.77, 0.25, 0.10], # one      (x^5)
   [0.05, 0.80, 0.55]] # step     (x^6)
))PY";

// The input vectors; defines names.inputs (and the embedding stages, inputs2 for two texts).
void emit_embedding(std::ostream& py, const Settings& s, const Run& run, Names& names) {
    py << "\n" << section("The embedding");
    const bool two = run.tokens2.has_value();
    const auto longest = static_cast<int64_t>(std::max(run.tokens.ids.size(), two ? run.tokens2->ids.size() : 0));
    const int64_t context_length = s.context_length.value_or(longest);
    const auto positions = [&]() {
        py << "context_length = " << context_length
           << (s.context_length ? "  # --context-length" : "  # the longest text's token count") << "\n"
           << "pos_embedding_layer = torch.nn.Embedding(context_length, " << s.d_in
           << ")  # chapter 2's absolute positions\n";
    };
    std::string second_rows;  // the second text's token embeddings
    if (run.embedding == "book") {
        if (is_book_sentence(run) && !s.pos) {
            py << "inputs = " << kBookTable << "\n";
            names.token_embeddings = names.inputs = "inputs";
            return;
        }
        if (is_book_sentence(run)) {
            py << "token_embeddings = " << kBookTable << "\n";
        } else {
            py << "# The book's hand-written 3-d vectors (chapter 3.3), one row per word of its sentence\n"
               << "book_words = [\"Your\", \"journey\", \"starts\", \"with\", \"one\", \"step\"]\n"
               << "book_inputs = " << kBookTable << "\n"
               << "token_ids = [book_words.index(w) for w in tokens]\n"
               << "token_embeddings = book_inputs[token_ids]\n";
            if (two)
                py << "token_ids2 = [book_words.index(w) for w in tokens2]\n"
                   << "token_embeddings2 = book_inputs[token_ids2]\n";
        }
        if (s.pos) {
            py << "\ntorch.manual_seed(" << s.embed_seed << ")\n";
            positions();
        }
        names.token_embeddings = "token_embeddings";
        second_rows = "token_embeddings2";
    } else {
        const int64_t vocab = run.vocab_size;
        const bool words = s.tokenizer == "words";
        const std::string layer = words ? "embed" : "token_embedding_layer";  // seed 004's name, else chapter 2's
        names.token_embeddings = words ? "embedded_sentence" : "token_embeddings";
        std::string why = s.tokenizer == "gpt2" ? "GPT-2's vocabulary" : "SimpleTokenizerV2's vocabulary";
        if (s.vocab_size) why = "--vocab-size";
        else if (words) why = "50,000 unique tokens in the vocabulary (seed 004)";
        py << "vocab_size = " << vocab << "  # " << why << "\n"
           << "\n"
           << "torch.manual_seed(" << s.embed_seed << ")\n"
           << layer << " = torch.nn.Embedding(vocab_size, " << s.d_in << ")  # create an embedding layer\n";
        if (s.pos) positions();
        py << names.token_embeddings << " = " << layer << "(torch.tensor(token_ids)).detach()\n";
        second_rows = names.token_embeddings + "2";
        if (two) py << second_rows << " = " << layer << "(torch.tensor(token_ids2)).detach()\n";
    }
    names.inputs = names.token_embeddings;
    if (two) names.inputs2 = second_rows;
    if (s.pos) {
        names.pos_embeddings = "pos_embeddings";
        py << "pos_embeddings = pos_embedding_layer(torch.arange(len(token_ids))).detach()\n"
           << "inputs = " << names.token_embeddings << " + pos_embeddings\n";
        names.inputs = "inputs";
        if (two) {
            py << "inputs2 = " << second_rows << " + pos_embedding_layer(torch.arange(len(token_ids2))).detach()\n";
            names.inputs2 = "inputs2";
        }
    }
}

void emit_classes(std::ostream& py, const Plan& plan) {
    const AttentionConfig& c = plan.cfg;
    std::vector<std::string> blocks;
    switch (plan.module) {
    case Module::Simplified: return;
    case Module::SelfAttentionV1: blocks = {class_self_attention_v1(c.causal)}; break;
    case Module::SelfAttention004: blocks = {class_self_attention_004(c.causal)}; break;
    case Module::Wrapper004: blocks = {class_self_attention_004(c.causal), class_wrapper_004()}; break;
    case Module::SelfAttentionV2: blocks = {class_self_attention_v2(c.causal, c.qkv_bias)}; break;
    case Module::Causal: blocks = {dropout_helper(), class_causal_attention(c.qkv_bias)}; break;
    case Module::MhaWrapper: blocks = {dropout_helper(), class_causal_attention(c.qkv_bias), class_mha_wrapper()}; break;
    case Module::Mha: blocks = {dropout_helper(), class_mha(c.qkv_bias)}; break;
    case Module::Cross: blocks = {class_cross_attention(c.causal)}; break;
    case Module::CrossWrapper: blocks = {class_cross_attention(c.causal), class_cross_wrapper()}; break;
    }
    py << "\n\n" << section("The attention module");
    for (std::size_t i = 0; i < blocks.size(); ++i) py << (i ? "\n\n" : "") << blocks[i];
}

std::string batch_stack(const std::string& inputs, int batch) {
    if (batch == 1) return "torch.stack((" + inputs + ",), dim=0)  # a batch of one text";
    if (batch == 2) return "torch.stack((" + inputs + ", " + inputs + "), dim=0)  # the text twice, as the book stacks it";
    return "torch.stack([" + inputs + "] * " + std::to_string(batch) + ", dim=0)  # --batch " + std::to_string(batch) +
           ": the text " + std::to_string(batch) + " times";
}

// Builds the module, runs it; defines the output as `context_vecs` (all_context_vecs for 3.3).
void emit_forward(std::ostream& py, const Plan& plan, const Names& names) {
    const AttentionConfig& c = plan.cfg;
    const int B = c.batch;
    py << "\n\n" << section("The forward pass");
    if (plan.module == Module::Simplified) {
        py << "attn_scores = " << names.inputs << " @ " << names.inputs << ".T\n"
           << "attn_weights = torch.softmax(attn_scores, dim=-1)\n"
           << "all_context_vecs = attn_weights @ " << names.inputs << "\n"
           << "\n"
           << "# attnscope: the stages, for the JSON at the end\n"
           << "trace = {\"scores\": attn_scores, \"weights\": attn_weights, \"context\": all_context_vecs}\n";
        return;
    }
    if (plan.batched) py << "batch = " << batch_stack(names.inputs, B) << "\n\n";
    py << "torch.manual_seed(" << c.seed << ")\n";
    const std::string& m = plan.object;
    const std::string bias = c.qkv_bias ? ", qkv_bias=True" : "";
    const std::string heads = ", num_heads=" + std::to_string(c.heads);
    switch (plan.module) {
    case Module::SelfAttentionV1:
        py << "d_in, d_out = " << names.inputs << ".shape[1], " << c.d_out << "\n"
           << m << " = SelfAttention_v1(d_in, d_out)\n";
        break;
    case Module::SelfAttention004:
    case Module::Wrapper004:
    case Module::Cross:
    case Module::CrossWrapper: {
        py << "d_in, d_out_kq, d_out_v = " << names.inputs << ".shape[1], " << c.d_out << ", " << c.d_out_v << "\n";
        const char* cls = plan.module == Module::SelfAttention004 ? "SelfAttention"
                          : plan.module == Module::Wrapper004     ? "MultiHeadAttentionWrapper"
                          : plan.module == Module::Cross          ? "CrossAttention"
                                                                  : "MultiHeadCrossAttentionWrapper";
        const bool wrapper = plan.module == Module::Wrapper004 || plan.module == Module::CrossWrapper;
        py << m << " = " << cls << "(d_in, d_out_kq, d_out_v" << (wrapper ? heads : "") << ")\n";
        break;
    }
    case Module::SelfAttentionV2:
        py << "d_in, d_out = " << names.inputs << ".shape[1], " << c.d_out << "\n"
           << m << " = SelfAttention_v2(d_in, d_out" << bias << ")\n";
        break;
    case Module::Causal:
    case Module::MhaWrapper:
    case Module::Mha: {
        const char* cls = plan.module == Module::Causal ? "CausalAttention"
                          : plan.module == Module::Mha  ? "MultiHeadAttention"
                                                        : "MultiHeadAttentionWrapper";
        py << "d_in, d_out = batch.shape[2], " << c.d_out << "\n"
           << "context_length = batch.shape[1]  # the number of tokens\n"
           << m << " = " << cls << "(d_in, d_out, context_length, " << py_float(c.dropout)
           << (plan.module == Module::Causal ? "" : heads) << bias << ")\n";
        break;
    }
    case Module::Simplified: break;
    }

    const bool cross = plan.module == Module::Cross || plan.module == Module::CrossWrapper;
    if (cross) {
        py << "\nfirst_input = " << names.inputs << "\n";
        if (names.inputs2.empty())
            py << "second_input = torch.rand(" << c.kv_len << ", d_in)  # seed 004: drawn right after the module's weights\n";
        else
            py << "second_input = " << names.inputs2 << "\n";
    }
    if (plan.batched) {
        if (!c.training) py << m << ".eval()  # attnscope --eval: evaluation mode, dropout does nothing\n";
        if (c.dropout_seed)
            py << "\ntorch.manual_seed(" << *c.dropout_seed
               << ")  # attnscope --dropout-seed: re-seed right before the forward, as the book does before dropout\n";
        py << "context_vecs = " << m << "(batch)\n";
        return;
    }
    const std::string args = cross ? "(first_input, second_input)" : "(" + names.inputs + ")";
    const std::string arg_b = cross ? "(x, second_input)" : "(x)";
    if (B == 1) {
        py << "\ncontext_vecs = " << m << args << "\n";
    } else {
        py << "\nbatch = " << batch_stack(cross ? "first_input" : names.inputs, B) << "\n"
           << "# This class takes one text at a time: one forward per batch element. Every element is\n"
           << "# the same text, so the stages recorded by the last call are element 0's too.\n"
           << "context_vecs = torch.stack([" << m << arg_b << " for x in batch])\n";
    }
}

std::string head_list(const Plan& plan) {
    switch (plan.module) {
    case Module::Simplified: return "[stages(trace)]";
    case Module::Wrapper004:
    case Module::CrossWrapper:
    case Module::MhaWrapper: return "[stages(head.trace) for head in " + plan.object + ".heads]";
    case Module::Mha: return "[stages(head) for head in " + plan.object + ".trace[\"heads\"]]";
    default: return "[stages(" + plan.object + ".trace)]";
    }
}

void emit_json(std::ostream& py, const Settings& s, const Run& run, const Plan& plan, const Names& names) {
    const AttentionConfig& c = plan.cfg;
    const bool out_3d = plan.batched || (c.batch > 1 && plan.module != Module::Simplified);
    py << "\n\n" << section("The trace, as attnscope-cli prints it")
       << "def plain(t):\n"
       << "    \"\"\"A tensor as nested lists of floats, with -inf (a masked score) as None: JSON has\n"
       << "    no infinity, so attnscope writes null there.\"\"\"\n"
       << "    def fix(v):\n"
       << "        if isinstance(v, list):\n"
       << "            return [fix(e) for e in v]\n"
       << "        return None if v == float(\"-inf\") else v\n"
       << "    return fix(t.tolist())\n"
       << "\n\n"
       << "def stages(trace):\n"
       << "    return {name: plain(t) for name, t in trace.items()}\n"
       << "\n\n"
       << "def attnscope_json():\n"
       << "    return {\n"
       << "        \"variant\": " << py_str(variant_name(c.variant)) << ",\n"
       << "        \"tokens\": tokens,\n"
       << "        \"token_ids\": token_ids,\n";
    if (run.tokens2) py << "        \"tokens2\": tokens2,\n        \"token_ids2\": token_ids2,\n";
    py << "        \"embedding\": " << py_str(run.embedding) << ",\n"
       << "        \"token_embeddings\": plain(" << names.token_embeddings << "),\n";
    if (s.pos) py << "        \"pos_embeddings\": plain(" << names.pos_embeddings << "),\n";
    py << "        \"inputs\": plain(" << names.inputs << "),\n";
    if (c.variant == Variant::Cross) py << "        \"inputs2\": plain(second_input),\n";
    if (plan.module == Module::Mha)
        for (const char* k : {"W_out", "b_out", "concat"})
            py << "        \"" << k << "\": plain(" << plan.object << ".trace[\"" << k << "\"]),\n";
    else if (c.heads > 1)
        py << "        \"concat\": plain(context_vecs" << (out_3d ? "[0]" : "") << "),  # the heads side by side\n";
    py << "        \"heads\": " << head_list(plan) << ",\n";
    if (plan.module == Module::Simplified)
        py << "        \"output\": [plain(all_context_vecs)] * " << c.batch << ",  # one per batch element\n";
    else if (out_3d)
        py << "        \"output\": plain(context_vecs),\n";
    else
        py << "        \"output\": [plain(context_vecs)],  # a batch of one\n";
    py << "    }\n";
}

std::string weights_expr(const Plan& plan) {
    switch (plan.module) {
    case Module::Simplified: return "attn_weights";
    case Module::Wrapper004:
    case Module::CrossWrapper:
    case Module::MhaWrapper: return plan.object + ".heads[0].trace[\"weights\"]";
    case Module::Mha: return plan.object + ".trace[\"heads\"][0][\"weights\"]";
    default: return plan.object + ".trace[\"weights\"]";
    }
}

void emit_main(std::ostream& py, const Plan& plan, const Names& names) {
    const bool several = plan.cfg.heads > 1 || plan.module == Module::MhaWrapper || plan.module == Module::Mha;
    const bool batch0 = plan.batched;
    const std::string out = plan.module == Module::Simplified ? "all_context_vecs" : "context_vecs";
    py << "\n\nif __name__ == \"__main__\":\n"
       << "    if sys.argv[1:] != [\"--json\"]:  # the book's prints; --json leaves only the JSON line\n"
       << "        print(" << names.print_tokens << ")\n"
       << "        print(" << names.inputs << ")\n";
    if (plan.module == Module::Simplified) py << "        print(attn_scores)\n";
    py << "        print(" << weights_expr(plan) << ")  # attention weights"
       << (several ? " of head 0" : "") << (batch0 ? ", batch element 0" : "") << "\n"
       << "        print(" << out << ")\n"
       << "        print(\"" << out << ".shape:\", " << out << ".shape)\n"
       << "    print(json.dumps(attnscope_json()))\n";
}

}  // namespace

std::string cli_command(const Settings& s) {
    // The variant first, always: the command reads as "which module, then how".
    std::string cmd = "attnscope-cli --variant " + variant_name(s.attention.variant);
    const std::vector<std::string> flags = settings_flags(s);
    for (size_t i = 0; i < flags.size(); ++i) {
        const SettingRow& row = *find_setting_flag(flags[i]);
        const bool alone = row.type == SettingType::Switch || row.type == SettingType::SwitchOff;
        std::string item = " " + flags[i];
        if (!alone) item += " " + shell_quote(flags[++i]);
        if (std::string(row.key) != "variant") cmd += item;
    }
    return cmd;
}

std::string emit_pytorch(const Settings& s, const Run& run) {
    const Plan plan = plan_for(s);
    Names names;
    std::ostringstream py;
    emit_header(py, s, run, plan);
    emit_text(py, s, run, names);
    emit_embedding(py, s, run, names);
    emit_classes(py, plan);
    emit_forward(py, plan, names);
    emit_json(py, s, run, plan, names);
    emit_main(py, plan, names);
    return py.str();
}

}  // namespace attn

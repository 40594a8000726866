// The attnscope-cli command for a set of settings (see cli_command.h).
#include "cli_command.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "utf8.h"

namespace attn {

namespace {

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

}  // namespace

std::string cli_command(const Settings& s) {
    const Settings d;
    const AttentionConfig& a = s.attention;
    const AttentionConfig& da = d.attention;
    std::string cmd = "attnscope-cli --variant " + variant_name(a.variant);
    const auto flag = [&](const std::string& name, const std::string& value) { cmd += " " + name + " " + shell_quote(value); };
    if (s.text != d.text) flag("--text", s.text);
    if (s.text2) flag("--text2", *s.text2);
    if (s.tokenizer != d.tokenizer) flag("--tokenizer", s.tokenizer);
    if (s.corpus_file) flag("--corpus", *s.corpus_file);
    if (s.embedding != d.embedding) flag("--embedding", s.embedding);
    if (a.seed != da.seed) flag("--seed", std::to_string(a.seed));
    if (s.embed_seed != d.embed_seed) flag("--embed-seed", std::to_string(s.embed_seed));
    if (s.d_in != d.d_in) flag("--d-in", std::to_string(s.d_in));
    if (a.d_out != da.d_out) flag("--d-out", std::to_string(a.d_out));
    if (s.d_out_v) flag("--d-out-v", std::to_string(*s.d_out_v));
    if (a.heads != da.heads) flag("--heads", std::to_string(a.heads));
    if (a.dropout != da.dropout) {
        char buf[32];
        const auto res = std::to_chars(buf, buf + sizeof buf, a.dropout);
        flag("--dropout", std::string(buf, res.ptr));
    }
    if (a.qkv_bias) cmd += " --qkv-bias";
    if (a.batch != da.batch) flag("--batch", std::to_string(a.batch));
    if (s.pos) cmd += " --pos";
    if (s.vocab_size) flag("--vocab-size", std::to_string(*s.vocab_size));
    if (s.context_length) flag("--context-length", std::to_string(*s.context_length));
    if (a.dropout_seed) flag("--dropout-seed", std::to_string(*a.dropout_seed));
    if (a.causal) cmd += " --causal";
    if (!a.training) cmd += " --eval";
    if (a.kv_len != da.kv_len) flag("--kv-len", std::to_string(a.kv_len));
    return cmd;
}

}  // namespace attn

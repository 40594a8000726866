#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "memory_budget.h"
#include "settings.h"

namespace attn {

namespace {

template <typename Int>
Int parse_int(const std::string& flag, const std::string& text, Int lo, Int hi) {
    Int value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        throw ArgsError(flag + " needs a whole number, got '" + text + "'");
    if (value < lo || value > hi)
        throw ArgsError(flag + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                        ", got " + text);
    return value;
}

// Length of the run of ASCII digits at text[i].
size_t digits_at(const std::string& text, size_t i) {
    size_t n = 0;
    while (i + n < text.size() && std::isdigit(static_cast<unsigned char>(text[i + n]))) ++n;
    return n;
}

// Plain decimal notation: [-]digits[.digits][(e|E)[+-]digits], nothing before or after.
// strtod also took " 0.5", "0x1p-2", "inf" and "nan", and from_chars takes "1." and
// "1.e5"; no user means any of them as a rate. (Session files write their numbers with
// nlohmann::json, e.g. 1e-05 and 0.1, which pass.)
bool plain_decimal(const std::string& text) {
    size_t i = text.size() > 0 && text[0] == '-' ? 1 : 0;
    size_t n = digits_at(text, i);
    if (n == 0) return false;
    i += n;
    if (i < text.size() && text[i] == '.') {
        if ((n = digits_at(text, i + 1)) == 0) return false;
        i += 1 + n;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        if ((n = digits_at(text, i)) == 0) return false;
        i += n;
    }
    return i == text.size();
}

double parse_double(const std::string& flag, const std::string& text) {
    double value = 0.0;
    const char* last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(text.data(), last, value, std::chars_format::general);
    if (!plain_decimal(text) || ec != std::errc() || end != last || !std::isfinite(value))
        throw ArgsError(flag + " needs a number such as 0.5, got '" + text + "'");
    return value;
}

std::vector<std::string> split_commas(const std::string& list) {
    std::vector<std::string> items;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

}  // namespace

std::string settings_usage() {
    return "usage: attnscope-cli [--variant simplified|self-v1|self-v2|causal|mha-wrapper|mha|cross]\n"
           "  [--text TEXT] [--text2 TEXT] [--tokenizer words|simple|gpt2] [--corpus FILE]\n"
           "  [--embedding auto|book|random] [--seed N] [--embed-seed N] [--d-in N] [--d-out N]\n"
           "  [--d-out-v N] [--heads N] [--dropout P] [--qkv-bias] [--batch N] [--pos]\n"
           "  [--vocab-size N] [--context-length N] [--dropout-seed N] [--causal] [--eval]\n"
           "  [--kv-len N] [--stages a,b,...] [--time N] [--emit-pytorch] [--export DIR]\n"
           "  [--memory-budget SIZE]\n"
           "Prints every stage of the attention forward pass as one JSON object;\n"
           "--emit-pytorch prints a PyTorch program that prints the same JSON instead,\n"
           "--export DIR writes every stage to DIR as .npy and .csv files.\n"
           "Work that would need more memory than the budget (default a third of the machine's,\n"
           "or ATTNSCOPE_MEMORY_BUDGET; e.g. 2G) or over 60 s is refused before it starts.\n";
}

ParsedArgs parse_settings(const std::vector<std::string>& args) {
    ParsedArgs parsed;
    Settings& s = parsed.settings;
    AttentionConfig& a = s.attention;
    constexpr int64_t kMaxSeed = INT64_MAX;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& flag = args[i];
        const auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) throw ArgsError(flag + " needs a value");
            return args[++i];
        };
        if (flag == "--help" || flag == "-h") parsed.help = true;
        else if (flag == "--variant") {
            const std::string& name = value();
            const auto v = variant_from_name(name);
            if (!v) throw ArgsError("unknown variant '" + name + "' (simplified, self-v1, self-v2, causal, mha-wrapper, mha, cross)");
            a.variant = *v;
        }
        else if (flag == "--text") s.text = value();
        else if (flag == "--text2") s.text2 = value();
        else if (flag == "--tokenizer") s.tokenizer = value();
        else if (flag == "--corpus") s.corpus_file = value();
        else if (flag == "--embedding") {
            s.embedding = value();
            if (s.embedding != "auto" && s.embedding != "book" && s.embedding != "random")
                throw ArgsError("unknown embedding '" + s.embedding + "' (auto, book, random)");
        }
        else if (flag == "--seed") a.seed = static_cast<uint64_t>(parse_int<int64_t>(flag, value(), 0, kMaxSeed));
        else if (flag == "--embed-seed") s.embed_seed = static_cast<uint64_t>(parse_int<int64_t>(flag, value(), 0, kMaxSeed));
        else if (flag == "--dropout-seed") a.dropout_seed = static_cast<uint64_t>(parse_int<int64_t>(flag, value(), 0, kMaxSeed));
        else if (flag == "--d-in") s.d_in = parse_int<int>(flag, value(), 1, 4096);
        else if (flag == "--d-out") a.d_out = parse_int<int>(flag, value(), 1, 4096);
        else if (flag == "--d-out-v") s.d_out_v = parse_int<int>(flag, value(), 1, 4096);
        else if (flag == "--heads") a.heads = parse_int<int>(flag, value(), 1, 64);
        else if (flag == "--batch") a.batch = parse_int<int>(flag, value(), 1, 64);
        else if (flag == "--kv-len") a.kv_len = parse_int<int>(flag, value(), 1, 4096);
        else if (flag == "--vocab-size") s.vocab_size = parse_int<int64_t>(flag, value(), 1, 10'000'000);
        else if (flag == "--context-length") s.context_length = parse_int<int64_t>(flag, value(), 1, 65536);
        else if (flag == "--time") s.time_runs = parse_int<int>(flag, value(), 1, 100000);
        else if (flag == "--dropout") {
            a.dropout = parse_double(flag, value());
            parsed.dropout_given = true;
            if (!(a.dropout >= 0.0 && a.dropout <= 1.0))
                throw ArgsError("--dropout must be in [0, 1], got " + args[i]);
        }
        else if (flag == "--qkv-bias") a.qkv_bias = true;
        else if (flag == "--pos") s.pos = true;
        else if (flag == "--causal") a.causal = true;
        else if (flag == "--eval") a.training = false;
        else if (flag == "--stages") s.stages = split_commas(value());
        else if (flag == "--emit-pytorch") s.emit_pytorch = true;
        else if (flag == "--export") s.export_dir = value();
        else if (flag == "--memory-budget") s.memory_budget = parse_size(flag, value());
        else parsed.rest.push_back(flag);
    }
    return parsed;
}

}  // namespace attn

#include "check/recorded_attention.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "attention/attention.h"  // limits
#include "model/safetensors.h"

namespace attn {

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

// Reads the record's tensors, each checked against the shape the others give it.
class Reader {
public:
    explicit Reader(const std::string& path) : file_(path) {}

    const TensorEntry* find(const std::string& name) const { return file_.header().find(name); }

    // `name` as floats of exactly `shape` (`words` says what makes that shape), row-major as
    // torch's C order, each finite unless `any_value` (a stage: the user's numbers, which may
    // be masked scores' -inf or a mistake's nan).
    std::vector<float> floats(const std::string& name, const std::vector<int64_t>& shape, const std::string& words,
                              bool any_value = false) const {
        const TensorEntry* e = find(name);
        if (!e) throw ModelFileError(file_.path() + ": no " + name + " (" + words + ")");
        if (!is_float_dtype(e->dtype))
            throw ModelFileError(file_.path() + ": " + name + " is " + dtype_name(e->dtype) + ", not a float tensor");
        if (e->shape != shape)
            throw ModelFileError(file_.path() + ": " + name + " is " + e->shape_text() + ": " + words + " make " +
                                 shape_text(shape));
        std::vector<float> all(static_cast<size_t>(e->elements()));
        file_.read_floats(*e, all.data());
        if (!any_value)
            for (float v : all)
                if (!std::isfinite(v)) throw ModelFileError(file_.path() + ": " + name + " holds inf or nan");
        return all;
    }

    // A matrix or a vector (one row).
    Matrix matrix(const std::string& name, const std::vector<int64_t>& shape, const std::string& words,
                  bool any_value = false) const {
        const std::vector<float> all = floats(name, shape, words, any_value);
        Matrix m(shape.size() >= 2 ? shape[shape.size() - 2] : 1, shape.back());
        std::copy(all.begin(), all.end(), m.data());
        return m;
    }

    // The heads x T x T stage `name` as one T x T matrix a head (T x T in a single-head class).
    std::vector<Matrix> slices(const std::string& name, int heads, int T, bool single_head_class) const {
        const std::vector<float> all =
            single_head_class ? floats(name, {T, T}, std::to_string(T) + " tokens", true)
                              : floats(name, {heads, T, T}, std::to_string(heads) + " heads of " + std::to_string(T) + " tokens",
                                       true);
        std::vector<Matrix> out;
        for (int h = 0; h < heads; ++h) {
            Matrix m(T, T);
            std::copy(all.begin() + static_cast<std::ptrdiff_t>(h) * T * T,
                      all.begin() + static_cast<std::ptrdiff_t>(h + 1) * T * T, m.data());
            out.push_back(std::move(m));
        }
        return out;
    }

    bool has_setting(const std::string& key) const { return file_.header().metadata.count(key) > 0; }
    // A setting from the metadata: JSON text, as the recorder writes it.
    nlohmann::json setting(const std::string& key) const {
        const auto& metadata = file_.header().metadata;
        const auto it = metadata.find(key);
        if (it == metadata.end())
            throw ModelFileError(file_.path() + ": no setting " + key + " in its metadata (written by attnscope_record)");
        nlohmann::json j = nlohmann::json::parse(it->second, nullptr, false);
        if (j.is_discarded()) throw ModelFileError(file_.path() + ": the setting " + key + " is not JSON");
        return j;
    }
    int count(const std::string& key, int most, int least = 1) const {
        const nlohmann::json j = setting(key);
        if (!j.is_number_integer() || j.get<int64_t>() < least || j.get<int64_t>() > most)
            throw ModelFileError(file_.path() + ": the setting " + key + " is not a whole number from " +
                                 std::to_string(least) + " to " + std::to_string(most));
        return j.get<int>();
    }
    // A whole number (10000.0 as Python may write a base counts) or null (None).
    std::optional<int> count_or_none(const std::string& key, int least, int most) const {
        const nlohmann::json j = setting(key);
        if (j.is_null()) return std::nullopt;
        const double v = j.is_number() ? j.get<double>() : 0.0;
        if (!j.is_number() || !(v >= least && v <= most) || v != std::floor(v))
            throw ModelFileError(file_.path() + ": the setting " + key + " is not None or a whole number from " +
                                 std::to_string(least) + " to " + std::to_string(most));
        return static_cast<int>(v);
    }
    bool flag(const std::string& key) const {
        const nlohmann::json j = setting(key);
        if (!j.is_boolean()) throw ModelFileError(file_.path() + ": the setting " + key + " is not true or false");
        return j.get<bool>();
    }
    const std::string& path() const { return file_.path(); }

private:
    SafetensorsFile file_;
};

// Which class the "variant" setting names (none: chapter 3's split and single-head classes).
// Read first: the wrapper's d_out and num_heads mean something else.
RecordedVariant variant_of(const Reader& file) {
    if (!file.has_setting("variant")) return RecordedVariant::Chapter3;  // files from before any variant
    const nlohmann::json v = file.setting("variant");
    const std::string name = v.is_string() ? v.get<std::string>() : "";
    for (RecordedVariant k : {RecordedVariant::Gqa, RecordedVariant::Swa, RecordedVariant::Mla, RecordedVariant::Alibi,
                              RecordedVariant::SelfV1, RecordedVariant::MhaWrapper})
        if (name == recorded_variant_name(k)) return k;
    throw ModelFileError(file.path() + ": the setting variant is " + v.dump() +
                         ", not one of gqa, swa, mla, alibi, self-v1, mha-wrapper");
}

// The variant's own settings, each checked against the others.
void read_variant(const Reader& file, RecordedAttention& r) {
    const std::string& path = file.path();
    const std::string name = recorded_variant_name(r.variant);
    if (r.variant == RecordedVariant::Chapter3) return;
    const bool chapter3 = r.variant == RecordedVariant::SelfV1 || r.variant == RecordedVariant::MhaWrapper;
    if (chapter3 && r.out_proj)
        throw ModelFileError(path + ": a " + name + " record with out_proj: the book's " + r.class_name +
                             " has none (the setting out_proj is true)");
    if (!chapter3 && !r.out_proj)
        throw ModelFileError(path + ": a " + name + " record without out_proj: the book's " + r.class_name +
                             " has one (the setting out_proj is false)");
    if (r.variant == RecordedVariant::SelfV1 && r.heads != 1)
        throw ModelFileError(path + ": a self-v1 record of " + std::to_string(r.heads) +
                             " heads: SelfAttention_v1 is one head (the setting num_heads must be 1)");
    // The engine's SelfAttention_v1 has no dropout: a rate would be checked as none.
    if (r.variant == RecordedVariant::SelfV1 && r.dropout != 0.0)
        throw ModelFileError(path + ": a self-v1 record with dropout: SelfAttention_v1 has none (the setting dropout "
                             "must be 0)");
    if (r.variant == RecordedVariant::Gqa) {
        r.kv_groups = file.count("num_kv_groups", r.heads);
        if (r.heads % r.kv_groups != 0)
            throw ModelFileError(path + ": num_heads " + std::to_string(r.heads) + " is not a multiple of num_kv_groups " +
                                 std::to_string(r.kv_groups) + ": each group serves the same number of heads");
        r.rope_base = file.count_or_none("rope_base", limits::kMinRopeBase, limits::kMaxRopeBase);
        if (r.rope_base && r.head_dim() % 2 != 0)
            throw ModelFileError(path + ": RoPE (rope_base " + std::to_string(*r.rope_base) +
                                 ") rotates pairs of features: head_dim " + std::to_string(r.head_dim()) + " is odd");
    }
    if (r.variant == RecordedVariant::Swa) r.window = file.count_or_none("sliding_window_size", 1, limits::kMaxWindow);
    if (r.variant == RecordedVariant::Mla) r.latent_dim = file.count("latent_dim", limits::kMaxWidth);
}

std::string linear_words(int64_t in, int64_t out) {
    return "nn.Linear(" + std::to_string(in) + ", " + std::to_string(out) + ")";
}

// W_query, W_key and W_value (mla: W_query, W_DKV, W_UK, W_UV) and their biases.
void read_projections(const Reader& file, RecordedAttention& r) {
    const int64_t d_in = r.d_in, d_out = r.d_out;
    const auto weight = [&](const std::string& layer, int64_t in, int64_t out, const std::string& words) {
        return file.matrix("param." + layer + ".weight", {out, in}, words).transpose().eval();
    };
    const auto bias = [&](const std::string& layer, int64_t out) -> std::optional<RowVector> {
        const std::string name = "param." + layer + ".bias";
        if (!file.find(name)) return std::nullopt;
        return RowVector(file.matrix(name, {out}, "a bias of " + layer + "'s " + std::to_string(out) + " outputs"));
    };
    if (r.variant == RecordedVariant::SelfV1) {  // nn.Parameter(torch.rand(d_in, d_out)), used as x @ W
        const std::string words = "d_in " + std::to_string(d_in) + " × d_out " + std::to_string(d_out) + " (x @ W)";
        r.W_query = file.matrix("param.W_query", {d_in, d_out}, words);
        r.W_key = file.matrix("param.W_key", {d_in, d_out}, words);
        r.W_value = file.matrix("param.W_value", {d_in, d_out}, words);
        return;
    }
    if (r.variant == RecordedVariant::MhaWrapper) {  // heads.H.W_query, ...: one CausalAttention a head
        const int64_t hd = r.head_dim();
        const auto side_by_side = [&](const std::string& proj, Matrix& W, std::optional<RowVector>& b) {
            W.resize(d_in, d_out);
            for (int h = 0; h < r.heads; ++h) {
                const std::string layer = "heads." + std::to_string(h) + "." + proj;
                W.middleCols(h * hd, hd) = weight(layer, d_in, hd, linear_words(d_in, hd));
                const std::optional<RowVector> part = bias(layer, hd);
                if (h > 0 && part.has_value() != b.has_value())
                    throw ModelFileError(file.path() + ": param." + layer + ".bias " +
                                         (part ? "is there, head 0's is not" : "is missing, head 0's is there") +
                                         " (qkv_bias is one setting of every head)");
                if (part && h == 0) b = RowVector(d_out);
                if (part) b->segment(h * hd, hd) = *part;
            }
        };
        side_by_side("W_query", r.W_query, r.b_query);
        side_by_side("W_key", r.W_key, r.b_key);
        side_by_side("W_value", r.W_value, r.b_value);
        return;
    }
    r.W_query = weight("W_query", d_in, d_out, linear_words(d_in, d_out));
    r.b_query = bias("W_query", d_out);
    if (r.variant == RecordedVariant::Mla) {
        const int64_t latent = r.latent_dim;
        r.W_DKV = weight("W_DKV", d_in, latent, linear_words(d_in, latent) + " (latent_dim " + std::to_string(latent) + ")");
        r.b_DKV = bias("W_DKV", latent);
        r.W_key = weight("W_UK", latent, d_out, linear_words(latent, d_out));
        r.b_key = bias("W_UK", d_out);
        r.W_value = weight("W_UV", latent, d_out, linear_words(latent, d_out));
        r.b_value = bias("W_UV", d_out);
        return;
    }
    const int64_t kv = r.kv_width();
    const std::string kv_words = r.variant == RecordedVariant::Gqa
                                     ? "num_kv_groups " + std::to_string(r.kv_groups) + " of head_dim " +
                                           std::to_string(r.head_dim()) + " from d_in " + std::to_string(d_in)
                                     : linear_words(d_in, d_out);
    r.W_key = weight("W_key", d_in, kv, kv_words);
    r.b_key = bias("W_key", kv);
    r.W_value = weight("W_value", d_in, kv, kv_words);
    r.b_value = bias("W_value", kv);
}

}  // namespace

const char* recorded_variant_name(RecordedVariant v) {
    switch (v) {
    case RecordedVariant::Chapter3: return "";
    case RecordedVariant::Gqa: return "gqa";
    case RecordedVariant::Swa: return "swa";
    case RecordedVariant::Mla: return "mla";
    case RecordedVariant::Alibi: return "alibi";
    case RecordedVariant::SelfV1: return "self-v1";
    case RecordedVariant::MhaWrapper: return "mha-wrapper";
    }
    return "";
}

RecordedAttention read_recorded_attention(const std::string& path) {
    const Reader file(path);
    RecordedAttention r;
    const nlohmann::json name = file.setting("class");
    r.class_name = name.is_string() ? name.get<std::string>() : "";
    r.variant = variant_of(file);
    r.d_in = file.count("d_in", 1 << 16);
    r.d_out = file.count("d_out", 1 << 16);
    if (r.variant == RecordedVariant::MhaWrapper) {  // d_out is each head's: the heads side by side are wider
        r.heads = file.count("num_heads", limits::kMaxHeads);
        r.d_out *= r.heads;
    } else {
        r.heads = file.count("num_heads", r.d_out);
    }
    if (r.d_out % r.heads != 0)
        throw ModelFileError(path + ": d_out " + std::to_string(r.d_out) + " is not a multiple of num_heads " +
                             std::to_string(r.heads));
    const nlohmann::json p = file.setting("dropout");
    if (!p.is_number() || !(p.get<double>() >= 0.0 && p.get<double>() <= 1.0))
        throw ModelFileError(path + ": the setting dropout is not a rate from 0 to 1");
    r.dropout = p.get<double>();
    r.training = file.flag("training");
    r.qkv_bias = file.flag("qkv_bias");
    r.mask = file.flag("mask");
    r.out_proj = file.flag("out_proj");
    if (file.has_setting("stated_qkv_bias")) r.stated_qkv_bias = file.flag("stated_qkv_bias");
    read_variant(file, r);

    const TensorEntry* input = file.find("input");
    if (!input || input->shape.size() != 2)
        throw ModelFileError(path + ": no input of shape [tokens, d_in] (attnscope_record writes one)");
    const int64_t T = input->shape[0];
    if (T < 1 || T > kMaxCheckedTokens)
        throw ModelFileError(path + ": the input has " + std::to_string(T) + " tokens; a check takes 1 to " +
                             std::to_string(kMaxCheckedTokens));
    const auto tokens = static_cast<int>(T);
    // The forward keeps about ten T x T stages a head: refused before anything is allocated.
    if (static_cast<double>(r.heads) * static_cast<double>(T) * static_cast<double>(T) > kMaxCheckedWeights)
        throw ModelFileError(path + ": " + std::to_string(r.heads) + " heads of " + std::to_string(T) +
                             " tokens are too many weights to check (at most " +
                             std::to_string(static_cast<int64_t>(kMaxCheckedWeights)) + " a stage)");
    const int64_t d_in = r.d_in, d_out = r.d_out;
    r.input = file.matrix("input", {T, d_in}, std::to_string(T) + " tokens of d_in " + std::to_string(d_in));
    read_projections(file, r);
    if (r.out_proj) {
        r.W_out = file.matrix("param.out_proj.weight", {d_out, d_out}, linear_words(d_out, d_out)).transpose();
        if (file.find("param.out_proj.bias"))
            r.b_out = file.matrix("param.out_proj.bias", {d_out}, "a bias of d_out " + std::to_string(d_out));
    }
    if (r.variant == RecordedVariant::Alibi && file.find("param.slopes")) {
        const std::vector<float> slopes =
            file.floats("param.slopes", {r.heads}, "one ALiBi slope a head of " + std::to_string(r.heads));
        r.slopes = slopes;
    }
    const auto rows = [&](int64_t width, const std::string& what) {
        return std::to_string(T) + " tokens of " + what + " " + std::to_string(width);
    };
    const std::string d_out_what = r.variant == RecordedVariant::MhaWrapper ? "num_heads × d_out" : "d_out";
    const std::string kv_what = r.variant == RecordedVariant::Gqa ? "num_kv_groups × head_dim" : d_out_what;
    const std::vector<std::pair<std::string, std::pair<int64_t, std::string>>> widths = {
        {"queries", {d_out, d_out_what}}, {"keys", {r.kv_width(), kv_what}}, {"values", {r.kv_width(), kv_what}},
        {"concat", {d_out, d_out_what}},  {"output", {d_out, d_out_what}}};
    for (const auto& [stage, width] : widths)
        // concat is what goes into out_proj: a class without one has none to compare.
        if (file.find("stage." + stage) && (stage != "concat" || r.out_proj))
            r.stages[stage] = {file.matrix("stage." + stage, {T, width.first}, rows(width.first, width.second), true)};
    if (r.variant == RecordedVariant::Mla && file.find("stage.latents"))
        r.stages["latents"] = {file.matrix("stage.latents", {T, r.latent_dim}, rows(r.latent_dim, "latent_dim"), true)};
    // The book's single-head classes keep (T, T) weights; MultiHeadAttention (heads, T, T).
    for (const char* stage : {"weights", "dropped_weights"})
        if (const TensorEntry* e = file.find(std::string("stage.") + stage))
            r.stages[stage] =
                file.slices(std::string("stage.") + stage, r.heads, tokens, r.heads == 1 && e->shape.size() == 2);
    if (r.stages.empty()) throw ModelFileError(path + ": no stage.* tensors: nothing was recorded to check");
    return r;
}

}  // namespace attn

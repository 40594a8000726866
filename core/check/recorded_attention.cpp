#include "check/recorded_attention.h"

#include <cmath>
#include <nlohmann/json.hpp>

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
    // torch's C order, each finite.
    std::vector<float> floats(const std::string& name, const std::vector<int64_t>& shape, const std::string& words) const {
        const TensorEntry* e = find(name);
        if (!e) throw ModelFileError(file_.path() + ": no " + name + " (" + words + ")");
        if (!is_float_dtype(e->dtype))
            throw ModelFileError(file_.path() + ": " + name + " is " + dtype_name(e->dtype) + ", not a float tensor");
        if (e->shape != shape)
            throw ModelFileError(file_.path() + ": " + name + " is " + e->shape_text() + ": " + words + " make " +
                                 shape_text(shape));
        std::vector<float> all(static_cast<size_t>(e->elements()));
        file_.read_floats(*e, all.data());
        for (float v : all)
            if (!std::isfinite(v)) throw ModelFileError(file_.path() + ": " + name + " holds inf or nan");
        return all;
    }

    // A matrix or a vector (one row).
    Matrix matrix(const std::string& name, const std::vector<int64_t>& shape, const std::string& words) const {
        const std::vector<float> all = floats(name, shape, words);
        Matrix m(shape.size() >= 2 ? shape[shape.size() - 2] : 1, shape.back());
        std::copy(all.begin(), all.end(), m.data());
        return m;
    }

    // The heads x T x T stage `name` as one T x T matrix a head (T x T in a single-head class).
    std::vector<Matrix> slices(const std::string& name, int heads, int T, bool single_head_class) const {
        const std::vector<float> all =
            single_head_class ? floats(name, {T, T}, std::to_string(T) + " tokens")
                              : floats(name, {heads, T, T}, std::to_string(heads) + " heads of " + std::to_string(T) + " tokens");
        std::vector<Matrix> out;
        for (int h = 0; h < heads; ++h) {
            Matrix m(T, T);
            std::copy(all.begin() + static_cast<std::ptrdiff_t>(h) * T * T,
                      all.begin() + static_cast<std::ptrdiff_t>(h + 1) * T * T, m.data());
            out.push_back(std::move(m));
        }
        return out;
    }

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
    int count(const std::string& key, int most) const {
        const nlohmann::json j = setting(key);
        if (!j.is_number_integer() || j.get<int64_t>() < 1 || j.get<int64_t>() > most)
            throw ModelFileError(file_.path() + ": the setting " + key + " is not a whole number from 1 to " +
                                 std::to_string(most));
        return j.get<int>();
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

}  // namespace

RecordedAttention read_recorded_attention(const std::string& path) {
    const Reader file(path);
    RecordedAttention r;
    const nlohmann::json name = file.setting("class");
    r.class_name = name.is_string() ? name.get<std::string>() : "";
    r.d_in = file.count("d_in", 1 << 16);
    r.d_out = file.count("d_out", 1 << 16);
    r.heads = file.count("num_heads", r.d_out);
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
    const std::string linear = "nn.Linear(" + std::to_string(d_in) + ", " + std::to_string(d_out) + ")";
    r.W_query = file.matrix("param.W_query.weight", {d_out, d_in}, linear).transpose();
    r.W_key = file.matrix("param.W_key.weight", {d_out, d_in}, linear).transpose();
    r.W_value = file.matrix("param.W_value.weight", {d_out, d_in}, linear).transpose();
    const std::string bias_words = "a bias of d_out " + std::to_string(d_out);
    if (file.find("param.W_query.bias")) r.b_query = file.matrix("param.W_query.bias", {d_out}, bias_words);
    if (file.find("param.W_key.bias")) r.b_key = file.matrix("param.W_key.bias", {d_out}, bias_words);
    if (file.find("param.W_value.bias")) r.b_value = file.matrix("param.W_value.bias", {d_out}, bias_words);
    if (r.out_proj) {
        const std::string out = "nn.Linear(" + std::to_string(d_out) + ", " + std::to_string(d_out) + ")";
        r.W_out = file.matrix("param.out_proj.weight", {d_out, d_out}, out).transpose();
        if (file.find("param.out_proj.bias")) r.b_out = file.matrix("param.out_proj.bias", {d_out}, bias_words);
    }
    const std::string rows = std::to_string(T) + " tokens of d_out " + std::to_string(d_out);
    for (const char* stage : {"queries", "keys", "values", "concat", "output"})
        if (file.find(std::string("stage.") + stage))
            r.stages[stage] = {file.matrix(std::string("stage.") + stage, {T, d_out}, rows)};
    // The book's single-head classes keep (T, T) weights; MultiHeadAttention (heads, T, T).
    const bool single = r.heads == 1 && file.find("stage.weights") && file.find("stage.weights")->shape.size() == 2;
    for (const char* stage : {"weights", "dropped_weights"})
        if (file.find(std::string("stage.") + stage))
            r.stages[stage] = file.slices(std::string("stage.") + stage, r.heads, tokens, single);
    if (r.stages.empty()) throw ModelFileError(path + ": no stage.* tensors: nothing was recorded to check");
    return r;
}

}  // namespace attn

#include "model/llama_checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "model/row_products.h"
#include "numerics/gemm.h"

namespace attn {

struct LlamaCheckpoint::Found {
    const SafetensorsFile* file;
    const TensorEntry* entry;
};

namespace {

constexpr uint64_t kMaxConfigBytes = 1 << 20, kMaxIndexBytes = 64ull << 20;

std::string read_small(const std::string& path, uint64_t cap, const std::string& what) {
    try {
        return read_file_capped(path, cap, what);
    } catch (const FileError& e) {
        throw ModelFileError(e.what());
    }
}

}  // namespace

std::map<std::string, std::string> weight_map(const std::string& index_path) {
    const nlohmann::json j = nlohmann::json::parse(read_small(index_path, kMaxIndexBytes, "an index"), nullptr, false);
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
        throw ModelFileError(index_path + ": no weight_map object");
    std::map<std::string, std::string> out;
    for (const auto& [name, file] : j["weight_map"].items()) {
        if (!file.is_string()) throw ModelFileError(index_path + ": weight_map[\"" + name + "\"] is not a file name");
        const std::string f = file.get<std::string>();
        if (f.empty() || f.find('/') != std::string::npos || f == "." || f == "..")
            throw ModelFileError(index_path + ": " + f + " is not a file in the model's folder");
        out[name] = f;
    }
    return out;
}

namespace {

const char* torch_dtype(TensorDtype d) {
    return d == TensorDtype::F32 ? "float32" : d == TensorDtype::F16 ? "float16" : "bfloat16";
}

}  // namespace

LlamaCheckpoint::LlamaCheckpoint(const std::string& dir) : dir_(dir) {
    const std::string config_path = dir + "/config.json";
    config_ = parse_llama_config(read_small(config_path, kMaxConfigBytes, "a config.json"), config_path);
    const std::string index_path = dir + "/model.safetensors.index.json";
    std::vector<std::string> names;
    std::map<std::string, std::string> from_index;
    std::error_code ec;
    if (std::filesystem::is_regular_file(index_path, ec)) {
        from_index = weight_map(index_path);
        std::set<std::string> files;
        for (const auto& kv : from_index) files.insert(kv.second);
        names.assign(files.begin(), files.end());
    } else {
        names = {"model.safetensors"};
    }
    for (const std::string& name : names) {
        files_.push_back(std::make_unique<SafetensorsFile>(dir + "/" + name));
        for (const TensorEntry& e : files_.back()->header().tensors) {
            if (!from_index.empty()) {
                const auto it = from_index.find(e.name);
                if (it == from_index.end() || it->second != name) continue;  // the index says where each one is
            }
            tensors_[e.name] = std::make_unique<Found>(Found{files_.back().get(), &e});
        }
    }
    dtype_ = torch_dtype(check_shapes());
}

LlamaCheckpoint::~LlamaCheckpoint() = default;

const LlamaCheckpoint::Found& LlamaCheckpoint::tensor(const std::string& name) const {
    const auto it = tensors_.find(name);
    if (it == tensors_.end()) throw ModelFileError(dir_ + ": the checkpoint has no tensor " + name);
    return *it->second;
}

TensorDtype LlamaCheckpoint::check_shapes() const {
    const LlamaConfig& c = config_;
    const int64_t d = c.hidden_size, q = int64_t{c.heads} * c.head_dim, kv = int64_t{c.kv_heads} * c.head_dim,
                  ff = c.intermediate_size;
    std::optional<TensorDtype> dtype;
    const auto expect = [&](const std::string& name, std::vector<int64_t> shape) {
        const TensorEntry& e = *tensor(name).entry;
        if (e.shape != shape) {
            TensorEntry wanted = e;
            wanted.shape = shape;
            throw ModelFileError(dir_ + ": " + name + " is " + e.shape_text() + ", config.json makes it " +
                                 wanted.shape_text());
        }
        if (!is_float_dtype(e.dtype))
            throw ModelFileError(dir_ + ": " + name + " is " + dtype_name(e.dtype) + "; weights must be F32, F16 or BF16");
        if (!dtype) dtype = e.dtype;
    };
    expect("model.embed_tokens.weight", {c.vocab_size, d});
    expect("model.norm.weight", {d});
    if (!c.tied_head) expect("lm_head.weight", {c.vocab_size, d});
    for (int i = 0; i < c.layers; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        expect(p + "input_layernorm.weight", {d});
        expect(p + "post_attention_layernorm.weight", {d});
        expect(p + "self_attn.q_proj.weight", {q, d});
        expect(p + "self_attn.k_proj.weight", {kv, d});
        expect(p + "self_attn.v_proj.weight", {kv, d});
        expect(p + "self_attn.o_proj.weight", {d, q});
        if (c.qkv_bias) {
            expect(p + "self_attn.q_proj.bias", {q});
            expect(p + "self_attn.k_proj.bias", {kv});
            expect(p + "self_attn.v_proj.bias", {kv});
        }
        if (c.qk_norm) {
            expect(p + "self_attn.q_norm.weight", {c.head_dim});
            expect(p + "self_attn.k_norm.weight", {c.head_dim});
        }
        expect(p + "mlp.gate_proj.weight", {ff, d});
        expect(p + "mlp.up_proj.weight", {ff, d});
        expect(p + "mlp.down_proj.weight", {d, ff});
    }
    return *dtype;
}

void LlamaCheckpoint::read_rows(const Found& f, int64_t first, int64_t rows, Matrix& out) const {
    const TensorEntry& e = *f.entry;
    const int64_t cols = e.shape.size() == 2 ? e.shape[1] : e.elements();
    TensorEntry part = e;  // the rows [first, first + rows) of a row-major tensor
    part.shape = {rows, cols};
    part.begin = e.begin + static_cast<uint64_t>(first * cols) * dtype_bytes(e.dtype);
    part.end = part.begin + static_cast<uint64_t>(rows * cols) * dtype_bytes(e.dtype);
    out.resize(rows, cols);  // keeps its storage when the shape is the same
    f.file->read_floats(part, out.data(), false);  // read again at every forward: kept mapped
}

void LlamaCheckpoint::read_into(const std::string& name, int64_t rows, int64_t cols, Matrix& out) const {
    const Found& f = tensor(name);  // shapes were checked when the folder was opened
    if (f.entry->elements() != rows * cols)
        throw std::logic_error("LlamaCheckpoint::read: " + name + " is not " + std::to_string(rows) + " x " +
                               std::to_string(cols));
    out.resize(rows, cols);  // keeps its storage when the shape is the same
    f.file->read_floats(*f.entry, out.data(), false);
}

Matrix LlamaCheckpoint::read(const std::string& name, int64_t rows, int64_t cols) const {
    Matrix m;
    read_into(name, rows, cols, m);
    return m;
}

RowVector LlamaCheckpoint::read_vector(const std::string& name, int64_t n) const {
    return RowVector(read(name, 1, n).row(0));
}

LlamaLayer LlamaCheckpoint::layer(int i) const {
    LlamaLayer l;
    layer(i, l);
    return l;
}

void LlamaCheckpoint::layer(int i, LlamaLayer& l) const {
    const LlamaConfig& c = config_;
    const int64_t d = c.hidden_size, q = int64_t{c.heads} * c.head_dim, kv = int64_t{c.kv_heads} * c.head_dim,
                  ff = c.intermediate_size;
    const std::string p = "model.layers." + std::to_string(i) + ".";
    // [out, in], as nn.Linear.weight
    const auto linear = [&](const std::string& name, int64_t out, int64_t in, Matrix& into) {
        read_into(p + name + ".weight", out, in, into);
    };
    l.input_norm = read_vector(p + "input_layernorm.weight", d);
    l.post_attention_norm = read_vector(p + "post_attention_layernorm.weight", d);
    linear("self_attn.q_proj", q, d, l.W_query);
    linear("self_attn.k_proj", kv, d, l.W_key);
    linear("self_attn.v_proj", kv, d, l.W_value);
    linear("self_attn.o_proj", d, q, l.W_out);
    if (c.qkv_bias) {
        l.b_query = read_vector(p + "self_attn.q_proj.bias", q);
        l.b_key = read_vector(p + "self_attn.k_proj.bias", kv);
        l.b_value = read_vector(p + "self_attn.v_proj.bias", kv);
    }
    if (c.qk_norm) {
        l.q_norm = read_vector(p + "self_attn.q_norm.weight", c.head_dim);
        l.k_norm = read_vector(p + "self_attn.k_norm.weight", c.head_dim);
    }
    linear("mlp.gate_proj", ff, d, l.W_gate);
    linear("mlp.up_proj", ff, d, l.W_up);
    linear("mlp.down_proj", d, ff, l.W_down);
}

Matrix LlamaCheckpoint::embeddings(const std::vector<int64_t>& ids) const {
    const Found& table = tensor("model.embed_tokens.weight");
    Matrix x(static_cast<Eigen::Index>(ids.size()), config_.hidden_size), row;
    for (size_t t = 0; t < ids.size(); ++t) {
        if (ids[t] < 0 || ids[t] >= config_.vocab_size)
            throw ModelFileError("token id " + std::to_string(ids[t]) + " is outside the model's vocabulary (0.." +
                                 std::to_string(config_.vocab_size - 1) + ")");
        read_rows(table, ids[t], 1, row);
        x.row(static_cast<Eigen::Index>(t)) = row.row(0);
    }
    return x;
}

RowVector LlamaCheckpoint::final_norm() const { return read_vector("model.norm.weight", config_.hidden_size); }

RowVector LlamaCheckpoint::logits(const RowVector& h) const {
    return times_transposed(config_.tied_head ? "model.embed_tokens.weight" : "lm_head.weight", h);
}

RowVector LlamaCheckpoint::head_row(int64_t id) const {
    if (id < 0 || id >= config_.vocab_size)
        throw ModelFileError("token id " + std::to_string(id) + " is outside the model's vocabulary (0.." +
                             std::to_string(config_.vocab_size - 1) + ")");
    Matrix row;
    read_rows(tensor(config_.tied_head ? "model.embed_tokens.weight" : "lm_head.weight"), id, 1, row);
    return row.row(0);
}

RowVector LlamaCheckpoint::times_transposed(const std::string& name, const RowVector& x) const {
    const Found& f = tensor(name);
    const TensorEntry& e = *f.entry;
    const int64_t rows = e.shape.at(0), cols = e.shape.size() == 2 ? e.shape[1] : 1;
    if (cols != x.size())
        throw std::logic_error("LlamaCheckpoint::times_transposed: " + name + " takes rows of " + std::to_string(cols));
    RowVector y(rows);
    times_transposed_row(x.data(), f.file->bytes(e), e.dtype, rows, cols, y.data());  // 1 x rows
    return y;
}

}  // namespace attn

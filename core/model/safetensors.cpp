#include "model/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "numerics/in_parts.h"

namespace attn {

namespace {

struct DtypeRow {
    TensorDtype dtype;
    const char* name;
    size_t bytes;
};
// Every dtype the format defines: a file may hold tensors a model does not use (GPT-2's
// attention-mask buffers), whose sizes are checked all the same.
constexpr DtypeRow kDtypes[] = {
    {TensorDtype::F64, "F64", 8},   {TensorDtype::F32, "F32", 4},       {TensorDtype::F16, "F16", 2},
    {TensorDtype::BF16, "BF16", 2}, {TensorDtype::I64, "I64", 8},       {TensorDtype::I32, "I32", 4},
    {TensorDtype::I16, "I16", 2},   {TensorDtype::I8, "I8", 1},         {TensorDtype::U8, "U8", 1},
    {TensorDtype::U16, "U16", 2},   {TensorDtype::U32, "U32", 4},       {TensorDtype::U64, "U64", 8},
    {TensorDtype::BOOL, "BOOL", 1}, {TensorDtype::F8_E4M3, "F8_E4M3", 1}, {TensorDtype::F8_E5M2, "F8_E5M2", 1},
};

const DtypeRow& row_of(TensorDtype dtype) {
    for (const DtypeRow& r : kDtypes)
        if (r.dtype == dtype) return r;
    return kDtypes[1];
}

// A name from the file, as a message quotes it: at most 60 characters.
std::string quoted(const std::string& name) {
    return "'" + (name.size() > 60 ? name.substr(0, 57) + "..." : name) + "'";
}

uint64_t read_u64_le(const unsigned char* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

// A non-negative JSON integer (1.0 and -1 are not).
bool as_count(const nlohmann::json& j, uint64_t& out) {
    if (!j.is_number_unsigned()) {
        if (!j.is_number_integer() || j.get<int64_t>() < 0) return false;
    }
    out = j.get<uint64_t>();
    return true;
}

TensorEntry parse_entry(const std::string& name, const nlohmann::json& j, uint64_t data_size) {
    const std::string what = "tensor " + quoted(name);
    if (!j.is_object() || j.size() != 3 || !j.contains("dtype") || !j.contains("shape") || !j.contains("data_offsets"))
        throw ModelFileError(what + " is not {dtype, shape, data_offsets}");
    TensorEntry e;
    e.name = name;
    const nlohmann::json& dtype = j["dtype"];
    const DtypeRow* row = nullptr;
    if (dtype.is_string())
        for (const DtypeRow& r : kDtypes)
            if (dtype.get_ref<const std::string&>() == r.name) row = &r;
    if (!row) throw ModelFileError(what + " has an unknown dtype " + (dtype.is_string() ? quoted(dtype.get<std::string>()) : dtype.dump().substr(0, 40)));
    e.dtype = row->dtype;

    const nlohmann::json& shape = j["shape"];
    if (!shape.is_array() || shape.size() > 8) throw ModelFileError(what + ": shape is not a list of at most 8 sizes");
    uint64_t elements = 1;
    for (const nlohmann::json& dim : shape) {
        uint64_t n = 0;
        if (!as_count(dim, n)) throw ModelFileError(what + ": shape is not a list of sizes");
        // No tensor of the file can be larger than the data: a larger product is refused
        // before it can overflow.
        if (n > 0 && elements > data_size / n) throw ModelFileError(what + " is larger than the file's data");
        elements *= n;
        e.shape.push_back(static_cast<int64_t>(n));
    }
    const nlohmann::json& offsets = j["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !as_count(offsets[0], e.begin) || !as_count(offsets[1], e.end) ||
        e.begin > e.end)
        throw ModelFileError(what + ": data_offsets is not [begin, end] with begin <= end");
    if (e.end > data_size)
        throw ModelFileError(what + " ends at byte " + std::to_string(e.end) + " of data that has " +
                             std::to_string(data_size));
    if (elements > data_size || elements * row->bytes != e.end - e.begin)
        throw ModelFileError(what + " has shape " + e.shape_text() + " of " + row->name + " (" +
                             std::to_string(elements) + " elements) but " + std::to_string(e.end - e.begin) +
                             " bytes");
    return e;
}

}  // namespace

const char* dtype_name(TensorDtype dtype) { return row_of(dtype).name; }
size_t dtype_bytes(TensorDtype dtype) { return row_of(dtype).bytes; }
bool is_float_dtype(TensorDtype dtype) {
    return dtype == TensorDtype::F32 || dtype == TensorDtype::F16 || dtype == TensorDtype::BF16;
}

int64_t TensorEntry::elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

std::string TensorEntry::shape_text() const {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

const TensorEntry* SafetensorsHeader::find(const std::string& name) const {
    for (const TensorEntry& e : tensors)
        if (e.name == name) return &e;
    return nullptr;
}

SafetensorsHeader parse_safetensors(const unsigned char* bytes, size_t size) {
    if (size < 8) throw ModelFileError("too short for a safetensors file (" + std::to_string(size) + " bytes)");
    const uint64_t n = read_u64_le(bytes);
    if (n > kMaxSafetensorsHeader)
        throw ModelFileError("not a safetensors file: its header would be " + std::to_string(n) +
                             " bytes (at most 100 MB)");
    if (n > size - 8)
        throw ModelFileError("not a safetensors file: its header (" + std::to_string(n) +
                             " bytes) runs past the end of the file");
    const char* text = reinterpret_cast<const char*>(bytes + 8);
    const nlohmann::json header = nlohmann::json::parse(text, text + n, nullptr, /*allow_exceptions=*/false);
    if (!header.is_object()) throw ModelFileError("not a safetensors file: its header is not a JSON object");

    SafetensorsHeader h;
    h.data_offset = 8 + n;
    h.data_size = size - h.data_offset;
    for (const auto& item : header.items()) {
        if (item.key() == "__metadata__") {
            if (!item.value().is_object()) throw ModelFileError("__metadata__ is not an object of strings");
            for (const auto& m : item.value().items()) {
                if (!m.value().is_string()) throw ModelFileError("__metadata__ " + quoted(m.key()) + " is not a string");
                h.metadata[m.key()] = m.value().get<std::string>();
            }
            continue;
        }
        h.tensors.push_back(parse_entry(item.key(), item.value(), h.data_size));
    }

    // No two tensors may share a byte.
    std::vector<const TensorEntry*> by_offset;
    for (const TensorEntry& e : h.tensors)
        if (e.end > e.begin) by_offset.push_back(&e);
    std::sort(by_offset.begin(), by_offset.end(),
              [](const TensorEntry* a, const TensorEntry* b) { return a->begin < b->begin; });
    for (size_t i = 1; i < by_offset.size(); ++i)
        if (by_offset[i]->begin < by_offset[i - 1]->end)
            throw ModelFileError("tensors " + quoted(by_offset[i - 1]->name) + " and " + quoted(by_offset[i]->name) +
                                 " overlap");
    return h;
}

namespace {

float f16_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    uint32_t bits;
    if (exponent == 0x1f)  // inf, nan
        bits = sign | 0x7f800000u | (mantissa << 13);
    else if (exponent != 0)  // normal: rebias 15 -> 127
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    else {  // zero and subnormals: mantissa * 2^-24, exact in float32
        const float f = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -f : f;
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

}  // namespace

namespace {

// Values [from, to) of a tensor's data as floats.
void widen(const unsigned char* data, TensorDtype dtype, float* out, int64_t from, int64_t to) {
    switch (dtype) {
        case TensorDtype::F32:
            std::memcpy(out + from, data + 4 * from, static_cast<size_t>(to - from) * 4);  // little-endian, as x86-64
            return;
        case TensorDtype::F16:
            for (int64_t i = from; i < to; ++i) out[i] = f16_to_float(static_cast<uint16_t>(data[2 * i] | data[2 * i + 1] << 8));
            return;
        case TensorDtype::BF16:
            for (int64_t i = from; i < to; ++i) {
                const uint32_t bits = static_cast<uint32_t>(data[2 * i] | data[2 * i + 1] << 8) << 16;
                std::memcpy(&out[i], &bits, 4);
            }
            return;
        default:
            return;
    }
}

}  // namespace

void tensor_to_floats(const unsigned char* data, const TensorEntry& entry, float* out) {
    if (entry.dtype != TensorDtype::F32 && entry.dtype != TensorDtype::F16 && entry.dtype != TensorDtype::BF16)
        throw ModelFileError("tensor " + quoted(entry.name) + " is " + dtype_name(entry.dtype) +
                             "; model weights must be F32, F16 or BF16");
    const int64_t n = entry.elements();
    // A Llama layer's weights are widened at every forward (llama_checkpoint.h): in parts
    // over the engine's threads, which would otherwise wait for one.
    in_parts(n, int64_t{1} << 18, [&](int64_t from, int64_t to) { widen(data, entry.dtype, out, from, to); });
}

SafetensorsFile::SafetensorsFile(const std::string& path) : path_(path) {
    // O_NONBLOCK: a FIFO given as a path must not block the open; it is refused below.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int err = errno;
        throw ModelFileError(path + ": " + (err == ENOENT ? std::string("no such file") : std::strerror(err)));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw ModelFileError(path + ": not a file");
    }
    size_ = static_cast<uint64_t>(st.st_size);
    if (size_ >= 8) {
        void* map = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            throw ModelFileError(path + ": cannot map: " + std::strerror(err));
        }
        map_ = static_cast<unsigned char*>(map);
    }
    ::close(fd);  // the mapping keeps the file
    try {
        unsigned char empty[1] = {0};
        header_ = parse_safetensors(map_ ? map_ : empty, map_ ? size_ : static_cast<size_t>(size_));
        if (map_) ::madvise(map_, size_, MADV_SEQUENTIAL);  // read ahead when not cached
    } catch (const ModelFileError& e) {
        if (map_) ::munmap(map_, size_);
        map_ = nullptr;
        throw ModelFileError(path + ": " + e.what());
    }
}

SafetensorsFile::~SafetensorsFile() {
    if (map_) ::munmap(map_, size_);
}

void SafetensorsFile::read_floats(const TensorEntry& entry, float* out, bool release) const {
    const unsigned char* data = map_ + header_.data_offset + entry.begin;
    tensor_to_floats(data, entry, out);
    if (!release) return;
    // Hand the pages back: the copy is what the model keeps, so without this a checkpoint
    // would be resident twice until the file is closed.
    const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t from = (header_.data_offset + entry.begin) / page * page;
    const uint64_t to = std::min(size_, header_.data_offset + entry.end);
    if (to > from) ::madvise(map_ + from, to - from, MADV_DONTNEED);
}

}  // namespace attn

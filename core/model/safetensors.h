#pragma once
// Hugging Face's safetensors format: 8 bytes (little-endian u64 N), N bytes of JSON
// naming each tensor's dtype, shape and [begin, end) in the data that follows, then the
// data. The file is memory-mapped: a tensor's bytes are read (and converted to float32)
// straight from the page cache, and given back to it once copied, so that opening a
// 500 MB checkpoint never holds it twice.
//
// Files come from strangers: everything the format promises is checked when the header
// is read, and anything else is refused with one line (ModelFileError).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/user_error.h"

namespace attn {

// A checkpoint that cannot be used: "PATH: REASON", one line.
struct ModelFileError : UserError {
    using UserError::UserError;
};

// The header may be at most this long (the format's own reader has the same limit).
constexpr uint64_t kMaxSafetensorsHeader = 100ull << 20;

enum class TensorDtype { F64, F32, F16, BF16, I64, I32, I16, I8, U8, U16, U32, U64, BOOL, F8_E4M3, F8_E5M2 };
const char* dtype_name(TensorDtype dtype);
size_t dtype_bytes(TensorDtype dtype);
// F32, F16 and BF16: the dtypes a model's weights may have here (computed in float32).
bool is_float_dtype(TensorDtype dtype);

struct TensorEntry {
    std::string name;
    TensorDtype dtype = TensorDtype::F32;
    std::vector<int64_t> shape;
    uint64_t begin = 0, end = 0;  // in the data, which starts after the header
    int64_t elements() const;
    std::string shape_text() const;  // "[768, 2304]"
};

// The parsed header of a safetensors image; `data_size` bytes of data follow it.
struct SafetensorsHeader {
    std::vector<TensorEntry> tensors;  // sorted by name
    std::map<std::string, std::string> metadata;
    uint64_t data_offset = 0;  // 8 + N
    uint64_t data_size = 0;
    const TensorEntry* find(const std::string& name) const;
};

// Reads and checks the header of the `size` bytes at `bytes` (a whole file). Throws
// ModelFileError with the reason (no path): too short, header length past the file or
// over 100 MB, header not a JSON object, an entry that is not {dtype, shape,
// data_offsets}, an unknown dtype, a shape whose bytes differ from its offsets, offsets
// outside the data or overlapping another tensor's, metadata that is not strings.
SafetensorsHeader parse_safetensors(const unsigned char* bytes, size_t size);

// Converts one tensor's elements (F32, F16 or BF16, little-endian, any alignment) to
// float32: out must hold entry.elements() floats.
void tensor_to_floats(const unsigned char* data, const TensorEntry& entry, float* out);

// A safetensors file mapped read-only for as long as the object lives.
class SafetensorsFile {
  public:
    // Throws ModelFileError "PATH: REASON" (missing, not a file, unreadable, or any
    // reason parse_safetensors gives).
    explicit SafetensorsFile(const std::string& path);
    ~SafetensorsFile();
    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

    const std::string& path() const { return path_; }
    uint64_t file_size() const { return size_; }
    const SafetensorsHeader& header() const { return header_; }
    // The tensor as float32, row-major (torch's C order). With `release`, its pages are
    // then handed back to the page cache (they stay cached; this process stops holding
    // them): what a model that keeps its float copy wants. A model read again at every
    // forward (a Llama checkpoint's layers) keeps them mapped instead: clean file pages,
    // which the kernel may drop under pressure, and no page faults next time.
    void read_floats(const TensorEntry& entry, float* out, bool release = true) const;
    // The tensor's bytes as the file holds them (mapped; valid while the object lives).
    const unsigned char* bytes(const TensorEntry& entry) const { return map_ + header_.data_offset + entry.begin; }

  private:
    std::string path_;
    unsigned char* map_ = nullptr;
    uint64_t size_ = 0;
    SafetensorsHeader header_;
};

}  // namespace attn

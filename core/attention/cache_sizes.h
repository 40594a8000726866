#pragma once
// What a whole model's KV cache needs, per attention variant, for a model size a user
// picks: the book's memory estimators (ch04/04_gqa, 05_mla, 06_swa) in one table.
//   MHA  2 · layers · tokens · heads · head_dim · bytes   (a key and a value per head)
//   GQA  2 · layers · tokens · groups · head_dim · bytes  (per key/value group)
//   MQA  2 · layers · tokens · head_dim · bytes           (one group)
//   SWA  2 · layers · min(tokens, window) · heads · head_dim · bytes
//   MLA  layers · tokens · latent · bytes                 (the latent alone, as the book's class)
// all times the batch. (The book's GQA estimator takes the group size as n_kv_groups;
// here, as in its GroupedQueryAttention class, groups is the number of key/value groups.)
#include <string>
#include <vector>

namespace attn {

struct CacheModelSize {
    const char* name = "custom";
    int layers = 12, d_model = 768, heads = 12;
    int kv_groups = 4;     // GQA's key/value groups
    long window = 128;     // SWA's window
    int latent = 96;       // MLA's latent width
    long tokens = 1024;    // the context the cache holds
    int batch = 1;
    int bytes = 2;         // per value: 4 (fp32), 2 (bf16/fp16), 1 (fp8)
};

// Starting points: layers, d_model, heads and context from the models' published
// configurations; the other variants' settings are what-ifs, except Llama 3's and Mistral's
// key/value groups and Mistral's window, which are theirs.
const std::vector<CacheModelSize>& cache_model_presets();

struct CacheSizeRow {
    std::string variant;  // "MHA", "GQA (4 groups)", ...
    double bytes = 0;
    double vs_mha = 1;    // bytes / MHA's
};

// One row per variant; an empty list and `error` set when the size is impossible
// (heads not dividing d_model or not divisible by the groups, a value below 1).
std::vector<CacheSizeRow> kv_cache_table(const CacheModelSize& size, std::string& error);

// "1.50 GB", "96.0 MB", "512 bytes" (decimal units, as the book's estimators print).
std::string format_bytes(double bytes);

}  // namespace attn

#include "hub/file_digest.h"

#include <openssl/evp.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "hub/hub_error.h"

namespace attn {

namespace {

// The digest of `prefix` then the file's bytes, as lower-case hex.
std::string digest_hex(const EVP_MD* md, const std::string& prefix, const std::string& path) {
    std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) throw HubError(path + ": cannot read it back to check its digest");
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1) throw HubError("OpenSSL cannot start a digest");
    EVP_DigestUpdate(ctx.get(), prefix.data(), prefix.size());
    std::vector<unsigned char> chunk(1 << 20);
    while (const size_t n = std::fread(chunk.data(), 1, chunk.size(), file.get())) EVP_DigestUpdate(ctx.get(), chunk.data(), n);
    if (std::ferror(file.get())) throw HubError(path + ": cannot read it back to check its digest");
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(ctx.get(), out, &size);
    static const char hex[] = "0123456789abcdef";
    std::string text;
    for (unsigned int i = 0; i < size; ++i) {
        text += hex[out[i] >> 4];
        text += hex[out[i] & 15];
    }
    return text;
}

long long file_size(const std::string& path) {
    std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file || std::fseek(file.get(), 0, SEEK_END) != 0) throw HubError(path + ": cannot read it back to check its digest");
    return std::ftell(file.get());
}

}  // namespace

std::string sha256_file_hex(const std::string& path) { return digest_hex(EVP_sha256(), "", path); }

std::string git_blob_sha1_hex(const std::string& path) {
    const std::string header = "blob " + std::to_string(file_size(path));
    return digest_hex(EVP_sha1(), header + '\0', path);
}

}  // namespace attn

#pragma once
// The Hub's HTTP, through libcurl: a HEAD that reads a file's metadata where the Hub
// answers it, and a GET that writes (or goes on writing) a file's bytes. Nothing here
// knows the cache; hub_fetch.h does.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

namespace attn {

struct HttpAnswer {
    long status = 0;
    std::map<std::string, std::string> headers;  // names in lower case
    std::string body;                            // an error's first kilobytes (a GET that failed)
    int curl_code = 0;                           // CURLE_OK (0) when an answer came
    std::string curl_error;                      // libcurl's words otherwise

    std::string header(const std::string& name) const;  // "" when absent
};

class HubHttp {
  public:
    // `endpoint` without a trailing slash ("https://huggingface.co"); `token` is sent as a
    // bearer to the endpoint's own URLs only, never to the file server it redirects to.
    HubHttp(std::string endpoint, std::string token);

    const std::string& endpoint() const { return endpoint_; }
    bool has_token() const { return !token_.empty(); }

    // HEAD `url`, following the redirects that stay on the endpoint (a renamed repository's);
    // the first answer that does not is returned, its Location the file server's URL.
    HttpAnswer head(const std::string& url) const;

    // GET `url` into `file` from byte `offset` (a Range request when it is not 0). A 206 is
    // written after what `file` holds; a 200 (a server that ignores ranges) from its start.
    // `progress(bytes of the file so far)`; a `cancel` set stops the transfer.
    HttpAnswer get_to_file(const std::string& url, FILE* file, uint64_t offset,
                           const std::function<void(uint64_t)>& progress, const std::atomic<bool>* cancel) const;

    // A path segment or revision as a URL writes it ("refs/pr/1" as "refs%2Fpr%2F1").
    static std::string escape(const std::string& text);

    // libcurl's (and so OpenSSL's) global start, once; the first request does it too. Call it
    // before making an object whose destructor waits for a download to stop: their clean-up
    // at exit then runs after that destructor, not while the download's thread still runs
    // (OpenSSL's thread state would leak).
    static void init_library();

  private:
    bool sends_token(const std::string& url) const;
    std::string endpoint_, token_;
};

}  // namespace attn

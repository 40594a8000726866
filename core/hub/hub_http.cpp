#include "hub/hub_http.h"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <mutex>


namespace attn {

namespace {

constexpr long kConnectSeconds = 15;
constexpr long kStalledSeconds = 30;  // a transfer with no byte for this long has failed
constexpr size_t kErrorBodyBytes = 4096;

struct Exchange {
    HttpAnswer answer;
    FILE* file = nullptr;      // the GET's; null for a HEAD
    uint64_t offset = 0;       // what `file` held before
    bool restarted = false;    // a 200 to a Range request: `file` written again from its start
    const std::function<void(uint64_t)>* progress = nullptr;
    const std::atomic<bool>* cancel = nullptr;
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
    auto* x = static_cast<Exchange*>(user);
    const std::string line(data, size * count);
    if (line.rfind("HTTP/", 0) == 0) {  // a new answer (after a redirect): its status and headers only
        x->answer.headers.clear();
        const size_t space = line.find(' ');
        x->answer.status = space == std::string::npos ? 0 : std::atol(line.c_str() + space + 1);
        return size * count;
    }
    const size_t colon = line.find(':');
    if (colon == std::string::npos) return size * count;
    std::string name = line.substr(0, colon), value = line.substr(colon + 1);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.erase(0, 1);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
    x->answer.headers[name] = value;
    return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
    auto* x = static_cast<Exchange*>(user);
    const size_t n = size * count;
    const bool bytes = x->answer.status == 200 || x->answer.status == 206;
    if (!x->file || !bytes) {  // a HEAD's, or an error's words: kept to be read, never written to the file
        if (x->answer.body.size() < kErrorBodyBytes) x->answer.body.append(data, std::min(n, kErrorBodyBytes));
        return n;
    }
    if (x->answer.status == 200 && x->offset > 0 && !x->restarted) {  // the range ignored: the whole file again
        x->restarted = true;
        if (std::fflush(x->file) != 0 || ::ftruncate(::fileno(x->file), 0) != 0 || std::fseek(x->file, 0, SEEK_SET) != 0)
            return 0;
    }
    return std::fwrite(data, 1, n, x->file) == n ? n : 0;  // 0: a full disk ends the transfer
}

int on_progress(void* user, curl_off_t, curl_off_t now, curl_off_t, curl_off_t) {
    auto* x = static_cast<Exchange*>(user);
    if (x->cancel && x->cancel->load()) return 1;  // CURLE_ABORTED_BY_CALLBACK
    if (x->progress && *x->progress) (*x->progress)((x->restarted ? 0 : x->offset) + static_cast<uint64_t>(now));
    return 0;
}

CURL* new_handle() {
    HubHttp::init_library();
    return curl_easy_init();
}

}  // namespace

void HubHttp::init_library() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string HttpAnswer::header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
}

HubHttp::HubHttp(std::string endpoint, std::string token) : endpoint_(std::move(endpoint)), token_(std::move(token)) {}

bool HubHttp::sends_token(const std::string& url) const {
    return !token_.empty() && url.rfind(endpoint_ + "/", 0) == 0;
}

std::string HubHttp::escape(const std::string& text) {
    std::unique_ptr<CURL, void (*)(CURL*)> curl(new_handle(), &curl_easy_cleanup);
    char* escaped = curl_easy_escape(curl.get(), text.c_str(), static_cast<int>(text.size()));
    std::string out = escaped ? escaped : text;
    curl_free(escaped);
    return out;
}

namespace {

// One request on a handle set up as every request is; `file` null for a HEAD.
HttpAnswer perform(const std::string& url, const std::string& token_header, Exchange& x, bool head) {
    std::unique_ptr<CURL, void (*)(CURL*)> curl(new_handle(), &curl_easy_cleanup);
    if (!curl) {
        x.answer.curl_code = CURLE_FAILED_INIT;
        x.answer.curl_error = "libcurl cannot start";
        return x.answer;
    }
    CURL* c = curl.get();
    curl_slist* headers = curl_slist_append(nullptr, "Accept-Encoding: identity");  // sizes are the file's
    if (!token_header.empty()) headers = curl_slist_append(headers, token_header.c_str());
    char error[CURL_ERROR_SIZE] = "";
    const std::string agent = "attnscope/" ATTNSCOPE_VERSION " (libcurl)";
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_USERAGENT, agent.c_str());
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");  // a redirect to file:// or ftp:// is refused
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, kConnectSeconds);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, kStalledSeconds);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &x);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &x);
    if (head) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, kConnectSeconds + kStalledSeconds);
    } else {
        // The file server's redirects are followed; curl sends the Authorization header
        // only to the host it was given for.
        curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
        curl_easy_setopt(c, CURLOPT_FAILONERROR, 0L);
        // A Range header, not CURLOPT_RESUME_FROM: a server that ignores it answers 200 and
        // the file is written again, where curl would give up.
        const std::string range = std::to_string(x.offset) + "-";
        if (x.offset > 0) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
    }
    const CURLcode code = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &x.answer.status);
    curl_slist_free_all(headers);
    x.answer.curl_code = code;
    if (code != CURLE_OK) x.answer.curl_error = *error ? error : curl_easy_strerror(code);
    return x.answer;
}

}  // namespace

HttpAnswer HubHttp::head(const std::string& url) const {
    std::string at = url;
    for (int hop = 0;; ++hop) {
        Exchange x;
        HttpAnswer a = perform(at, sends_token(at) ? "Authorization: Bearer " + token_ : "", x, true);
        const std::string location = a.header("location");
        // A relative redirect stays on the Hub (a renamed repository); any other is the file's.
        if (a.curl_code != 0 || a.status < 300 || a.status >= 400 || location.empty() || location[0] != '/' || hop == 5)
            return a;
        at = endpoint_ + location;
    }
}

HttpAnswer HubHttp::get_to_file(const std::string& url, FILE* file, uint64_t offset,
                                const std::function<void(uint64_t)>& progress, const std::atomic<bool>* cancel) const {
    Exchange x;
    x.file = file;
    x.offset = offset;
    x.progress = &progress;
    x.cancel = cancel;
    return perform(url, sends_token(url) ? "Authorization: Bearer " + token_ : "", x, false);
}

}  // namespace attn

#include "hub_download.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "base/byte_sizes.h"
#include "hub/hub_fetch.h"
#include "model/model_source.h"

namespace cli {

namespace {

// One line redrawn in place: the file, a bar, bytes, rate, time left. At most ten a second.
class ProgressBar {
  public:
    explicit ProgressBar(std::string repo) : repo_(std::move(repo)) {}
    void draw(const attn::HubProgress& p) {
        const auto now = std::chrono::steady_clock::now();
        const bool last = p.done == p.total && p.file_index == p.file_count;
        if (!last && now - drawn_ < std::chrono::milliseconds(100)) return;
        drawn_ = now;
        const double part = p.total ? double(p.done) / double(p.total) : 1.0;
        constexpr int kWidth = 24;
        std::string bar(static_cast<size_t>(part * kWidth), '#');
        bar.resize(kWidth, '.');
        const std::string line = repo_ + " [" + bar + "] " + attn::hub_progress_text(p);
        std::fprintf(stderr, "\r%-110s", line.c_str());
        std::fflush(stderr);
        shown_ = true;
    }
    void finish(const attn::HubFetched& got, double seconds) {
        if (!shown_) return;
        std::fprintf(stderr, "\r%-110s\n",
                     (repo_ + ": " + attn::size_text(double(got.downloaded)) + " in " + std::to_string(std::lround(seconds)) +
                      " s into " + got.folder).c_str());
    }
    void abandon() {
        if (shown_) std::fputc('\n', stderr);  // the error's line below the bar, not over it
    }

  private:
    std::string repo_;
    std::chrono::steady_clock::time_point drawn_{};
    bool shown_ = false;
};

bool is_path_here(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

void fetch_hub_model(attn::Settings& settings, const std::optional<std::string>& revision) {
    if (!settings.model || !attn::is_hub_repo_id(*settings.model) || is_path_here(*settings.model)) return;
    const std::string repo = *settings.model;
    attn::HubFetchOptions options;
    if (revision) options.revision = *revision;
    ProgressBar bar(repo);
    if (::isatty(STDERR_FILENO)) options.progress = [&](const attn::HubProgress& p) { bar.draw(p); };
    const auto start = std::chrono::steady_clock::now();
    attn::HubFetched got;
    try {
        got = attn::fetch_model(repo, options);
    } catch (...) {
        bar.abandon();
        throw;
    }
    bar.finish(got, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (options.revision != "main") settings.model = got.folder;
}

}  // namespace cli

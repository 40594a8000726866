// The desktop's downloads from the Hugging Face Hub (platform.h's fetch_model): one thread a
// repository, its progress read by the frame, its Cancel through an atomic flag; the window
// keeps drawing meanwhile (the loop wakes while a download is pending).
#include "platform/platform.h"

#include <sys/stat.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "hub/hub_error.h"
#include "hub/hub_fetch.h"
#include "model/model_source.h"

namespace app::platform {

namespace {

struct HubJob {
    std::atomic<bool> cancel{false};
    std::mutex mutex;  // guards the three below
    attn::HubProgress progress;
    bool finished = false;
    std::string error;  // a finished job's failure ("" when the model is here)
    std::thread thread;
};

class HubJobs {
  public:
    ~HubJobs() {  // the window closed: the downloads stop, what arrived stays to resume
        for (auto& [repo, job] : jobs_) job->cancel = true;
        for (auto& [repo, job] : jobs_)
            if (job->thread.joinable()) job->thread.join();
    }

    // Starts `repo`'s download unless one ran; its job.
    HubJob& job(const std::string& repo) {
        std::unique_ptr<HubJob>& job = jobs_[repo];
        if (job) return *job;
        job = std::make_unique<HubJob>();
        HubJob* j = job.get();
        j->thread = std::thread([j, repo] {
            attn::HubFetchOptions options;
            options.cancel = &j->cancel;
            options.progress = [j](const attn::HubProgress& p) {
                const std::lock_guard<std::mutex> lock(j->mutex);
                j->progress = p;
            };
            std::string error;
            try {
                attn::fetch_model(repo, options);
            } catch (const attn::HubCancelled&) {
                error = "the download of " + repo + " was cancelled: choose it in the model list again to go on from where it stopped";
            } catch (const std::exception& e) {
                error = e.what();
            }
            const std::lock_guard<std::mutex> lock(j->mutex);
            j->error = error;
            j->finished = true;
        });
        return *job;
    }

    HubJob* find(const std::string& repo) {
        const auto it = jobs_.find(repo);
        return it == jobs_.end() ? nullptr : it->second.get();
    }

    void forget(const std::string& repo) {  // a failed or cancelled job, so that the next call starts another
        HubJob* j = find(repo);
        if (!j) return;
        {
            const std::lock_guard<std::mutex> lock(j->mutex);
            if (!j->finished) return;
        }
        j->thread.join();
        jobs_.erase(repo);
    }

  private:
    std::map<std::string, std::unique_ptr<HubJob>> jobs_;
};

HubJobs& jobs() {
    static HubJobs all;
    return all;
}

// What is known to be here, so that a frame does not read the cache's folders again.
std::map<std::string, bool>& here() {
    static std::map<std::string, bool> known;
    return known;
}

// Whether `model` needs nothing fetched: a name or path, or a repository the cache has.
// Read once a model (and again after a failed download): not every frame.
bool is_here(const std::string& model) {
    struct stat st {};
    return !attn::is_hub_repo_id(model) || ::stat(model.c_str(), &st) == 0 || !attn::huggingface_model_folder(model).empty();
}

}  // namespace

std::string fetch_model(const std::optional<std::string>& model, std::string& error) {
    if (!model || here()[*model]) return "";
    if (!jobs().find(*model) && is_here(*model)) {
        here()[*model] = true;
        return "";
    }
    HubJob& j = jobs().job(*model);
    const std::lock_guard<std::mutex> lock(j.mutex);
    if (j.finished) {
        if (j.error.empty()) here()[*model] = true;  // the cache has it now
        error = j.error;
        return "";
    }
    if (j.progress.file_count == 0) return "asking the Hub for " + *model + "…";
    return "downloading " + *model + ": " + attn::hub_progress_text(j.progress);
}

double fetch_fraction(const std::optional<std::string>& model) {
    HubJob* j = model ? jobs().find(*model) : nullptr;
    if (!j) return -1.0;
    const std::lock_guard<std::mutex> lock(j->mutex);
    if (j->finished) return -1.0;
    return j->progress.total ? double(j->progress.done) / double(j->progress.total) : 0.0;
}

void cancel_fetch(const std::string& model) {
    if (HubJob* j = jobs().find(model)) j->cancel = true;
}

void retry_fetch(const std::string& model) { jobs().forget(model); }

bool fetches_from_hub() { return true; }

}  // namespace app::platform

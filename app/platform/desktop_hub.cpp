// The desktop's downloads from the Hugging Face Hub (platform.h's fetch_model): one thread a
// repository, its progress read by the frame, its Cancel through an atomic flag; the window
// keeps drawing meanwhile (the loop wakes while a download is pending).
#include "platform/platform.h"

#include <sys/stat.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "hub/hub_error.h"
#include "hub/hub_fetch.h"
#include "hub/hub_http.h"
#include "model/hub_cache.h"
#include "model/model_source.h"

namespace app::platform {

namespace {

struct HubJob {
    std::atomic<bool> cancel{false};
    std::mutex mutex;  // guards the three below
    attn::HubProgress progress;
    bool finished = false;
    std::string error;   // a finished job's failure ("" when the model is here)
    std::string folder;  // a finished job's snapshot folder
    std::thread thread;
};

class HubJobs {
  public:
    HubJobs() { attn::HubHttp::init_library(); }  // cleaned up at exit after this waits for the threads
    ~HubJobs() {  // the window closed: the downloads stop, what arrived stays to resume
        for (auto& [repo, job] : jobs_) job->cancel = true;
        for (auto& [repo, job] : jobs_)
            if (job->thread.joinable()) job->thread.join();
    }

    // Starts `repo`'s download (at `revision`) unless one ran; its job.
    HubJob& job(const std::string& repo, const std::string& revision) {
        std::unique_ptr<HubJob>& job = jobs_[repo];
        if (job) return *job;
        job = std::make_unique<HubJob>();
        HubJob* j = job.get();
        j->thread = std::thread([j, repo, revision] {
            attn::HubFetchOptions options;
            options.revision = revision;
            options.cancel = &j->cancel;
            options.progress = [j](const attn::HubProgress& p) {
                const std::lock_guard<std::mutex> lock(j->mutex);
                j->progress = p;
            };
            std::string error, folder;
            try {
                folder = attn::fetch_model(repo, options).folder;
            } catch (const attn::HubCancelled&) {
                error = "the download of " + repo + " was cancelled: choose it in the model list again to go on from where it stopped";
            } catch (const std::exception& e) {
                error = e.what();
            }
            const std::lock_guard<std::mutex> lock(j->mutex);
            j->error = error;
            j->folder = folder;
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
std::set<std::string>& here() {
    static std::set<std::string> known;
    return known;
}

// --revision's, by repository; and the snapshot folder of each once it is here.
std::map<std::string, std::string>& pinned() {
    static std::map<std::string, std::string> revisions;
    return revisions;
}
std::map<std::string, std::string>& pinned_here() {
    static std::map<std::string, std::string> folders;
    return folders;
}

// Whether `model` needs nothing fetched: a name or path, or a repository the cache has (at
// its pinned revision). Read once a model (and again after a failed download): not every frame.
bool is_here(const std::string& model) {
    struct stat st {};
    if (!attn::is_hub_repo_id(model) || ::stat(model.c_str(), &st) == 0) return true;
    const auto pin = pinned().find(model);
    if (pin == pinned().end()) return !attn::huggingface_model_folder(model).empty();
    const std::string folder = attn::hub_complete_snapshot(model, pin->second);
    if (!folder.empty()) pinned_here()[model] = folder;
    return !folder.empty();
}

}  // namespace

std::string fetch_model(const std::optional<std::string>& model, std::string& error) {
    if (!model) return "";
    // A pinned revision that is here waits for the controls to name its folder (pinned_folder):
    // no run of the repository's main meanwhile.
    const auto opening = [&] { return "opening " + *model + " at " + pinned()[*model] + "…"; };
    if (pinned_here().count(*model)) return opening();
    if (here().count(*model)) return "";
    if (!jobs().find(*model) && is_here(*model)) {
        here().insert(*model);
        return pinned_here().count(*model) ? opening() : "";
    }
    const auto pin = pinned().find(*model);
    HubJob& j = jobs().job(*model, pin == pinned().end() ? "main" : pin->second);
    const std::lock_guard<std::mutex> lock(j.mutex);
    if (j.finished) {
        if (j.error.empty()) here().insert(*model);  // the cache has it now
        error = j.error;
        if (j.error.empty() && pin != pinned().end()) {
            pinned_here()[*model] = j.folder;
            return opening();
        }
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

std::string gated_note() { return " (gated: accept its licence on the Hub, set HF_TOKEN)"; }

void pin_revision(const std::string& repo, const std::string& revision) { pinned()[repo] = revision; }

std::optional<std::string> pinned_folder(const std::string& model) {
    const auto it = pinned_here().find(model);
    if (it == pinned_here().end()) return std::nullopt;
    std::string folder = it->second;
    pinned_here().erase(it);
    pinned().erase(model);  // chosen again from the list later: main
    return folder;
}

}  // namespace app::platform

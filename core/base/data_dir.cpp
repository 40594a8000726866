#include "base/data_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

#include "base/user_error.h"

namespace attn {

namespace fs = std::filesystem;

namespace {

// A folder holds attnscope's data when the files every program reads are there.
bool holds_data(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "gpt2" / "encoder.json", ec) && fs::is_directory(dir / "lessons", ec) &&
           fs::is_regular_file(dir / "shaders" / "heatmap.frag", ec);
}

#ifdef __EMSCRIPTEN__
// Run by node (`node build-web/attnscope-cli.js`): the program is the script node runs,
// not node itself. In a browser the page's files lie in its own file system as an
// installed tree: the program /bin/attnscope, the data /share/attnscope.
std::string running_program() {
    const char* script = emscripten_run_script_string(
        "typeof process === 'object' && process.argv ? require('path').resolve(process.argv[1]) : '/bin/attnscope'");
    return script ? script : "";
}
#else
std::string running_program() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : self.string();
}
#endif

}  // namespace

std::string find_data_dir(const std::string& program_path, const char* env, std::string& why) {
    if (env) {
        if (holds_data(env)) return env;
        why = "ATTNSCOPE_DATA_DIR=" + std::string(env) + " holds no attnscope data (gpt2/, lessons/, shaders/)";
        return "";
    }
    const fs::path bin = fs::path(program_path).parent_path();
    const fs::path installed = (bin / ".." / "share" / "attnscope").lexically_normal();
    const fs::path build_tree = (bin / "share" / "attnscope").lexically_normal();
    for (const fs::path& dir : {installed, build_tree})
        if (holds_data(dir)) return dir.string();
    why = "attnscope's data folder is missing: looked in " + installed.string() + " and " + build_tree.string() +
          "; reinstall attnscope or set ATTNSCOPE_DATA_DIR to its share/attnscope";
    return "";
}

const std::string& data_dir() {
    static const std::string found = [] {
        std::string why;
        std::string dir = find_data_dir(running_program(), std::getenv("ATTNSCOPE_DATA_DIR"), why);
        if (dir.empty()) throw UserError(why);
        return dir;
    }();
    return found;
}

std::string data_path(const std::string& relative) { return data_dir() + "/" + relative; }

}  // namespace attn

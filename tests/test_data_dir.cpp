// Where programs find their data (core/base/data_dir.h): an override, an installed tree
// (moved or not), the build tree; a clear reason when none holds it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "base/data_dir.h"

namespace fs = std::filesystem;

namespace {

// A fresh folder under the system's temporary one.
fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("attnscope-data-dir-test-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// Gives `dir` what a data folder holds.
void fill(const fs::path& dir) {
    fs::create_directories(dir / "gpt2");
    fs::create_directories(dir / "lessons");
    fs::create_directories(dir / "shaders");
    std::ofstream(dir / "gpt2" / "encoder.json") << "{}";
    std::ofstream(dir / "shaders" / "heatmap.frag") << "";
}

}  // namespace

TEST_CASE("data folder: the installed tree beside the program, wherever it was moved") {
    const fs::path root = scratch("installed");
    fill(root / "share" / "attnscope");
    std::string why;
    CHECK(attn::find_data_dir((root / "bin" / "attnscope").string(), nullptr, why) ==
          (root / "share" / "attnscope").string());
    CHECK(why.empty());
}

TEST_CASE("data folder: ATTNSCOPE_DATA_DIR comes first, and a wrong one is not silently passed over") {
    const fs::path installed = scratch("over-installed"), other = scratch("override");
    fill(installed / "share" / "attnscope");
    fill(other);
    const std::string program = (installed / "bin" / "attnscope-cli").string();
    std::string why;
    CHECK(attn::find_data_dir(program, other.c_str(), why) == other.string());
    const fs::path empty = scratch("empty-override");
    CHECK(attn::find_data_dir(program, empty.c_str(), why).empty());
    CHECK(why == "ATTNSCOPE_DATA_DIR=" + empty.string() + " holds no attnscope data (gpt2/, lessons/, shaders/)");
}

TEST_CASE("data folder: a build tree's own, a reason naming both places when nothing holds the data") {
    const fs::path build = scratch("build");
    fill(build / "share" / "attnscope");
    const std::string program = (build / "attnscope").string();  // programs land in the build folder itself
    std::string why;
    CHECK(attn::find_data_dir(program, nullptr, why) == (build / "share" / "attnscope").string());
    fs::remove(build / "share" / "attnscope" / "shaders" / "heatmap.frag");  // half a data folder is none
    CHECK(attn::find_data_dir(program, nullptr, why).empty());
    const fs::path above = (build / ".." / "share" / "attnscope").lexically_normal();
    CHECK(why == "attnscope's data folder is missing: looked in " + above.string() + " and " +
                     (build / "share" / "attnscope").string() +
                     "; reinstall attnscope or set ATTNSCOPE_DATA_DIR to its share/attnscope");
}

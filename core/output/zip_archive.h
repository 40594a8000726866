#pragma once
// A .zip of files, stored without compression: how the browser page hands over "every
// stage" (a folder of .npy and .csv files) as one download. Any unzip, Python's zipfile
// and numpy's np.load read it.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attn {

// (name inside the archive, bytes). Names use '/' and are at most 65535 bytes; the
// archive is refused (ExportError) past 4 GB or 65535 entries, which plain zip cannot say.
std::string zip_archive(const std::vector<std::pair<std::string, std::string>>& files);

// Every regular file under `dir`, named relative to it, in name order.
std::vector<std::pair<std::string, std::string>> files_under(const std::string& dir);

uint32_t crc32(const std::string& bytes);

}  // namespace attn

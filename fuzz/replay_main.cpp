// Stand-in for libFuzzer's main when the fuzz targets are built without
// clang's -fsanitize=fuzzer (e.g. with g++): runs each file, or each file of
// each directory, through LLVMFuzzerTestOneInput once, so the regression
// inputs and seeds are checked by every build. Arguments starting with '-'
// are libFuzzer flags and are ignored, so one ctest command line fits both.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputs_of(const fs::path& arg) {
  std::vector<fs::path> files;
  if (fs::is_directory(arg)) {
    for (const auto& entry : fs::recursive_directory_iterator(arg))
      if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());  // a stable order makes a failure reproducible
  } else if (fs::exists(arg)) {
    files.push_back(arg);
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with("-")) continue;
    for (const fs::path& file : inputs_of(arg)) {
      std::ifstream in(file, std::ios::binary);
      std::string bytes(static_cast<std::size_t>(fs::file_size(file)), '\0');
      in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
        return 1;
      }
      std::fprintf(stderr, "replay: %s\n", file.c_str());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++count;
    }
  }
  std::printf("replay: %zu inputs ran without a failure\n", count);
  return 0;
}

// libFuzzer target for the batch database's open path: the input is the whole
// database file. ReportStore (batch --db) must either open it, having checked
// its integrity and schema, or throw a StoreError of one line naming the file;
// stored_buckets (buckets --db) likewise. Nothing else may escape.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "store/report_store.h"

namespace {

// A file of the input's bytes in a directory of this process's own: SQLite opens it by
// name and leaves -wal and -shm files beside it. The directory goes with the file: a fuzzing
// run (or the replay in CI) must leave no trace in the temporary directory.
class DatabaseFile {
 public:
  explicit DatabaseFile(const std::uint8_t* data, std::size_t size)
      : dir_(std::filesystem::temp_directory_path() / ("fuzz_store_open." + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "fuzz.db").string();
    std::ofstream(path_, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  DatabaseFile(const DatabaseFile&) = delete;
  DatabaseFile& operator=(const DatabaseFile&) = delete;
  ~DatabaseFile() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path_ + suffix, ec);
    std::filesystem::remove(dir_, ec);  // empty now, unless SQLite left a file unknown here: then kept
  }
  const std::string& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

void check_error(const btaudit::StoreError& e, const std::string& path) {
  const std::string what = e.what();
  if (what.rfind(path + ": ", 0) != 0 || what.find('\n') != std::string::npos) {
    std::fprintf(stderr, "fuzz_store_open: a store error that is not one line naming the file: %s\n", e.what());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const DatabaseFile db(data, size);
  try {
    (void)btaudit::stored_buckets(db.path());
  } catch (const btaudit::StoreError& e) {
    check_error(e, db.path());
  }
  try {
    btaudit::ReportStore store(db.path());
    store.commit();
  } catch (const btaudit::StoreError& e) {
    check_error(e, db.path());
  }
  return 0;
}

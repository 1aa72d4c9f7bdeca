// makedumpfile's flattened format, written here from its definition
// (makedumpfile.h: a 4096-byte header with the signature, type 1 and version 1,
// then big-endian (offset, size) records, ended by (-1, -1)), read back by
// reassemble_flattened_dump. The writer below splits a dump into records the
// way a streaming writer does: out of order, overlapping, with holes and empty
// records; every variant must reassemble to the original bytes, and every
// damaged one must fail with one line that names the file.
#include "vmcore/flattened_dump.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "vmcore/dump_error.h"

using namespace btaudit;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;

void put_be64(Bytes& out, std::int64_t v) {
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
}

Bytes flat_header(std::int64_t type = 1, std::int64_t version = 1) {
  Bytes out(4096, 0);
  const std::string sig = "makedumpfile";
  std::copy(sig.begin(), sig.end(), out.begin());
  Bytes tv;
  put_be64(tv, type);
  put_be64(tv, version);
  std::copy(tv.begin(), tv.end(), out.begin() + 16);
  return out;
}

void put_record(Bytes& out, std::int64_t offset, const std::uint8_t* data, std::int64_t size) {
  put_be64(out, offset);
  put_be64(out, size);
  if (data) out.insert(out.end(), data, data + size);
}

void put_end(Bytes& out) { put_record(out, -1, nullptr, -1); }

// The dump split into records of random sizes, written in a shuffled order,
// with some ranges written twice (the later write carries the right bytes too).
Bytes flatten(const Bytes& dump, std::mt19937& rng) {
  struct Piece {
    std::size_t at, size;
  };
  std::vector<Piece> pieces;
  for (std::size_t at = 0; at < dump.size();) {
    const std::size_t size = std::min<std::size_t>(dump.size() - at, 1 + rng() % 70000);
    pieces.push_back({at, size});
    at += size;
  }
  std::shuffle(pieces.begin(), pieces.end(), rng);
  Bytes out = flat_header();
  for (const Piece& p : pieces) {
    if (rng() % 5 == 0) put_record(out, static_cast<std::int64_t>(p.at), dump.data() + p.at, 0);  // an empty record
    put_record(out, static_cast<std::int64_t>(p.at), dump.data() + p.at, static_cast<std::int64_t>(p.size));
    if (rng() % 7 == 0) {  // the same range again, overlapping the next one's start
      const std::size_t n = std::min<std::size_t>(p.size, 100);
      put_record(out, static_cast<std::int64_t>(p.at), dump.data() + p.at, static_cast<std::int64_t>(n));
    }
  }
  put_end(out);
  return out;
}

struct TempFile {
  explicit TempFile(const Bytes& bytes) {
    path = (fs::temp_directory_path() /
            ("btaudit-flat-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".flat"))
               .string();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    BOOST_REQUIRE(fd >= 0);
    BOOST_REQUIRE(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    ::close(fd);
    in = FileDescriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  }
  ~TempFile() { ::unlink(path.c_str()); }
  std::string path;
  FileDescriptor in;
  static inline int counter = 0;
};

Bytes read_back(int fd) {
  struct stat st {};
  BOOST_REQUIRE(::fstat(fd, &st) == 0);
  Bytes out(static_cast<std::size_t>(st.st_size));
  BOOST_REQUIRE(::pread(fd, out.data(), out.size(), 0) == static_cast<ssize_t>(out.size()));
  return out;
}

Bytes random_dump(std::mt19937& rng, std::size_t size) {
  Bytes dump(size);
  for (auto& b : dump) b = static_cast<std::uint8_t>(rng());
  return dump;
}

// The error a damaged file gives: one line, naming the file, saying `what`.
void expect_error(const Bytes& flat, const std::string& what, const FlattenedLimits& limits = {}) {
  TempFile f(flat);
  try {
    reassemble_flattened_dump(f.in.get(), f.path, limits);
    BOOST_ERROR("no error for a file that should give: " << what);
  } catch (const DumpError& e) {
    const std::string msg = e.what();
    BOOST_TEST_INFO("message: " << msg);
    BOOST_TEST(msg.find(f.path) == 0);
    BOOST_TEST(msg.find(what) != std::string::npos);
    BOOST_TEST(msg.find('\n') == std::string::npos);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(flattened_dump)

BOOST_AUTO_TEST_CASE(ShuffledOverlappingRecordsReassembleToTheOriginalBytes) {
  std::mt19937 rng(20260101);
  for (int variant = 0; variant < 25; ++variant) {
    const Bytes dump = random_dump(rng, 1 + rng() % 600000);
    TempFile f(flatten(dump, rng));
    BOOST_TEST_REQUIRE(is_flattened_dump(f.in.get()));
    const ReassembledDump r = reassemble_flattened_dump(f.in.get(), f.path);
    BOOST_TEST(r.bytes == dump.size());
    BOOST_TEST(read_back(r.fd.get()) == dump, "variant " << variant);
  }
}

BOOST_AUTO_TEST_CASE(HolesBetweenRecordsReadAsZeros) {
  Bytes flat = flat_header();
  const Bytes a(10, 0xaa), b(5, 0xbb);
  put_record(flat, 100, b.data(), 5);
  put_record(flat, 0, a.data(), 10);
  put_end(flat);
  TempFile f(flat);
  const Bytes got = read_back(reassemble_flattened_dump(f.in.get(), f.path).fd.get());
  Bytes want(105, 0);
  std::fill(want.begin(), want.begin() + 10, 0xaa);
  std::fill(want.begin() + 100, want.end(), 0xbb);
  BOOST_TEST(got == want);
}

BOOST_AUTO_TEST_CASE(OtherFilesAreNotFlattened) {
  for (const Bytes& head :
       {Bytes{'\x7f', 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        Bytes{'K', 'D', 'U', 'M', 'P', ' ', ' ', ' ', 6, 0, 0, 0, 0, 0, 0, 0}, Bytes{'m', 'a'}, Bytes{}}) {
    TempFile f(head);
    BOOST_TEST(!is_flattened_dump(f.in.get()));
  }
}

BOOST_AUTO_TEST_CASE(EveryCutOfAFileIsATruncationError) {
  std::mt19937 rng(7);
  const Bytes dump = random_dump(rng, 20000);
  const Bytes flat = flatten(dump, rng);
  // Cuts inside the header, a record header, a record's data, and just before the end marker.
  for (std::size_t cut : {std::size_t{20}, std::size_t{4096}, std::size_t{4100}, std::size_t{4096 + 16 + 3},
                          flat.size() / 2, flat.size() - 16, flat.size() - 1}) {
    BOOST_TEST_CONTEXT("cut at " << cut) {
      expect_error(Bytes(flat.begin(), flat.begin() + static_cast<std::ptrdiff_t>(cut)), "truncated flattened dump");
    }
  }
}

BOOST_AUTO_TEST_CASE(ImpossibleRecordsAreRejectedBeforeAnythingIsWritten) {
  const Bytes data(8, 1);
  struct Case {
    std::int64_t offset, size;
    const char* what;
  };
  for (const Case& c : {Case{-5, 8, "offset -5"}, Case{0, -2, "size -2"}, Case{0, std::int64_t{1} << 40, "holds"},
                        Case{std::int64_t{1} << 50, 8, "beyond"}, Case{(std::int64_t{1} << 44) - 4, 8, "beyond"}}) {
    BOOST_TEST_CONTEXT(c.what) {
      Bytes flat = flat_header();
      put_record(flat, c.offset, nullptr, c.size);
      flat.insert(flat.end(), data.begin(), data.end());
      put_end(flat);
      expect_error(flat, c.what);
    }
  }
}

BOOST_AUTO_TEST_CASE(RecordCountIsCapped) {
  Bytes flat = flat_header();
  const Bytes one(1, 9);
  for (int i = 0; i < 11; ++i) put_record(flat, i, one.data(), 1);
  put_end(flat);
  FlattenedLimits limits;
  limits.max_records = 10;
  expect_error(flat, "more than 10 records", limits);
}

BOOST_AUTO_TEST_CASE(OtherTypesAndVersionsAreNamed) {
  for (auto [type, version] : {std::pair<std::int64_t, std::int64_t>{2, 1}, {1, 2}, {0, 0}}) {
    Bytes flat = flat_header(type, version);
    put_end(flat);
    expect_error(flat, "type " + std::to_string(type) + " version " + std::to_string(version));
  }
}

BOOST_AUTO_TEST_CASE(AnUnwritableTmpdirIsNamedWithTheFix) {
  Bytes flat = flat_header();
  put_end(flat);
  TempFile f(flat);  // made before TMPDIR points nowhere
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", "/nonexistent-btaudit-dir", 1);
  try {
    reassemble_flattened_dump(f.in.get(), f.path);
    BOOST_ERROR("no error without a usable TMPDIR");
  } catch (const DumpError& e) {
    const std::string msg = e.what();
    BOOST_TEST(msg.find(f.path) == 0);
    BOOST_TEST(msg.find("/nonexistent-btaudit-dir") != std::string::npos);
    BOOST_TEST(msg.find("set TMPDIR") != std::string::npos);
  }
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}

BOOST_AUTO_TEST_SUITE_END()

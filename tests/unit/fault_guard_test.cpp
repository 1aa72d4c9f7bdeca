// The fault guard with real faults: reads of a PROT_NONE page (SIGSEGV) and of
// a mapped file's pages after the file was truncated under them (SIGBUS, as
// when a device fails or another process cuts the file).
#include "fault/fault_guard.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace btaudit;

namespace {

const std::size_t kPage = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

// A page that faults when read.
class ForbiddenPage {
 public:
  ForbiddenPage() : p_(::mmap(nullptr, kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) {}
  ~ForbiddenPage() { ::munmap(p_, kPage); }
  ForbiddenPage(const ForbiddenPage&) = delete;
  ForbiddenPage& operator=(const ForbiddenPage&) = delete;
  const volatile char* at() const { return static_cast<const volatile char*>(p_); }

 private:
  void* p_;
};

// A file of `pages` pages of 'x', mapped read-only; truncate() cuts the file under the mapping.
class MappedFile {
 public:
  explicit MappedFile(std::size_t pages) : size_(pages * kPage) {
    char name[] = "/tmp/btaudit-fault-XXXXXX";
    fd_ = ::mkstemp(name);
    ::unlink(name);
    const std::string bytes(size_, 'x');
    if (fd_ < 0 || ::write(fd_, bytes.data(), size_) != static_cast<ssize_t>(size_)) throw std::runtime_error("tmp");
    map_ = static_cast<const char*>(::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd_, 0));
  }
  ~MappedFile() {
    ::munmap(const_cast<char*>(map_), size_);
    ::close(fd_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  void truncate(std::size_t bytes) const {
    if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) throw std::runtime_error("ftruncate");
  }
  const char* data() const { return map_; }
  std::size_t size() const { return size_; }

 private:
  std::size_t size_;
  int fd_ = -1;
  const char* map_ = nullptr;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(fault_guard)

BOOST_AUTO_TEST_CASE(a_call_that_does_not_fault_returns_zero) {
  int ran = 0;
  auto call = [&] { ran = 1; };
  BOOST_TEST(guarded_call(call) == 0);
  BOOST_TEST(ran == 1);
}

BOOST_AUTO_TEST_CASE(a_segfault_in_the_call_returns_sigsegv_every_time) {
  const ForbiddenPage page;
  for (int i = 0; i < 100; ++i) {
    volatile char got = 0;
    auto call = [&] { got = *page.at(); };
    BOOST_TEST(guarded_call(call) == SIGSEGV);
  }
  BOOST_TEST(std::string(fault_name(SIGSEGV)) == "SIGSEGV");
}

BOOST_AUTO_TEST_CASE(nested_guards_each_catch_their_own_fault) {
  const ForbiddenPage page;
  int inner = -1;
  auto outer_call = [&] {
    auto inner_call = [&] { (void)*page.at(); };
    inner = guarded_call(inner_call);
  };
  BOOST_TEST(guarded_call(outer_call) == 0);  // the inner guard caught it
  BOOST_TEST(inner == SIGSEGV);
}

BOOST_AUTO_TEST_CASE(reading_past_the_end_of_a_cut_file_returns_sigbus) {
  const MappedFile file(4);
  file.truncate(kPage);
  volatile char got = 0;
  auto call = [&] { got = file.data()[3 * kPage]; };
  BOOST_TEST(guarded_call(call) == SIGBUS);
  auto fine = [&] { got = file.data()[10]; };
  BOOST_TEST(guarded_call(fine) == 0);
  BOOST_TEST(got == 'x');
}

BOOST_AUTO_TEST_CASE(threads_fault_and_recover_on_their_own) {
  const ForbiddenPage page;
  std::atomic<int> caught{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        auto call = [&] { (void)*page.at(); };
        if (guarded_call(call) == SIGSEGV) ++caught;
      }
    });
  for (std::thread& t : threads) t.join();
  BOOST_TEST(caught.load() == 800);
}

BOOST_AUTO_TEST_CASE(a_mapped_region_cut_under_its_reader_reads_zeros_and_says_so) {
  const MappedFile file(8);
  const MappedRegion region(file.data(), file.size());
  BOOST_TEST(!region.failed());
  file.truncate(3 * kPage + 100);  // the last page of the file is partly there
  std::size_t xs = 0, zeros = 0;
  for (std::size_t i = 0; i < file.size(); i += 512) {
    const char c = file.data()[i];
    xs += c == 'x';
    zeros += c == 0;
  }
  BOOST_TEST(region.failed());
  BOOST_TEST(xs == 3 * kPage / 512 + 1);  // what the file still holds
  BOOST_TEST(xs + zeros == file.size() / 512);
}

BOOST_AUTO_TEST_CASE(a_region_that_reads_whole_has_not_failed) {
  const MappedFile file(3);
  const MappedRegion region(file.data(), file.size());
  std::size_t xs = 0;
  for (std::size_t i = 0; i < file.size(); ++i) xs += file.data()[i] == 'x';
  BOOST_TEST(xs == file.size());
  BOOST_TEST(!region.failed());
}

BOOST_AUTO_TEST_SUITE_END()

// The kernel's VMCOREINFO text found in memory (vmcoreinfo_scan.h), for dumps written without
// the note. Texts are generated in the shapes kernels of each era write (kernel/vmcore_info.c,
// crash_core.c, kexec_core.c: "OSRELEASE=" first; BUILD-ID from 5.9; KERNELOFFSET and
// NUMBER(phys_base) on x86_64; CRASHTIME once kdump ran) and planted where kernels keep them:
// at a page's start (4.13+), behind the note's header, in a .bss array after another variable.
#include "vmcore/vmcoreinfo_scan.h"

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace btaudit;

namespace {

using Bytes = std::vector<std::uint8_t>;

std::string kernel_text(const std::string& release, bool build_id, bool crashtime) {
  std::string t = "OSRELEASE=" + release + "\n";
  if (build_id) t += "BUILD-ID=3a5ef1cf4fc35c8a0d4d8c1e8cbd0f4d3ad39a1b\n";
  t += "PAGESIZE=4096\nSYMBOL(init_uts_ns)=ffffffff82a15d40\nSYMBOL(node_online_map)=ffffffff82b1a9e8\n"
       "OFFSET(uts_namespace.name)=0\nSIZE(list_head)=16\nNUMBER(phys_base)=0\nSYMBOL(init_top_pgt)=ffffffff82a18000\n"
       "NUMBER(pgtable_l5_enabled)=0\nKERNELOFFSET=1000000\n";
  if (crashtime) t += "CRASHTIME=1764400000\n";
  return t;
}

// The text's shapes of the eras: with and without BUILD-ID and CRASHTIME.
std::vector<std::string> kernel_texts() {
  std::vector<std::string> out;
  for (const char* release : {"4.9.0-19-amd64", "5.10.0-30-amd64", "6.1.0-18-cloud-amd64", "6.14.0-lab"})
    for (bool build_id : {false, true})
      for (bool crashtime : {false, true}) out.push_back(kernel_text(release, build_id, crashtime));
  return out;
}

// `text` and its NUL at `at` of a buffer of `size` bytes of `fill`.
Bytes planted(const std::string& text, std::size_t at, std::size_t size, std::uint8_t fill) {
  Bytes b(size, fill);
  std::memcpy(b.data() + at, text.data(), text.size());
  b[at + text.size()] = 0;
  return b;
}

std::vector<VmcoreinfoCandidate> scan(const Bytes& b, std::uint64_t phys = 0x100000, std::size_t cap = 16) {
  std::vector<VmcoreinfoCandidate> out;
  find_vmcoreinfo_texts(b, phys, out, cap);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vmcoreinfo_scan)

BOOST_AUTO_TEST_CASE(every_eras_text_is_found_wherever_the_kernel_keeps_it) {
  // At a zeroed page's start (4.13+), behind the note's 12-byte header and "VMCOREINFO\0" padded
  // to 12 (the note), and in a .bss array behind another variable's non-zero bytes (before 4.13).
  const std::size_t places[] = {0, 4096, 4096 + 24, 8192 + 32, 12288 - 5000};
  for (const std::string& text : kernel_texts()) {
    for (const std::size_t at : places) {
      for (const std::uint8_t fill : {std::uint8_t{0}, std::uint8_t{0xff}, std::uint8_t{'A'}}) {
        const Bytes b = planted(text, at, 16384, fill);
        const auto found = scan(b);
        BOOST_TEST_CONTEXT("at " << at << " fill " << int(fill) << "\n" << text) {
          BOOST_TEST_REQUIRE(found.size() == 1U);
          BOOST_TEST(found[0].text == text);
          BOOST_TEST(found[0].phys == 0x100000U + at);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_text_whose_end_is_past_the_buffer_is_left_for_the_read_that_holds_it_whole) {
  const std::string text = kernel_text("6.1.0-18-cloud-amd64", true, false);
  Bytes b = planted(text, 1000, 1000 + text.size() + 1, 0);
  b.pop_back();  // its NUL cut off: the next chunk, with this one's tail in front, reads it
  BOOST_TEST(scan(b).empty());
  b.push_back(0);
  BOOST_TEST(scan(b).size() == 1U);
}

BOOST_AUTO_TEST_CASE(texts_no_kernel_writes_are_not_taken) {
  const std::string good = kernel_text("6.14.0-lab", true, false);
  const auto without = [&](const std::string& line) {
    std::string t = good;
    const std::size_t at = t.find(line);
    BOOST_REQUIRE(at != std::string::npos);
    return t.erase(at, line.size());
  };
  const std::string bad[] = {
      without("PAGESIZE=4096\n"),                                                     // no page size
      "OSRELEASE=6.1\nPAGESIZE=4096\nNUMBER(phys_base)=0\n",                          // no symbol at all
      "OSRELEASE=\nPAGESIZE=4096\nSYMBOL(init_uts_ns)=ffffffff82a15d40\n",            // no release
      "OSRELEASE=" + std::string(65, 'x') + "\n" + good.substr(good.find('\n') + 1),  // longer than __NEW_UTS_LEN
      good + "this line has no equals sign\n",                                        // not KEY=value
      good + "=starts with the sign\n",                                               // no key
      good + "KEY=caf\xc3\xa9\n",                                                     // not printable ASCII
      good + "SYMBOL(pad)=" + std::string(4096, '0') + "\n",                          // more than a page
  };
  for (const std::string& t : bad) {
    BOOST_TEST_CONTEXT(t.substr(0, 120)) {
      BOOST_TEST(!plausible_vmcoreinfo(t));
      BOOST_TEST(scan(planted(t, 64, t.size() + 4096, 0)).empty());
    }
  }
  BOOST_TEST(plausible_vmcoreinfo(good));
  // A text must open with OSRELEASE= (the scan then reads from where that key stands).
  BOOST_TEST(!plausible_vmcoreinfo("PAGESIZE=4096\n" + good));
  BOOST_TEST(!plausible_vmcoreinfo("XOSRELEASE=6.1\n" + good.substr(good.find('\n') + 1)));
}

BOOST_AUTO_TEST_CASE(a_text_inside_another_is_still_read_from_its_own_first_key) {
  // "...XOSRELEASE=": the scan finds "OSRELEASE=" one byte in and reads the text from there.
  const std::string text = kernel_text("5.10.0-30-amd64", false, true);
  const Bytes b = planted("X" + text, 100, 8192, 0);
  const auto found = scan(b);
  BOOST_TEST_REQUIRE(found.size() == 1U);
  BOOST_TEST(found[0].phys == 0x100000U + 101);
}

BOOST_AUTO_TEST_CASE(the_same_text_twice_is_one_candidate_and_the_cap_is_kept) {
  // The data page and the note hold the same text; a page with CRASHTIME differs from the note.
  const std::string note = kernel_text("6.1.0-18-cloud-amd64", true, false);
  const std::string data = kernel_text("6.1.0-18-cloud-amd64", true, true);
  Bytes b(5 * 4096, 0);
  std::memcpy(b.data() + 24, note.data(), note.size());
  std::memcpy(b.data() + 4096, data.data(), data.size());
  std::memcpy(b.data() + 8192, note.data(), note.size());
  const auto found = scan(b);
  BOOST_TEST_REQUIRE(found.size() == 2U);
  BOOST_TEST(found[0].text == note);
  BOOST_TEST(found[1].text == data);
  // Many different texts: no more than the cap.
  Bytes many(64 * 4096, 0);
  for (int i = 0; i < 64; ++i) {
    const std::string t = kernel_text("6.1." + std::to_string(i), false, false);
    std::memcpy(many.data() + static_cast<std::size_t>(i) * 4096, t.data(), t.size());
  }
  BOOST_TEST(scan(many, 0, 5).size() == 5U);
}

BOOST_AUTO_TEST_CASE(a_value_is_its_own_keys_alone) {
  const std::string t = "OSRELEASE=6.14.0-lab\nOSRELEASE2=no\nPAGESIZE=4096\nKERNELOFFSET=1000000";
  BOOST_TEST(vmcoreinfo_value(t, "OSRELEASE") == "6.14.0-lab");
  BOOST_TEST(vmcoreinfo_value(t, "KERNELOFFSET") == "1000000");  // the last line, no newline
  BOOST_TEST(vmcoreinfo_value(t, "OSRELEASE2") == "no");
  BOOST_TEST(vmcoreinfo_value(t, "PAGE").empty());
  BOOST_TEST(vmcoreinfo_value(t, "BUILD-ID").empty());
}

BOOST_AUTO_TEST_SUITE_END()

// Build ids as the three places that state them write them (analysis/vmlinux_match.h):
// VMCOREINFO's BUILD-ID, always 20 bytes and zero-padded after a shorter note; the ELF note of
// vmlinux, its own length; the CPU: line of a 5.14+ trace, 20 bytes. Each case is generated for
// every note length a linker makes (--build-id=sha1: 20 bytes, md5 and uuid: 16) and both
// letter cases, rather than listed.
#include "analysis/vmlinux_match.h"

#include <boost/test/unit_test.hpp>
#include <cctype>
#include <string>

namespace {

std::string hex_id(std::size_t bytes, unsigned seed) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < 2 * bytes; ++i) s += kDigits[(seed * 7 + i * 13 + 5) % 16];
  return s;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// VMCOREINFO's form of a note: "%20phN" over a 20-byte array the note filled from its start.
std::string as_vmcoreinfo(const std::string& note) { return note + std::string(40 - note.size(), '0'); }

}  // namespace

BOOST_AUTO_TEST_SUITE(vmlinux_match)

BOOST_AUTO_TEST_CASE(one_build_reads_as_one_in_every_form_and_letter_case) {
  for (const std::size_t bytes : {20U, 16U}) {
    const std::string note = hex_id(bytes, 3);
    BOOST_TEST(!btaudit::build_ids_differ(note, note));
    BOOST_TEST(!btaudit::build_ids_differ(as_vmcoreinfo(note), note));
    BOOST_TEST(!btaudit::build_ids_differ(note, as_vmcoreinfo(note)));
    BOOST_TEST(!btaudit::build_ids_differ(upper(as_vmcoreinfo(note)), note));
  }
}

BOOST_AUTO_TEST_CASE(another_build_differs_wherever_its_digits_do) {
  for (const std::size_t bytes : {20U, 16U}) {
    const std::string note = hex_id(bytes, 3);
    for (std::size_t at = 0; at < note.size(); ++at) {
      std::string other = note;
      other[at] = other[at] == '0' ? '1' : '0';
      BOOST_TEST(btaudit::build_ids_differ(as_vmcoreinfo(other), note), "digit " << at);
      BOOST_TEST(btaudit::build_ids_differ(other, note), "digit " << at);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_longer_id_is_the_shorter_one_only_when_its_tail_is_zero_padding) {
  const std::string md5 = hex_id(16, 5);
  for (std::size_t at = md5.size(); at < 40; ++at) {
    std::string padded = as_vmcoreinfo(md5);
    padded[at] = 'a';
    BOOST_TEST(btaudit::build_ids_differ(padded, md5), "tail digit " << at);
  }
  BOOST_TEST(btaudit::build_ids_differ(hex_id(20, 5), md5));  // a sha1 id is not an md5 one it starts with
}

BOOST_AUTO_TEST_SUITE_END()

// The report builder's line tests made faster (report_builder.cpp, builder_detail): each must
// answer as the reading it replaced did, for every phrase or prefix, every cut and change of
// one, and random text over their bytes.
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "text/report_builder.h"

using btaudit::builder_detail::is_auxiliary_label;
using btaudit::builder_detail::is_register_line;

namespace {

// The table and the loop of the reading before (report_builder.cpp at 1775ec8).
constexpr std::string_view kStarts[] = {
    "RIP: ",    "RSP: ",          "RAX: ",     "RDX: ",   "RBP: ",    "R10: ",      "R13: ",     "FS: ",      "CS: ",
    "CR2: ",    "DR0: ",          "DR3: ",     "DR6: ",   "PKRU: ",   "EIP: ",      "EAX: ",     "ESI: ",     "DS: ",
    "CR0: ",    "Code: ",         "RIP  [<",   " RSP <",  "EIP: [<",  "ORIG_RAX: ", "pc : ",     "lr : ",     "sp : ",
    "x29: ",    "x27: ",          "x25: ",     "x23: ",   "x21: ",    "x19: ",      "x17: ",     "x15: ",     "x13: ",
    "x11: ",    "x9 : ",          "x7 : ",     "x5 : ",   "x3 : ",    "x1 : ",      "pstate: ",  "NIP",       "LR ",
    "REGS:",    "MSR:",           "GPR",       "CFAR:",   "IRQMASK:", "Krnl PSW",   "Krnl GPRS", "Krnl Code", "epc : ",
    "ra : ",    "status: ",       "badaddr: ", "cause: ", "Stack:",   "PGD ",       "P4D ",      "#PF: ",     "IP: ",
    "Process ", "Thread overran",
};

bool table_says(std::string_view s) {
  for (const std::string_view k : kStarts)
    if (s.starts_with(k)) return true;
  return false;
}

// The phrases and the search per phrase of is_auxiliary_label before (report_builder.cpp at 1775ec8).
constexpr std::string_view kAux[] = {
    "Allocated by",
    "Freed by",
    "Last potentially related",
    "Second to last potentially related",
    "Last call_rcu",
    "Second to last call_rcu",
    "-> #",
    "Uninit was",
    "Local variable",
    "Memory access of",
    "allocated by task",
    "freed by task",
    "Bytes b4",
    "stored to memory",
    "created at",
    "other info",
    "Task ",
    "Workqueue:",
    "the shortest dependencies",
    "which lock already depends",
    "kmemleak:",
};

bool searched_aux(std::string_view label) {
  if (label.empty()) return false;
  for (const std::string_view a : kAux)
    if (label.find(a) != std::string_view::npos) return true;
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(builder_detail)

BOOST_AUTO_TEST_CASE(literal_prefixes_answer_as_the_table_did) {
  std::set<char> byte_set;
  for (const std::string_view k : kStarts) byte_set.insert(k.begin(), k.end());
  for (const char c : std::string_view("0123456789abcdefx: []<>")) byte_set.insert(c);
  const std::string bytes(byte_set.begin(), byte_set.end());
  std::vector<std::string> lines = {"", " ", "R", "x", "x2", "x29", "x29:", "x31: ", "x28: ", "x0 : ", "x10: "};
  for (const std::string_view k : kStarts) {
    const std::string prefix(k);
    for (std::size_t cut = 0; cut <= prefix.size(); ++cut) {
      lines.push_back(prefix.substr(0, cut));
      lines.push_back(prefix.substr(0, cut) + "0000000000000000 rest");
    }
    // Every byte of the prefix changed to every byte the prefixes use.
    for (std::size_t i = 0; i < prefix.size(); ++i)
      for (const char c : bytes) {
        std::string changed = prefix;
        changed[i] = c;
        lines.push_back(changed);
        lines.push_back(changed + "ffff8801c56e76d8");
      }
  }
  std::mt19937 rng(14);
  for (int k = 0; k < 200000; ++k) {
    std::string line;
    const std::size_t n = rng() % 16;
    for (std::size_t i = 0; i < n; ++i) line += bytes[rng() % bytes.size()];
    lines.push_back(line);
  }
  std::size_t yes = 0;
  std::size_t mismatched = 0;
  for (const std::string& line : lines) {
    const bool expected = table_says(line);
    if (is_register_line(line) != expected) {
      ++mismatched;
      BOOST_TEST_CONTEXT("line '" << line << "'") { BOOST_TEST(is_register_line(line) == expected); }
    }
    yes += expected ? 1 : 0;
  }
  BOOST_TEST(mismatched == 0u);
  BOOST_TEST(yes > 1000u);  // the variants reach both answers
}

BOOST_AUTO_TEST_CASE(auxiliary_labels_answer_as_a_search_per_phrase_did) {
  std::set<char> byte_set;
  for (const std::string_view a : kAux) byte_set.insert(a.begin(), a.end());
  for (const char c : std::string_view("\x80\xff\x01@`{")) byte_set.insert(c);  // bytes alike modulo 64
  const std::string bytes(byte_set.begin(), byte_set.end());
  const std::vector<std::string> around = {"", "x", "Call Trace ", " by task 42", "#0 ", "\xc1"};
  std::vector<std::string> labels = {"", "Call Trace", "Allocated by task 123:", "The buggy address belongs to"};
  for (const std::string_view a : kAux) {
    const std::string phrase(a);
    for (const auto& before : around)
      for (const auto& after : around) {
        for (std::size_t cut = 0; cut <= phrase.size(); ++cut) {
          labels.push_back(before + phrase.substr(0, cut) + after);
          labels.push_back(before + phrase.substr(cut) + after);
        }
        for (std::size_t i = 0; i < phrase.size(); ++i) {
          std::string changed = phrase;
          changed[i] = static_cast<char>(changed[i] ^ 0x40);  // the same bit modulo 64
          labels.push_back(before + changed + after);
        }
      }
  }
  std::mt19937 rng(14);
  for (int k = 0; k < 200000; ++k) {
    std::string label;
    const std::size_t n = rng() % 40;
    for (std::size_t i = 0; i < n; ++i) label += bytes[rng() % bytes.size()];
    if (k % 3 == 0) label.insert(rng() % (label.size() + 1), std::string(kAux[rng() % std::size(kAux)]).substr(0, 6));
    labels.push_back(label);
  }
  std::size_t yes = 0;
  std::size_t mismatched = 0;
  for (const std::string& label : labels) {
    const bool expected = searched_aux(label);
    if (is_auxiliary_label(label) != expected) {
      ++mismatched;
      BOOST_TEST_CONTEXT("label '" << label << "'") { BOOST_TEST(is_auxiliary_label(label) == expected); }
    }
    yes += expected ? 1 : 0;
  }
  BOOST_TEST(mismatched == 0u);
  BOOST_TEST(yes > 1000u);
}

BOOST_AUTO_TEST_SUITE_END()

// The per-build-id kernel profile (debuginfo/kernel_profile.h): its file format
// on generated contents, and whole KernelDebugInfo sessions on the kernel-like
// image the suite builds (tests/fixtures/minikernel) with the real libdw: a
// session without the cache, the cold one that writes the profile and the warm
// one that reads it must answer every question alike, and a damaged or foreign
// profile must be noticed, not trusted, and rewritten.
#include "debuginfo/kernel_profile.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "debuginfo/kernel_debuginfo.h"
#include "debuginfo/kernel_types.h"
#include "temp_dir.h"

namespace {

using namespace btaudit;
namespace fs = std::filesystem;

// Every TempDir of this file is named after it.
class TempDir : public btaudit::testing::TempDir {
 public:
  TempDir() : btaudit::testing::TempDir("btaudit-profile-test") {}
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Generated contents: names of every length class (empty excepted), duplicates
// in symbol-table order, answers with and without values.
KernelProfile generated_profile(unsigned seed, const std::string& build_id) {
  std::mt19937 rng(seed);
  KernelProfile p;
  p.build_id = build_id;
  p.vmlinux_size = 1000 + seed;
  p.kernel_start = 0xffffffff81000000;
  p.kernel_end = 0xffffffff83000000;
  p.sections = {{0xffffffff81000000, 0x1000, 0x200000}, {0xffffffff82000000, 0x40, 0x1200000}};
  // The table's names are views: the profile's owner keeps their strings.
  auto names = std::make_shared<std::deque<std::string>>();
  for (int i = 0; i < 300; ++i) {
    const std::string& name = names->emplace_back("f" + std::to_string(rng() % 97) + std::string(rng() % 40, 'x'));
    p.symbols_by_name.push_back({name, 0xffffffff81000000 + rng() % 0x100000, rng() % 512});
  }
  p.file_bytes = names;
  std::stable_sort(p.symbols_by_name.begin(), p.symbols_by_name.end(),
                   [](const SymbolView& a, const SymbolView& b) { return a.name < b.name; });
  std::vector<KallsymsEntry> entries;
  std::uint64_t at = 0xffffffff81000000;
  entries.push_back({at, 'T', "_stext"});
  // Aliases (one address, several names) every few entries: lookups go to the first.
  for (int i = 0; i < 200; ++i)
    entries.push_back({at += rng() % 4 == 0 ? 0 : 1 + rng() % 64, 't', "k" + std::to_string(i)});
  entries.push_back({at + 16, 'T', "_etext"});
  entries.push_back({at + 0x1000, 'T', "_sinittext"});
  entries.push_back({at + 0x1040, 't', "init_fn"});
  entries.push_back({at + 0x1080, 'T', "_einittext"});
  p.kallsyms = KallsymsTable::from_kernel(entries, false);
  p.kallsyms_source = "generated";
  p.symbol_answers[0xffffffff81000010] = Symbol{"a", 0xffffffff81000000, 32, ""};
  p.symbol_answers[0xffffffff81000090] = std::nullopt;
  KernelAnswers::Source s;
  s.innermost_function = "inner";
  s.source = SourceLocation{"/src/a.c", 12, 3};
  s.inlined.push_back({"outer", SourceLocation{"/src/b.h", 7, 1}});
  p.source_answers[0xffffffff81000010] = s;
  p.source_answers[0xffffffff81000020] = KernelAnswers::Source{};
  p.type_sizes["task_struct"] = 9024;
  p.type_sizes["no_such"] = std::nullopt;
  p.members[std::string("task_struct") + '\0' + "thread.sp"] = MemberInfo{5000, 8};
  p.variable_sizes["pcpu_hot"] = 64;
  CuIndex::Builder cus;
  std::uint64_t start = 0xffffffff81000000;
  for (int i = 0; i < 50; ++i, start += 1 + rng() % 300) cus.add(start, 1 + rng() % 300, 0x0b + (rng() % 5) * 0x100);
  p.cu_index = std::move(cus).finish();
  CallSiteFinding call;
  call.decided = true;
  call.site.kind = CallKind::Direct;
  call.site.address = 0xffffffff81000040;
  call.site.target = "k7";
  call.site.insn = "call 0xffffffff81000100";
  call.site.patched_by = "the ALTERNATIVE at 0xffffffff81000040";
  call.target_address = 0xffffffff81000100;
  call.note = "forward sweep from a";
  p.call_site_answers[{0xffffffff81000045, 0xffffffff81000000, "a"}] = call;
  CallSiteFinding undecided;  // every optional absent, every flag clear
  undecided.site.insn = "(no instruction ends at the return address)";
  p.call_site_answers[{0xffffffff81000090, ~std::uint64_t{0}, ""}] = undecided;
  p.reach_answers[{0xffffffff81000100, 0xffffffff81000200}] = Reach::Yes;
  p.reach_answers[{0xffffffff81000100, 0xffffffff81000300}] = Reach::No;
  p.reach_answers[{0xffffffff81000400, 0xffffffff81000300}] = Reach::Unknown;
  return p;
}

// The header's size: magic (8), version (4), payload size (8), checksum (8), build-id length (4)
// and the build-id; the payload follows it.
std::size_t header_size(const KernelProfile& p) { return 8 + 4 + 8 + 8 + 4 + p.build_id.size(); }

// A profile's bytes with its header's checksum made right for the payload again: what a
// crafted (not a corrupted) file looks like to the parser.
std::string with_checksum_fixed(std::string bytes, std::size_t header_size) {
  const std::uint64_t sum = profile_checksum(std::string_view(bytes).substr(header_size));
  std::memcpy(bytes.data() + 20, &sum, sizeof sum);  // magic (8), version (4), payload size (8), checksum
  return bytes;
}

std::unique_ptr<KernelProfile> parse(const std::string& bytes, const std::string& build_id, std::string& problem) {
  auto owner = std::make_shared<std::string>(bytes);
  return parse_profile(*owner, owner, build_id, problem);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernel_profile_format)

BOOST_AUTO_TEST_CASE(a_written_profile_reads_back_with_every_table_and_answer) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const KernelProfile p = generated_profile(seed, "0123abcd");
    std::string problem;
    auto q = parse(serialize_profile(p), "0123abcd", problem);
    BOOST_REQUIRE_MESSAGE(q, problem);
    BOOST_TEST(q->vmlinux_size == p.vmlinux_size);
    BOOST_TEST(q->kernel_end == p.kernel_end);
    BOOST_TEST(q->sections.size() == p.sections.size());
    BOOST_TEST(q->symbol_count() == p.symbols_by_name.size());
    // Every name, including absent ones, gives what a linear search of the written table gives.
    for (int n = 0; n < 100; ++n) {
      const std::string name = "f" + std::to_string(n);
      for (std::size_t pad = 0; pad < 40; pad += 13) {
        const std::string full = name + std::string(pad, 'x');
        std::vector<SymbolView> want;
        for (const SymbolView& s : p.symbols_by_name)
          if (s.name == full) want.push_back(s);
        const std::vector<Symbol> got = q->symbols_named(full);
        BOOST_REQUIRE_EQUAL(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
          BOOST_TEST(got[i].address == want[i].address);  // symbol-table order kept within a name
          BOOST_TEST(got[i].size == want[i].size);
        }
      }
    }
    BOOST_TEST(q->kallsyms_source == "generated");
    // Every address, searched in the stored arrays and then in the decoded table,
    // gives the symbol, start and size the table it was written from gives.
    for (bool decoded : {false, true}) {
      if (decoded) BOOST_TEST(q->kallsyms_table()->entries().size() == p.kallsyms->entries().size());
      for (std::uint64_t a = 0xffffffff80fffff0; a < 0xffffffff81005000; ++a) {
        const auto want = p.kallsyms->lookup(a);
        const auto got = q->kallsyms_at(a);
        BOOST_REQUIRE_EQUAL(got.has_value(), want.has_value());
        if (got) {
          BOOST_REQUIRE_EQUAL(got->name, want->name);
          BOOST_REQUIRE_EQUAL(got->address, want->address);
          BOOST_REQUIRE_EQUAL(got->size, want->size);
        }
      }
    }
    BOOST_TEST(q->symbol_answers.size() == 2u);
    BOOST_TEST(!q->symbol_answers.at(0xffffffff81000090).has_value());
    const auto& s = q->source_answers.at(0xffffffff81000010);
    BOOST_TEST(*s.innermost_function == "inner");
    BOOST_TEST(s.source->line == 12);
    BOOST_TEST(s.inlined.at(0).call.file == "/src/b.h");
    BOOST_TEST(!q->type_sizes.at("no_such").has_value());
    BOOST_TEST(q->members.at(std::string("task_struct") + '\0' + "thread.sp")->offset == 5000u);
    BOOST_TEST((q->cu_index == p.cu_index));
    BOOST_TEST((q->reach_answers == p.reach_answers));
    BOOST_REQUIRE_EQUAL(q->call_site_answers.size(), 2u);
    const CallSiteFinding& call = q->call_site_answers.at({0xffffffff81000045, 0xffffffff81000000, "a"});
    BOOST_TEST((call.site.kind == CallKind::Direct));
    BOOST_TEST(call.site.address.value_or(0) == 0xffffffff81000040u);
    BOOST_TEST(call.site.target.value_or("") == "k7");
    BOOST_TEST(call.site.insn == "call 0xffffffff81000100");
    BOOST_TEST(call.site.patched_by.value_or("") == "the ALTERNATIVE at 0xffffffff81000040");
    BOOST_TEST(call.target_address.value_or(0) == 0xffffffff81000100u);
    BOOST_TEST(call.decided);
    BOOST_TEST(call.note == "forward sweep from a");
    const CallSiteFinding& undecided = q->call_site_answers.at({0xffffffff81000090, ~std::uint64_t{0}, ""});
    BOOST_TEST((undecided.site.kind == CallKind::None));
    BOOST_TEST(!undecided.site.address.has_value());
    BOOST_TEST(!undecided.site.target.has_value());
    BOOST_TEST(!undecided.site.patched_by.has_value());
    BOOST_TEST(!undecided.target_address.has_value());
    BOOST_TEST(!undecided.decided);
    // A loaded profile writes its stored tables back unchanged.
    BOOST_TEST(serialize_profile(*q) == serialize_profile(p));
  }
}

// A warm session that learned something saves the profile again: its bulk tables go from
// the old file's mapping straight into the new file. Tables past the writer's piece size
// take that path; what is read back is what was there, with the new answer.
BOOST_AUTO_TEST_CASE(a_loaded_profile_saved_again_keeps_its_large_tables_and_adds_answers) {
  TempDir dir;
  KernelProfile p = generated_profile(11, "feed");
  auto names = std::make_shared<std::deque<std::string>>();
  for (int i = 0; i < 40000; ++i) {
    const std::string& name = names->emplace_back("big_symbol_" + std::to_string(i));
    p.symbols_by_name.push_back({name, 0xffffffff81000000 + static_cast<std::uint64_t>(i) * 16, 16});
  }
  p.file_bytes = std::make_shared<std::pair<std::shared_ptr<const void>, decltype(names)>>(p.file_bytes, names);
  std::stable_sort(p.symbols_by_name.begin(), p.symbols_by_name.end(),
                   [](const SymbolView& a, const SymbolView& b) { return a.name < b.name; });
  const std::string path = profile_path(dir.path().string(), "feed", p.vmlinux_size);
  BOOST_REQUIRE_EQUAL(save_profile_file(p, dir.path().string(), 1u << 30), "");
  std::string problem;
  auto loaded = load_profile_file(path, "feed", p.vmlinux_size, problem);
  BOOST_REQUIRE_MESSAGE(loaded, problem);
  BOOST_REQUIRE(loaded->stored_symbols.size() > (std::size_t{256} << 10));  // past one piece
  loaded->symbol_answers[0xffffffff81000400] = Symbol{"learned", 0xffffffff81000400, 8, ""};
  BOOST_REQUIRE_EQUAL(save_profile_file(*loaded, dir.path().string(), 1u << 30), "");
  auto again = load_profile_file(path, "feed", p.vmlinux_size, problem);
  BOOST_REQUIRE_MESSAGE(again, problem);
  BOOST_TEST(again->symbol_count() == p.symbols_by_name.size());
  BOOST_TEST(again->symbol_answers.at(0xffffffff81000400)->name == "learned");
  for (int i = 0; i < 40000; i += 997) {
    const auto got = again->symbols_named("big_symbol_" + std::to_string(i));
    BOOST_REQUIRE_EQUAL(got.size(), 1U);
    BOOST_TEST(got[0].address == 0xffffffff81000000 + static_cast<std::uint64_t>(i) * 16);
  }
  loaded->symbol_answers.erase(0xffffffff81000400);
  again->symbol_answers.erase(0xffffffff81000400);
  BOOST_TEST(serialize_profile(*again) == serialize_profile(*loaded));
}

BOOST_AUTO_TEST_CASE(a_cu_index_out_of_address_order_is_not_trusted) {
  KernelProfile p = generated_profile(5, "abcd");
  p.cu_index = CuIndex({{0xffffffff81000100, 0x0b}, {0xffffffff81000000, 0x10b}}, 0xffffffff81000200);
  std::string problem;
  BOOST_TEST(!parse(serialize_profile(p), "abcd", problem));
  BOOST_TEST(problem == "payload does not decode");
}

// The checksum tells a damaged file; a file written to pass it must still hold answers the
// checker can give: a call kind or a reach beyond the enums' values is not read as one.
BOOST_AUTO_TEST_CASE(a_call_site_kind_or_reach_answer_out_of_range_is_rejected_even_with_a_right_checksum) {
  const KernelProfile p = generated_profile(7, "0123abcd");
  const std::string good = serialize_profile(p);
  const std::size_t header = header_size(p);
  std::string problem;
  BOOST_REQUIRE_MESSAGE(parse(with_checksum_fixed(good, header), "0123abcd", problem), problem);
  // The reach table closes the payload: its last byte is the last answer's value.
  std::string bad_reach = good;
  bad_reach.back() = 3;
  BOOST_TEST(!parse(with_checksum_fixed(bad_reach, header), "0123abcd", problem));
  // The first call-site answer's kind follows its key: return address, function start, name.
  const std::string key = [] {
    std::string k(16, '\0');
    const std::uint64_t ret = 0xffffffff81000045;
    const std::uint64_t start = 0xffffffff81000000;
    std::memcpy(k.data(), &ret, 8);
    std::memcpy(k.data() + 8, &start, 8);
    const std::uint32_t len = 1;
    return k + std::string(reinterpret_cast<const char*>(&len), 4) + "a";
  }();
  const std::size_t at = good.find(key);
  BOOST_REQUIRE(at != std::string::npos);
  std::string bad_kind = good;
  bad_kind[at + key.size()] = 3;
  BOOST_TEST(!parse(with_checksum_fixed(bad_kind, header), "0123abcd", problem));
  bad_kind[at + key.size()] = static_cast<char>(CallKind::Indirect);  // in range: read
  BOOST_TEST(parse(with_checksum_fixed(bad_kind, header), "0123abcd", problem));
}

BOOST_AUTO_TEST_CASE(a_stored_symbol_name_outside_the_names_is_rejected_even_with_a_right_checksum) {
  const KernelProfile p = generated_profile(11, "0123abcd");
  const std::string good = serialize_profile(p);
  const std::size_t header = header_size(p);
  // The payload opens with vmlinux's size, the kernel's start and end, the sections (a count,
  // 24 bytes each), then the stored symbols: their size, their count, the records.
  std::uint32_t sections = 0;
  std::memcpy(&sections, good.data() + header + 24, 4);
  const std::size_t table = header + 24 + 4 + std::size_t{sections} * 24 + 8;
  std::uint64_t count = 0;
  std::memcpy(&count, good.data() + table, 8);
  BOOST_REQUIRE_EQUAL(count, p.symbols_by_name.size());
  std::uint64_t table_size = 0;
  std::memcpy(&table_size, good.data() + table - 8, 8);
  const auto names_size = static_cast<std::uint32_t>(table_size - 8 - count * 24);
  const std::size_t last = table + 8 + (count - 1) * 24;  // the last record: its offset, then its length
  const auto with_name = [&](std::uint32_t off, std::uint32_t len) {
    std::string bytes = good;
    std::memcpy(bytes.data() + last, &off, 4);
    std::memcpy(bytes.data() + last + 4, &len, 4);
    std::string problem;
    return parse(with_checksum_fixed(bytes, header), "0123abcd", problem) != nullptr;
  };
  BOOST_TEST(with_name(names_size - 1, 1));   // the names' last byte: inside
  BOOST_TEST(with_name(names_size, 0));       // empty, at the end: inside
  BOOST_TEST(!with_name(names_size - 1, 2));  // one byte past the end
  BOOST_TEST(!with_name(names_size + 1, 0));  // starts past the end
  BOOST_TEST(!with_name(0xffffffffU, 2));     // offset + length wraps in 32 bits
  BOOST_TEST(!with_name(0, 0xffffffffU));     // a length no file holds
}

BOOST_AUTO_TEST_CASE(every_truncation_of_a_profile_is_rejected) {
  const std::string bytes = serialize_profile(generated_profile(7, "beef"));
  for (std::size_t n = 0; n < bytes.size(); n += 1 + n / 50) {
    std::string problem;
    BOOST_TEST(!parse(bytes.substr(0, n), "beef", problem), "a prefix of " << n << " bytes was accepted");
    BOOST_TEST(!problem.empty());
  }
}

BOOST_AUTO_TEST_CASE(every_flipped_bit_in_a_sample_of_positions_is_rejected) {
  const std::string bytes = serialize_profile(generated_profile(9, "beef"));
  std::mt19937 rng(42);
  for (int i = 0; i < 2000; ++i) {
    std::string damaged = bytes;
    const std::size_t at = rng() % damaged.size();
    damaged[at] = static_cast<char>(damaged[at] ^ (1 << (rng() % 8)));
    std::string problem;
    BOOST_TEST(!parse(damaged, "beef", problem), "a flipped bit at " << at << " was accepted");
  }
}

BOOST_AUTO_TEST_CASE(a_profile_of_another_build_id_or_format_is_rejected_by_name) {
  const std::string bytes = serialize_profile(generated_profile(3, "aaaa"));
  std::string problem;
  BOOST_TEST(!parse(bytes, "bbbb", problem));
  BOOST_TEST(problem.find("build id aaaa") != std::string::npos);
  std::string other_version = bytes;
  other_version[8] = static_cast<char>(other_version[8] + 1);  // the u32 after the magic
  BOOST_TEST(!parse(other_version, "aaaa", problem));
  BOOST_TEST(problem.find("format version") != std::string::npos);
  // A file of an older format whose header is laid out otherwise (format 3: a 4-byte
  // checksum) is named by its version, not as a truncated header.
  std::string format3 = bytes.substr(0, 8);
  const auto put = [&format3](const auto v) { format3.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(std::uint32_t{3});
  put(std::uint64_t{0});
  put(std::uint32_t{0});
  put(std::uint32_t{4});
  format3 += "aaaa";
  BOOST_TEST(!parse(format3, "aaaa", problem));
  BOOST_TEST(problem == "format version 3, this btaudit writes " + std::to_string(KernelProfile::kFormatVersion));
  BOOST_TEST(!parse("not a profile at all", "aaaa", problem));
  BOOST_TEST(problem.find("magic") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_profile_of_another_vmlinux_size_is_stale) {
  TempDir dir;
  const KernelProfile p = generated_profile(4, "cafe");
  BOOST_REQUIRE_EQUAL(save_profile_file(p, dir.path().string(), 1u << 30), "");
  std::string problem;
  const std::string path = profile_path(dir.path().string(), "cafe", p.vmlinux_size);
  BOOST_TEST(load_profile_file(path, "cafe", p.vmlinux_size, problem));
  BOOST_TEST(!load_profile_file(path, "cafe", p.vmlinux_size + 1, problem));
  BOOST_TEST(problem.find("bytes") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_size_cap_removes_the_oldest_profiles_and_nothing_else) {
  TempDir dir;
  write_file(dir.path() / "notes.txt", std::string(1 << 16, 'n'));  // not a profile: never removed
  std::vector<std::string> ids = {"aa01", "aa02", "aa03", "aa04"};
  std::uintmax_t one = 0;
  for (const std::string& id : ids) {
    BOOST_REQUIRE_EQUAL(save_profile_file(generated_profile(5, id), dir.path().string(), 1u << 30), "");
    one = fs::file_size(dir.path() / (id + ".1005"));
    // Distinct, ordered modification times whatever the file system's resolution.
    fs::last_write_time(dir.path() / (id + ".1005"),
                        fs::file_time_type::clock::now() - std::chrono::hours(10 - (&id - &ids[0])));
  }
  // Room for two: saving a fifth keeps it and the newest other one.
  BOOST_REQUIRE_EQUAL(save_profile_file(generated_profile(5, "aa05"), dir.path().string(), 2 * one + one / 2), "");
  BOOST_TEST(fs::exists(dir.path() / "aa05.1005"));
  BOOST_TEST(fs::exists(dir.path() / "aa04.1005"));
  BOOST_TEST(!fs::exists(dir.path() / "aa01.1005"));
  BOOST_TEST(!fs::exists(dir.path() / "aa02.1005"));
  BOOST_TEST(!fs::exists(dir.path() / "aa03.1005"));
  BOOST_TEST(fs::exists(dir.path() / "notes.txt"));
  // A profile larger than the whole cap is not written.
  BOOST_TEST(!save_profile_file(generated_profile(6, "aa06"), dir.path().string(), 100).empty());
  BOOST_TEST(!fs::exists(dir.path() / "aa06.1006"));
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// Everything a session is asked about the minikernel, as text, to compare sessions:
// every address of its text (symbols, lines with inline chains, code bytes, kallsyms),
// every function by name, and types.
constexpr std::uint64_t kTextStart = 0xffffffff81000000;  // minikernel.ld
constexpr std::uint64_t kTextBytes = 0x200;

std::string answers_of(KernelDebugInfo& info) {
  std::string out = "release " + info.release().value_or("-") + "\n";
  const KallsymsTable& table = info.kallsyms();
  out += "kallsyms " + std::to_string(table.entries().size()) + " from " + info.kallsyms_source() + "\n";
  std::vector<std::string> names;
  for (std::uint64_t a = kTextStart; a < kTextStart + kTextBytes; ++a) {
    if (auto k = info.kallsyms_at(a)) out += "kallsyms_at " + k->name + "+" + std::to_string(a - k->address) + "\n";
    if (auto s = info.symbol_at(a)) {
      out += "symbol_at " + s->name + " " + std::to_string(s->address) + " " + std::to_string(s->size) + "\n";
      if (names.empty() || names.back() != s->name) names.push_back(s->name);
    }
    FrameDebugInfo d;
    info.describe_source(a, d);
    out += "source " + d.innermost_function.value_or("-");
    if (d.source) out += " " + d.source->file + ":" + std::to_string(d.source->line);
    for (const InlinedCall& c : d.inlined) out += " <- " + c.function + "@" + std::to_string(c.call.line);
    out += "\n";
    std::uint8_t code[16] = {};
    const std::size_t n = info.read_code(a, code);
    out += "code " + std::to_string(n) + " " + std::to_string(code[0]) + "\n";
  }
  for (const std::string& name : names)
    if (auto f = info.function(name, "")) out += "function " + name + " " + std::to_string(f->address) + "\n";
  out += "function missing " + std::to_string(info.function("no_such_function_here", "").has_value()) + "\n";
  KernelTypes types(info);
  for (const char* t : {"no_such_struct"})
    out += std::string("type ") + t + " " + std::to_string(types.type_size(t).value_or(0)) + "\n";
  out += "variable hook " + std::to_string(types.variable_size("hook").value_or(0)) + "\n";
  return out;
}

DebugInfoOptions cached_in(const TempDir& dir) {
  DebugInfoOptions o;
  o.cache.enabled = true;
  o.cache.dir = dir.path().string();
  return o;
}

std::string minikernel_profile(const TempDir& dir) {
  for (const auto& e : fs::directory_iterator(dir.path())) return e.path().string();
  return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernel_profile_sessions)

BOOST_AUTO_TEST_CASE(cold_and_warm_sessions_answer_as_a_session_without_the_cache) {
  TempDir dir;
  const std::string plain = answers_of(*KernelDebugInfo::open(BTAUDIT_MINIKERNEL, DebugInfoOptions{}));
  BOOST_TEST(plain.find("source mk_") != std::string::npos);  // the image has DWARF: lines are answered
  auto cold = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, cached_in(dir));
  BOOST_TEST(cold->profile_state().starts_with("cold "));
  BOOST_TEST(answers_of(*cold) == plain);
  BOOST_REQUIRE_EQUAL(cold->save_profile(), "");
  const std::string file = minikernel_profile(dir);
  BOOST_REQUIRE(!file.empty());
  const auto written = fs::last_write_time(file);
  auto warm = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, cached_in(dir));
  BOOST_TEST(warm->profile_state().starts_with("warm "));
  BOOST_TEST(answers_of(*warm) == plain);
  // Nothing new was learned: the file is left alone.
  BOOST_REQUIRE_EQUAL(warm->save_profile(), "");
  BOOST_TEST((fs::last_write_time(file) == written));
}

BOOST_AUTO_TEST_CASE(a_warm_session_asked_something_new_adds_it_to_the_profile) {
  TempDir dir;
  {
    auto cold = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, cached_in(dir));
    BOOST_REQUIRE_EQUAL(cold->save_profile(), "");  // tables only: no address was asked about
  }
  const std::string file = minikernel_profile(dir);
  const auto before = fs::file_size(file);
  auto warm = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, cached_in(dir));
  BOOST_REQUIRE(warm->profile_state().starts_with("warm "));
  const std::string answers = answers_of(*warm);  // opens libdw for the lines and types
  BOOST_REQUIRE_EQUAL(warm->save_profile(), "");
  BOOST_TEST(fs::file_size(file) > before);
  auto again = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, cached_in(dir));
  BOOST_TEST(again->profile_state().starts_with("warm "));
  BOOST_TEST(answers_of(*again) == answers);
}

// kallsyms joins the profile only once a session asks for it: a `vmcore` session
// reads the dump's own table, and decoding and storing vmlinux's would make its cold
// run slower than a run without the cache.
BOOST_AUTO_TEST_CASE(kallsyms_is_stored_by_the_first_session_that_asks_for_it) {
  TempDir dir;
  const auto stored = [&](const KernelDebugInfo& info) {
    std::string problem;
    auto p = load_profile_file(minikernel_profile(dir), *info.build_id(), fs::file_size(BTAUDIT_MINIKERNEL), problem);
    BOOST_REQUIRE_MESSAGE(p, problem);
    return p->has_kallsyms();
  };
  auto plain = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, DebugInfoOptions{});
  const std::string want = answers_of(*plain);
  {
    auto cold = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, cached_in(dir));
    BOOST_TEST(cold->function("mk_start", "").has_value());  // a by-name question: no kallsyms needed
    BOOST_REQUIRE_EQUAL(cold->save_profile(), "");
    BOOST_TEST(!stored(*cold));
  }
  {
    auto warm = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, cached_in(dir));
    BOOST_REQUIRE(warm->profile_state().starts_with("warm "));
    BOOST_TEST(warm->kallsyms_source() == plain->kallsyms_source());  // decoded from the file, as without a cache
    BOOST_TEST(answers_of(*warm) == want);
    BOOST_REQUIRE_EQUAL(warm->save_profile(), "");
    BOOST_TEST(stored(*warm));
  }
  const auto written = fs::last_write_time(minikernel_profile(dir));
  auto again = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, cached_in(dir));
  BOOST_TEST(again->profile_state().starts_with("warm "));
  BOOST_TEST(answers_of(*again) == want);
  BOOST_REQUIRE_EQUAL(again->save_profile(), "");
  BOOST_TEST((fs::last_write_time(minikernel_profile(dir)) == written));  // nothing new: the file is left alone
}

BOOST_AUTO_TEST_CASE(a_truncated_flipped_or_foreign_profile_is_rebuilt_and_never_trusted) {
  TempDir dir;
  const std::string plain = answers_of(*KernelDebugInfo::open(BTAUDIT_MINIKERNEL, DebugInfoOptions{}));
  {
    auto cold = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, cached_in(dir));
    answers_of(*cold);
    BOOST_REQUIRE_EQUAL(cold->save_profile(), "");
  }
  const std::string file = minikernel_profile(dir);
  const std::string good = read_file(file);
  // Another kernel's profile under this build id's name: its own id inside gives it away.
  KernelProfile foreign = generated_profile(11, "0000000000000000000000000000000000000000");
  struct Damage {
    const char* what;
    std::string bytes;
    const char* problem;
  };
  std::string flipped = good;
  flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x10);
  const std::vector<Damage> damages = {
      {"truncated", good.substr(0, good.size() - 100), "truncated"},
      {"bit-flipped", flipped, "checksum"},
      {"foreign", serialize_profile(foreign), "build id 0000"},
      {"empty", "", "magic"},
  };
  for (const Damage& d : damages) {
    BOOST_TEST_CONTEXT(d.what) {
      write_file(file, d.bytes);
      auto session = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, cached_in(dir));
      BOOST_TEST(session->profile_state().starts_with("rebuilt "), session->profile_state());
      BOOST_TEST(session->profile_state().find(d.problem) != std::string::npos, session->profile_state());
      BOOST_TEST(answers_of(*session) == plain);
      BOOST_REQUIRE_EQUAL(session->save_profile(), "");
      auto next = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, cached_in(dir));
      BOOST_TEST(next->profile_state().starts_with("warm "), "not rewritten whole: " << next->profile_state());
      BOOST_TEST(answers_of(*next) == plain);
    }
  }
}

BOOST_AUTO_TEST_CASE(without_the_cache_nothing_is_read_or_written) {
  TempDir dir;
  DebugInfoOptions off = cached_in(dir);
  off.cache.enabled = false;
  auto session = KernelDebugInfo::open(BTAUDIT_MINIKERNEL, off);
  BOOST_TEST(session->profile_state() == "off");
  answers_of(*session);
  BOOST_REQUIRE_EQUAL(session->save_profile(), "");
  BOOST_TEST(fs::is_empty(dir.path()));
}

BOOST_AUTO_TEST_SUITE_END()

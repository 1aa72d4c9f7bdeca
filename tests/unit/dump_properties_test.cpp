// Generated variants rather than listed examples: random call chains walked by
// ORC and by frame pointers must mark exactly the planted return slots
// reliable; random symbol tables must give what a brute-force reading of
// kallsyms' rules gives; and the per-CPU crash_notes and NT_PRSTATUS readers
// on planted note buffers.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <random>

#include "planted_memory.h"
#include "provider/kallsyms.h"
#include "provider/module_kallsyms.h"
#include "unwind/stack_walk.h"
#include "vmcore/crash_notes.h"
#include "vmcore/prstatus.h"

namespace {

using namespace btaudit;

constexpr std::uint64_t kText = 0xffffffff81000000;
constexpr std::uint64_t kOrcIp = 0xffffffff82000000, kOrcEnt = 0xffffffff82100000;
constexpr std::uint64_t kStack = 0xffffc90000020000, kStackSize = 16384;

std::uint64_t fn(std::size_t i) { return kText + 0x100 * i; }

// What a planted chain should walk to: every text word from SP up, reliable or not.
struct Planted {
  SyntheticMemory mem;
  WalkInput in;
  OrcTable orc;
  std::vector<std::pair<std::uint64_t, bool>> expected;  // (slot, reliable), in slot order
  std::size_t functions = 0;
};

void write_orc(Planted& p, const std::vector<std::pair<std::int16_t, bool>>& rows) {
  test::Image ips(kOrcIp), ents(kOrcEnt);
  for (std::size_t i = 0; i <= rows.size(); ++i) {
    ips.s32(kOrcIp + 4 * i, static_cast<std::int32_t>(fn(i) - (kOrcIp + 4 * i)));
    // v1: sp_reg SP (5), type CALL (0); the bottom function and the terminator: undefined + end.
    const bool end = i == rows.size() || rows[i].second;
    const std::int16_t off = i == rows.size() ? 0 : rows[i].first;
    ents.u16(kOrcEnt + 6 * i, static_cast<std::uint16_t>(off));
    ents.u16(kOrcEnt + 6 * i + 2, 0);
    ents.u16(kOrcEnt + 6 * i + 4, static_cast<std::uint16_t>(end ? (1u << 10) : 5u));
  }
  ips.map_into(p.mem);
  ents.map_into(p.mem);
  BOOST_REQUIRE(p.orc.add(p.mem, kOrcIp, kOrcEnt, rows.size() + 1, 1));
}

// A chain of `depth` ORC-described frames, innermost first, each with its own frame
// size, locals holding junk: data, stale text addresses, stack pointers.
void plant_orc_chain(Planted& p, std::mt19937_64& rng, std::size_t depth) {
  p.functions = depth;
  std::vector<std::pair<std::int16_t, bool>> rows;
  std::vector<std::uint64_t> frame_size(depth);
  for (std::size_t i = 0; i < depth; ++i) {
    frame_size[i] = 8 * (1 + rng() % 8);  // CFA = SP + 8..64
    rows.push_back({static_cast<std::int16_t>(frame_size[i]), i + 1 == depth});
  }
  write_orc(p, rows);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i + 1 < depth; ++i) total += frame_size[i];
  const std::uint64_t sp0 = kStack + kStackSize - total - 256;
  test::Image stack(kStack, kStackSize);
  std::uint64_t sp = sp0;
  std::vector<std::pair<std::uint64_t, bool>> text;
  for (std::size_t i = 0; i + 1 < depth; ++i) {
    const std::uint64_t cfa = sp + frame_size[i];
    for (std::uint64_t slot = sp; slot < cfa - 8; slot += 8) {
      switch (rng() % 4) {
        case 0: {  // a stale return address: text, '?'
          const std::uint64_t v = fn(rng() % depth) + 1 + rng() % 0xfe;
          stack.u64(slot, v);
          text.push_back({slot, false});
          break;
        }
        case 1: stack.u64(slot, sp + 8 * (rng() % 4)); break;  // a pointer into the stack
        default: stack.u64(slot, rng() & 0xffff);              // data
      }
    }
    stack.u64(cfa - 8, fn(i + 1) + 1 + rng() % 0xfe);  // the return address into the caller
    text.push_back({cfa - 8, true});
    sp = cfa;
  }
  // Above the bottom frame: leftovers of older calls, after the chain's end.
  for (std::uint64_t slot = sp; slot < kStack + kStackSize; slot += 8)
    if (rng() % 5 == 0) {
      stack.u64(slot, fn(rng() % depth) + 3);
      text.push_back({slot, false});
    }
  stack.map_into(p.mem);
  std::sort(text.begin(), text.end());
  p.expected = text;
  p.in.regs = {{"rip", fn(0) + 2}, {"rsp", sp0}, {"rbp", 0}};
  p.in.stacks = {{StackKind::Task, "", kStack, kStack + kStackSize}};
  p.in.orc = &p.orc;
  p.in.is_kernel_text = [depth](std::uint64_t a) { return a >= kText && a < fn(depth); };
}

// A chain of frame records (frame-pointer kernel): [saved RBP][return address] per frame,
// locals in between, the outermost saved RBP 0.
void plant_fp_chain(Planted& p, std::mt19937_64& rng, std::size_t depth) {
  p.functions = depth;
  test::Image stack(kStack, kStackSize);
  std::vector<std::uint64_t> record(depth);  // where each function's frame record is (its RBP)
  std::uint64_t at = kStack + kStackSize - 64;
  for (std::size_t k = depth; k-- > 0;) {  // outermost first, growing down
    at -= 16 + 8 * (rng() % 6);
    record[k] = at;
  }
  std::vector<std::pair<std::uint64_t, bool>> text;
  for (std::size_t k = 0; k < depth; ++k) {
    const bool outermost = k + 1 == depth;
    stack.u64(record[k], outermost ? 0 : record[k + 1]);
    if (!outermost) {
      stack.u64(record[k] + 8, fn(k + 1) + 1 + rng() % 0xfe);
      text.push_back({record[k] + 8, true});
    }
    const std::uint64_t limit = outermost ? kStack + kStackSize : record[k + 1];
    for (std::uint64_t slot = record[k] + 16; slot < limit; slot += 8)
      if (rng() % 3 == 0) {
        stack.u64(slot, fn(rng() % depth) + 5);
        text.push_back({slot, false});
      }
  }
  const std::uint64_t sp0 = record[0] - 8 * (1 + rng() % 4);
  for (std::uint64_t slot = sp0; slot < record[0]; slot += 8)
    if (rng() % 2 == 0) {
      stack.u64(slot, fn(rng() % depth) + 7);
      text.push_back({slot, false});
    }
  stack.map_into(p.mem);
  std::sort(text.begin(), text.end());
  p.expected = text;
  p.in.regs = {{"rip", fn(0) + 2}, {"rsp", sp0}, {"rbp", record[0]}};
  p.in.stacks = {{StackKind::Task, "", kStack, kStack + kStackSize}};
  p.in.orc = nullptr;
  p.in.unwinder = KernelUnwinder::FramePointer;
  p.in.is_kernel_text = [depth](std::uint64_t a) { return a >= kText && a < fn(depth); };
}

std::vector<std::pair<std::uint64_t, bool>> walked(const WalkResult& w) {
  std::vector<std::pair<std::uint64_t, bool>> out;
  for (const StackFrame& f : w.frames)
    if (!f.from_regs) out.emplace_back(*f.slot, f.reliable());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(walk_properties)

BOOST_AUTO_TEST_CASE(random_orc_chains_walk_to_exactly_their_return_slots) {
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    std::mt19937_64 rng(seed);
    Planted p;
    plant_orc_chain(p, rng, 2 + rng() % 12);
    const WalkResult w = walk_stacks(p.mem, p.in);
    BOOST_TEST(walked(w) == p.expected, "seed " << seed);
    BOOST_TEST(w.problems.empty(), "seed " << seed);
    // Past the bottom frame every word is after the stack's end; before it, stale by ORC.
    bool ended = false;
    for (const StackFrame& f : w.frames) {
      if (f.from_regs) continue;
      if (f.reliable()) {
        BOOST_TEST(f.reason == Reason::Orc);
        ended = f.pc >= fn(p.functions - 1);
      } else {
        BOOST_TEST(f.reason == (ended ? Reason::AfterStackEnd : Reason::StaleByOrc), "seed " << seed);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(random_frame_record_chains_walk_to_exactly_their_return_slots) {
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    Planted p;
    plant_fp_chain(p, rng, 2 + rng() % 10);
    const WalkResult w = walk_stacks(p.mem, p.in);
    BOOST_TEST(walked(w) == p.expected, "seed " << seed);
    for (const StackFrame& f : w.frames)
      if (!f.from_regs && f.reliable()) BOOST_TEST(f.trust == Trust::FramePointer);
  }
}

BOOST_AUTO_TEST_CASE(a_corrupted_word_never_makes_a_walk_loop_or_crash) {
  // Flip one word of a good chain into every kind of garbage: the walk ends, within budget.
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    std::mt19937_64 rng(seed * 31);
    Planted p;
    plant_orc_chain(p, rng, 3 + rng() % 8);
    const std::uint64_t sp = p.in.regs["rsp"];
    const std::uint64_t victim = sp + 8 * (rng() % 24);
    const std::uint64_t garbage[] = {0, ~0ULL, sp, sp - 8, fn(0) + 2, kStack - 8, kText - 1};
    p.mem.put_u64(victim, garbage[rng() % std::size(garbage)]);
    p.in.max_frames = 512;
    const WalkResult w = walk_stacks(p.mem, p.in);
    BOOST_TEST(w.frames.size() <= 512u);
  }
}

BOOST_AUTO_TEST_SUITE_END()

// ---- kallsyms against a brute-force reading of its rules ----

namespace {

struct Ref {
  std::uint64_t address;
  bool weak;
  std::string name;
};

// get_symbol_pos(), written the slow and obvious way.
std::optional<Symbol> reference_lookup(std::vector<Ref> syms, std::uint64_t a, std::uint64_t etext) {
  auto underscores = [](const std::string& n) { return n.find_first_not_of('_'); };
  std::sort(syms.begin(), syms.end(), [&](const Ref& x, const Ref& y) {
    if (x.address != y.address) return x.address < y.address;
    if (x.weak != y.weak) return !x.weak;
    if (underscores(x.name) != underscores(y.name)) return underscores(x.name) < underscores(y.name);
    return x.name < y.name;
  });
  std::optional<std::uint64_t> start;
  for (const Ref& s : syms)
    if (s.address <= a && (!start || s.address > *start)) start = s.address;
  if (!start) return std::nullopt;
  std::uint64_t end = etext;
  for (const Ref& s : syms)
    if (s.address > *start) end = std::min(end, s.address);
  for (const Ref& s : syms)
    if (s.address == *start) return Symbol{s.name, *start, end - *start, ""};
  return std::nullopt;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kallsyms_properties)

BOOST_AUTO_TEST_CASE(random_tables_look_up_as_the_rules_say) {
  const char* names[] = {"alpha", "_beta", "__gamma", "delta.cold", "__pfx_eps", "zeta.part.0", "eta", "__theta"};
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint64_t etext = kText + 0x2000;
    std::vector<ElfSymbolFacts> facts;
    std::vector<Ref> ref;
    ElfSymbolFacts stext;
    stext.name = "_stext";
    stext.address = kText;
    stext.kind = ElfSymbolFacts::Kind::Function;
    stext.exec = true;
    facts.push_back(stext);
    ref.push_back({kText, false, "_stext"});
    ElfSymbolFacts e = stext;
    e.name = "_etext";
    e.address = etext;
    facts.push_back(e);
    const std::size_t n = 1 + rng() % 40;
    for (std::size_t i = 0; i < n; ++i) {
      ElfSymbolFacts f;
      f.name = std::string(names[rng() % std::size(names)]) + std::to_string(rng() % 3);
      f.address = kText + 16 * (rng() % 0x200);  // aliases happen
      f.kind = ElfSymbolFacts::Kind::Function;
      f.exec = true;
      const bool weak = rng() % 6 == 0;
      f.binding = weak ? ElfSymbolFacts::Binding::Weak : ElfSymbolFacts::Binding::Local;
      facts.push_back(f);
      ref.push_back({f.address, weak, f.name});
    }
    const KallsymsTable t = KallsymsTable::from_elf(facts);
    for (int k = 0; k < 50; ++k) {
      const std::uint64_t a = kText + rng() % 0x2000;
      auto got = t.lookup(a);
      auto want = reference_lookup(ref, a, etext);
      BOOST_REQUIRE(got.has_value() == want.has_value());
      if (!got) continue;
      BOOST_TEST(got->name == want->name, "seed " << seed << " at +" << std::hex << (a - kText));
      BOOST_TEST(got->address == want->address);
      BOOST_TEST(got->size == want->size);
    }
  }
}

BOOST_AUTO_TEST_CASE(random_module_symtabs_look_up_as_find_kallsyms_symbol_does) {
  constexpr std::uint64_t kMod = 0xffffffffc0000000;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    ModuleKallsyms m;
    m.module = "m";
    m.text_begin = kMod;
    m.text_end = kMod + 0x1000;
    m.symtab.push_back({"", 0, 0});
    const std::size_t n = 1 + rng() % 30;
    for (std::size_t i = 0; i < n; ++i) {
      const int kind = static_cast<int>(rng() % 10);
      ModuleSymtabEntry e;
      e.name = kind == 0 ? "" : kind == 1 ? "$x" : "s" + std::to_string(i);
      e.shndx = kind == 2 ? 0 : 1;
      e.value = kMod + 8 * (rng() % 0x280);  // some beyond the text: data
      m.symtab.push_back(e);
    }
    for (int k = 0; k < 40; ++k) {
      const std::uint64_t a = kMod + rng() % 0x1000;
      // The reference: valid symbols only; the first of the highest at or below a; the lowest above a.
      std::optional<std::size_t> best;
      std::uint64_t next = m.text_end;
      for (std::size_t i = 1; i < m.symtab.size(); ++i) {
        const ModuleSymtabEntry& s = m.symtab[i];
        if (!s.shndx || s.name.empty() || s.name[0] == '$') continue;
        if (s.value <= a && (!best || s.value > m.symtab[*best].value)) best = i;
        if (s.value > a) next = std::min(next, s.value);
      }
      auto got = module_kallsyms_lookup(m, a);
      BOOST_REQUIRE(got.has_value() == best.has_value());
      if (!got) continue;
      BOOST_TEST(got->name == m.symtab[*best].name, "seed " << seed);
      BOOST_TEST(got->size == next - m.symtab[*best].value);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// ---- registers from the kernel's per-CPU note buffers ----

namespace {

constexpr std::uint64_t kPerCpuOffsets = 0xffffffff82800000;
constexpr std::uint64_t kCrashNotes = 0xffffffff82801000;  // note_buf_t __percpu *crash_notes
constexpr std::uint64_t kNotesOffset = 0x4000;             // its value: the per-CPU offset of the buffers

// An Elf64_Nhdr "CORE" NT_PRSTATUS note with pr_reg's rip and rsp set.
std::vector<std::uint8_t> prstatus_note(std::uint64_t rip, std::uint64_t rsp, std::string name = "CORE",
                                        std::uint32_t type = 1) {
  const std::uint32_t namesz = static_cast<std::uint32_t>(name.size() + 1), descsz = 336;
  // Sized once and filled with memcpy: g++ 12 -O3 sees a false out-of-bounds copy in a
  // vector::insert that grows a 12-byte vector (-Werror=array-bounds).
  const std::size_t desc = (12 + name.size() + 1 + 3) & ~std::size_t{3};
  std::vector<std::uint8_t> n(desc, 0);
  std::memcpy(n.data(), &namesz, 4);
  std::memcpy(n.data() + 4, &descsz, 4);
  std::memcpy(n.data() + 8, &type, 4);
  std::memcpy(n.data() + 12, name.data(), name.size());
  n.resize(desc + descsz, 0);
  // struct user_regs_struct at pr_reg (112): r15 ... rip is the 17th, rsp the 20th.
  std::memcpy(n.data() + desc + 112 + 16 * 8, &rip, 8);
  std::memcpy(n.data() + desc + 112 + 19 * 8, &rsp, 8);
  return n;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(crash_notes)

BOOST_AUTO_TEST_CASE(each_cpu_keeps_its_own_registers_and_an_empty_buffer_is_skipped) {
  SyntheticMemory mem;
  const std::uint64_t bases[] = {0xffff888100000000, 0xffff888100100000, 0xffff888100200000};
  test::Image offsets(kPerCpuOffsets, 24);
  for (int c = 0; c < 3; ++c) offsets.u64(kPerCpuOffsets + 8 * c, bases[c]);
  offsets.map_into(mem);
  test::Image ptr(kCrashNotes, 8);
  ptr.u64(kCrashNotes, kNotesOffset).map_into(mem);
  for (int c : {0, 2}) {
    const auto note = prstatus_note(0xffffffff81000000 + c, 0xffffc90000000000 + c);
    test::Image buf(bases[c] + kNotesOffset, 512);
    buf.put(bases[c] + kNotesOffset, note.data(), note.size()).map_into(mem);
  }
  test::Image empty(bases[1] + kNotesOffset, 512);  // CPU 1 never answered the crash NMI
  empty.map_into(mem);
  KernelLayout l;
  l.per_cpu_offset_array = kPerCpuOffsets;
  l.crash_notes = kCrashNotes;
  const auto regs = read_crash_notes(mem, l, 3);
  BOOST_REQUIRE_EQUAL(regs.size(), 2u);
  BOOST_TEST(regs[0].cpu == 0);
  BOOST_TEST(regs[1].cpu == 2);
  BOOST_TEST(*regs[1].get("rip") == 0xffffffff81000002u);
  BOOST_TEST(*regs[1].get("rsp") == 0xffffc90000000002u);
}

BOOST_AUTO_TEST_CASE(without_crash_notes_there_is_nothing_to_go_by) {
  SyntheticMemory mem;
  KernelLayout l;
  BOOST_TEST(read_crash_notes(mem, l, 4).empty());
  l.crash_notes = kCrashNotes;  // the pointer is not in the dump
  BOOST_TEST(read_crash_notes(mem, l, 4).empty());
}

BOOST_AUTO_TEST_CASE(only_a_whole_core_prstatus_note_is_taken) {
  const auto good = prstatus_note(1, 2);
  BOOST_TEST(parse_prstatus_note(good).has_value());
  BOOST_TEST(!parse_prstatus_note(std::span(good.data(), good.size() / 2)).has_value());  // cut short
  BOOST_TEST(!parse_prstatus_note(prstatus_note(1, 2, "LINUX")).has_value());
  BOOST_TEST(!parse_prstatus_note(prstatus_note(1, 2, "CORE", 2)).has_value());  // NT_PRFPREG
  BOOST_TEST(!parse_prstatus_note({}).has_value());
  std::vector<std::uint8_t> desc(336, 0);
  BOOST_TEST(parse_prstatus_desc(desc).has_value());
  BOOST_TEST(!parse_prstatus_desc(std::span(desc.data(), 100)).has_value());
}

BOOST_AUTO_TEST_SUITE_END()

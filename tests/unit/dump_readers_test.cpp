// The dump readers of vmcore/ on fakes: the per-CPU layout of every era from
// which symbols and members exist (kernel_layout), each CPU's IRQ state read
// from planted per-CPU areas (irq_state), the task list (task_list) and the
// module list with its symtab (module_list). The fakes answer from tables the
// tests write; memory is laid out byte by byte.
#include <boost/test/unit_test.hpp>

#include "planted_memory.h"
#include "provider/debuginfo_error.h"
#include "vmcore/irq_state.h"
#include "vmcore/kernel_layout.h"
#include "vmcore/module_list.h"
#include "vmcore/task_list.h"

namespace {

using namespace btaudit;
using test::FakeSymbols;
using test::FakeTypes;
using test::Image;

constexpr std::uint64_t kData = 0xffffffff82800000;  // vmlinux data (link addresses)

// What every era has: the per-CPU offsets, the task_struct members, a sized init_stack.
void common(FakeSymbols& s, FakeTypes& t) {
  s.add("__per_cpu_offset", kData, 8 * 64, 'D')
      .add("nr_cpu_ids", kData + 0x1000, 4, 'D')
      .add("init_stack", kData + 0x10000, 16384, 'D');
  t.member("task_struct.pid", 0x500, 4).member("task_struct.comm", 0x600, 16).member("task_struct.stack", 0x20);
  t.size("irq_stack", 16384);
}

// 6.2-6.14: struct pcpu_hot, cea_exception_stacks.
void pcpu_hot_era(FakeSymbols& s, FakeTypes& t) {
  common(s, t);
  s.add("pcpu_hot", 0x1f000, 64, 'D').add("cea_exception_stacks", 0x20008, 8, 'D');
  t.member("pcpu_hot.current_task", 0)
      .member("pcpu_hot.hardirq_stack_ptr", 0x18)
      .member("pcpu_hot.hardirq_stack_inuse", 0x20, 1);
  t.member("cea_exception_stacks.DF_stack", 0x1000, 0x2000).member("cea_exception_stacks.NMI_stack", 0x4000, 0x2000);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kernel_layout)

BOOST_AUTO_TEST_CASE(PcpuHotEraReadsEverythingFromTheStruct) {
  FakeSymbols s;
  FakeTypes t;
  pcpu_hot_era(s, t);
  const KernelLayout l = detect_layout(s, t, 0, "vmlinux");
  BOOST_TEST((l.era == IrqEra::PcpuHot));
  BOOST_TEST(l.irq_stack_ptr_var == 0x1f018u);
  BOOST_TEST(*l.inuse_var == 0x1f020u);
  BOOST_TEST(l.current_task_var == 0x1f000u);
  BOOST_TEST(l.irq_stack_top_adjust == 8u);
  BOOST_TEST(l.thread_size == 16384u);
  BOOST_TEST(l.irq_stack_size == 16384u);
  BOOST_REQUIRE_EQUAL(l.exception_stacks.size(), 2u);
  BOOST_TEST(l.exception_stacks[0].name == "#DF");
  BOOST_TEST(l.exception_stacks[1].name == "NMI");
  BOOST_TEST(l.fallbacks.empty());
}

BOOST_AUTO_TEST_CASE(Kernels512To61UseHardirqStackInuse) {
  FakeSymbols s;
  FakeTypes t;
  common(s, t);
  s.add("hardirq_stack_ptr", 0x1b000, 8, 'D').add("hardirq_stack_inuse", 0x1b008, 1, 'D');
  s.add("current_task", 0x1a000, 8, 'D');
  const KernelLayout l = detect_layout(s, t, 0, "vmlinux");
  BOOST_TEST((l.era == IrqEra::HardirqPtrInuse));
  BOOST_TEST(l.irq_stack_ptr_var == 0x1b000u);
  BOOST_TEST(l.current_task_var == 0x1a000u);
  BOOST_TEST(l.irq_stack_top_adjust == 8u);
  BOOST_TEST(!l.irq_count_var.has_value());
}

BOOST_AUTO_TEST_CASE(Kernels615AndLaterAreToldApartByTheCacheHotSection) {
  FakeSymbols s;
  FakeTypes t;
  common(s, t);
  s.add("hardirq_stack_ptr", 0x1b000, 8, 'D').add("hardirq_stack_inuse", 0x1b008, 1, 'D');
  s.add("current_task", 0x1a000, 8, 'D').add("__per_cpu_hot_start", 0x19000, 0, 'D');
  BOOST_TEST((detect_layout(s, t, 0, "vmlinux").era == IrqEra::PerCpuHot));
}

BOOST_AUTO_TEST_CASE(Kernels52To511CountIrqsAndKeepThePointerAtTheTop) {
  FakeSymbols s;
  FakeTypes t;
  common(s, t);
  s.add("hardirq_stack_ptr", 0x1b000, 8, 'D').add("irq_count", 0x1b010, 4, 'D').add("current_task", 0x1a000, 8, 'D');
  const KernelLayout l = detect_layout(s, t, 0, "vmlinux");
  BOOST_TEST((l.era == IrqEra::HardirqPtrIrqCount));
  BOOST_TEST(*l.irq_count_var == 0x1b010u);
  BOOST_TEST(l.irq_stack_top_adjust == 0u);
}

BOOST_AUTO_TEST_CASE(OldKernelsHaveIrqStackPtrAndOrigIst) {
  FakeSymbols s;
  FakeTypes t;
  common(s, t);
  s.add("irq_stack_ptr", 0x1b000, 8, 'D').add("irq_count", 0x1b010, 4, 'D').add("current_task", 0x1a000, 8, 'D');
  s.add("orig_ist", 0x1c000, 56, 'D').add("exception_stacks", 0x1d000, 5 * 8192, 'D');
  const KernelLayout l = detect_layout(s, t, 0, "vmlinux");
  BOOST_TEST((l.era == IrqEra::IrqStackPtr));
  BOOST_TEST(*l.orig_ist_var == 0x1c000u);
  BOOST_REQUIRE_EQUAL(l.exception_stacks.size(), 4u);
  BOOST_TEST(l.exception_stacks[0].size == 8192u);  // EXCEPTION_STKSZ from exception_stacks' size / 5
  BOOST_TEST(l.exception_stacks[2].name == "#DB");
  BOOST_TEST(l.exception_stacks[2].size == 16384u);  // #DB's is twice as large
  BOOST_TEST(l.exception_stacks[1].offset == 8u);    // orig_ist.ist[1]
}

BOOST_AUTO_TEST_CASE(KaslrMovesAddressesButNotPerCpuOffsets) {
  FakeSymbols s;
  FakeTypes t;
  pcpu_hot_era(s, t);
  const KernelLayout l = detect_layout(s, t, 0x2a000000, "vmlinux");
  BOOST_TEST(l.per_cpu_offset_array == kData + 0x2a000000);
  BOOST_TEST(l.nr_cpu_ids == kData + 0x1000 + 0x2a000000);
  BOOST_TEST(l.irq_stack_ptr_var == 0x1f018u);
}

BOOST_AUTO_TEST_CASE(EveryDefaultTakenIsAFallbackNote) {
  FakeSymbols s;
  FakeTypes t;
  s.add("__per_cpu_offset", kData, 8, 'D').add("pcpu_hot", 0x1f000, 64, 'D');
  t.member("pcpu_hot.current_task", 0).member("pcpu_hot.hardirq_stack_ptr", 0x18);
  t.member("task_struct.pid", 0x500, 4).member("task_struct.comm", 0x600, 16).member("task_struct.stack", 0x20);
  const KernelLayout l = detect_layout(s, t, 0, "vmlinux");
  BOOST_TEST(l.thread_size == 16384u);
  BOOST_TEST(l.irq_stack_size == 16384u);
  BOOST_TEST(l.fallbacks.size() >= 4u);  // in-use state, THREAD_SIZE, IRQ stack size, exception stacks
}

BOOST_AUTO_TEST_CASE(ThreadSizeFallsBackToTheIrqStacksSize) {
  FakeSymbols s;
  FakeTypes t;
  pcpu_hot_era(s, t);
  s.add("init_stack", kData + 0x10000, 0, 'D');  // no ELF size
  t.size("irq_stack", 8192);
  const KernelLayout l = detect_layout(s, t, 0, "vmlinux");
  BOOST_TEST(l.thread_size == 8192u);
  BOOST_TEST(l.fallbacks.size() == 1u);
}

BOOST_AUTO_TEST_CASE(WhatEveryEraHasMissingIsAnErrorNamingTheFile) {
  FakeSymbols none;
  FakeTypes t;
  BOOST_CHECK_EXCEPTION(detect_layout(none, t, 0, "/boot/vmlinux-x"), DebugInfoError, [](const DebugInfoError& e) {
    return std::string(e.what()).find("/boot/vmlinux-x: no __per_cpu_offset") == 0;
  });
  FakeSymbols no_irq;
  no_irq.add("__per_cpu_offset", kData);
  BOOST_CHECK_THROW(detect_layout(no_irq, t, 0, "vmlinux"), DebugInfoError);
  FakeSymbols s;
  FakeTypes no_task;
  s.add("__per_cpu_offset", kData).add("hardirq_stack_ptr", 1).add("hardirq_stack_inuse", 2).add("current_task", 3);
  BOOST_CHECK_THROW(detect_layout(s, no_task, 0, "vmlinux"), DebugInfoError);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- IRQ state from planted per-CPU areas ----

namespace {

constexpr std::uint64_t kPcpu0 = 0xffff888100000000;  // CPU 0's per-CPU area
constexpr std::uint64_t kPcpu1 = 0xffff888100100000;
constexpr std::uint64_t kTask0 = 0xffff888200000000;  // task_structs
constexpr std::uint64_t kTask1 = 0xffff888200010000;
constexpr std::uint64_t kStack0 = 0xffffc90000100000;  // their stacks
constexpr std::uint64_t kIrq0 = 0xffffc90000200000;    // IRQ stacks
constexpr std::uint64_t kIrq1 = 0xffffc90000300000;
constexpr std::uint64_t kCea0 = 0xfffffe0000010000;  // CPU 0's exception stacks

struct CpuFixture {
  SyntheticMemory mem;
  FakeSymbols symbols;
  FakeTypes types;
  KernelLayout layout;

  CpuFixture() {
    pcpu_hot_era(symbols, types);
    layout = detect_layout(symbols, types, 0, "vmlinux");
    Image data(kData, 0x2000);
    data.u64(kData, kPcpu0).u64(kData + 8, kPcpu1);  // __per_cpu_offset[]
    data.u32(kData + 0x1000, 2);                     // nr_cpu_ids
    data.map_into(mem);
    plant_cpu(kPcpu0, kTask0, 1, "sh", kIrq0, true);
    plant_cpu(kPcpu1, kTask1, 0, "swapper/1", kIrq1, false);
  }
  void plant_cpu(std::uint64_t pcpu, std::uint64_t task, std::uint32_t pid, const std::string& comm, std::uint64_t irq,
                 bool inuse) {
    Image area(pcpu, 0x21000);
    area.u64(pcpu + 0x1f000, task);                        // pcpu_hot.current_task
    area.u64(pcpu + 0x1f018, irq + 16384 - 8);             // hardirq_stack_ptr: top - 8
    area.u8(pcpu + 0x1f020, inuse ? 1 : 0);                // hardirq_stack_inuse
    area.u64(pcpu + 0x20008, pcpu == kPcpu0 ? kCea0 : 0);  // cea_exception_stacks
    area.map_into(mem);
    Image t(task, 0x700);
    t.u64(task + 0x20, kStack0 + (task - kTask0));  // task->stack
    t.u32(task + 0x500, pid);
    t.str(task + 0x600, comm);
    t.map_into(mem);
    Image top(irq + 16384 - 8, 8);
    top.u64(irq + 16384 - 8, kStack0 + 0x3e00);  // the backlink word
    top.map_into(mem);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(irq_state, CpuFixture)

BOOST_AUTO_TEST_CASE(EachCpuGetsItsTaskIrqStackAndInUseState) {
  const auto cpus = read_irq_state(mem, layout, {kIrq0 + 0x3f00, kStack0 + 0x10000 + 0x3000},
                                   {"NT_PRSTATUS note", "NT_PRSTATUS note"});
  BOOST_REQUIRE_EQUAL(cpus.size(), 2u);
  const CpuState& c0 = cpus[0];
  BOOST_TEST(*c0.task == kTask0);
  BOOST_TEST(*c0.pid == 1);
  BOOST_TEST(*c0.comm == "sh");
  BOOST_TEST(c0.irq_stack->begin == kIrq0);
  BOOST_TEST(c0.irq_stack->end == kIrq0 + 16384);
  BOOST_TEST(*c0.backlink == kStack0 + 0x3e00);
  BOOST_TEST(*c0.in_use);
  BOOST_TEST(c0.sp_stack == "irq");
  const CpuState& c1 = cpus[1];
  BOOST_TEST(*c1.comm == "swapper/1");
  BOOST_TEST(!*c1.in_use);
  BOOST_TEST(c1.sp_stack == "task");
}

BOOST_AUTO_TEST_CASE(ExceptionStacksComeFromTheCpuEntryArea) {
  const auto cpus = read_irq_state(mem, layout, {kCea0 + 0x1000 + 0x100, std::nullopt}, {"note", "none"});
  const CpuState& c0 = cpus[0];
  std::vector<std::string> labels;
  for (const StackRange& r : c0.stacks) labels.push_back(r.label());
  const std::vector<std::string> expected = {"task", "irq", "#DF", "NMI"};
  BOOST_TEST(labels == expected, boost::test_tools::per_element());
  BOOST_TEST(c0.sp_stack == "#DF");
  BOOST_TEST(cpus[1].stacks.size() == 2u);  // no cea pointer: no exception stacks
  BOOST_TEST(cpus[1].sp_stack == "unknown");
  BOOST_TEST(cpus[1].registers_from == "none");
}

BOOST_AUTO_TEST_CASE(MoreCpusThanNotesComeFromNrCpuIds) {
  const auto cpus = read_irq_state(mem, layout, {std::nullopt}, {"note"});
  BOOST_TEST(cpus.size() == 2u);
  BOOST_TEST(cpus[1].registers_from == "no register note for this CPU");
}

BOOST_AUTO_TEST_CASE(ACpuWithoutAPerCpuAreaIsAProblemNotAStop) {
  Image data(kData, 0x2000);
  data.u64(kData, kPcpu0).u32(kData + 0x1000, 3);  // three CPUs, only one per-CPU offset readable
  data.map_into(mem);
  const auto cpus = read_irq_state(mem, layout, {}, {});
  BOOST_REQUIRE_EQUAL(cpus.size(), 3u);
  BOOST_TEST(cpus[1].problems.size() >= 1u);  // its offset is 0: nothing at 0 + current_task
  BOOST_TEST(*cpus[0].pid == 1);
}

BOOST_AUTO_TEST_CASE(AnIrqStackPointerNeverSetIsAProblem) {
  Image ptr(kPcpu1 + 0x1f018, 8);
  ptr.u64(kPcpu1 + 0x1f018, 0);  // CPU 1 was never brought up
  ptr.map_into(mem);
  const auto cpus = read_irq_state(mem, layout, {}, {});
  BOOST_TEST(!cpus[1].irq_stack.has_value());
  bool said = false;
  for (const std::string& p : cpus[1].problems) said = said || p.find("IRQ stack pointer is 0") != std::string::npos;
  BOOST_TEST(said);
  BOOST_TEST(cpus[0].irq_stack.has_value());
}

BOOST_AUTO_TEST_CASE(The48EraIrqStackPtrSitsBelowTheTop) {
  FakeSymbols s;
  FakeTypes t;
  common(s, t);
  s.add("irq_stack_ptr", 0x1b000, 8, 'D').add("irq_count", 0x1b010, 4, 'D').add("current_task", 0x1a000, 8, 'D');
  const KernelLayout old = detect_layout(s, t, 0, "vmlinux");
  Image area(kPcpu0, 0x1c000);
  area.u64(kPcpu0 + 0x1a000, kTask0);
  area.u64(kPcpu0 + 0x1b000, kIrq0 + 16384 - 64);  // 64 bytes below the top (before 4950d6d48a0c)
  area.u32(kPcpu0 + 0x1b010, 0xffffffff);          // irq_count -1: free
  area.map_into(mem);
  const auto cpus = read_irq_state(mem, old, {std::nullopt}, {"note"});
  BOOST_TEST(cpus[0].irq_stack->end == kIrq0 + 16384 - 64);
  BOOST_TEST(cpus[0].irq_stack->begin == kIrq0);
  BOOST_TEST(*cpus[0].irq_count == -1);
  BOOST_TEST(!cpus[0].in_use.has_value());
}

BOOST_AUTO_TEST_SUITE_END()

// ---- the task list ----

namespace {

constexpr std::uint64_t kInitTask = 0xffffffff82a00000;
constexpr std::uint64_t kTasks = 0x800, kThreadSp = 0x1000, kThreadGroup = 0x900, kOnCpu = 0x40;

struct TaskFixture {
  SyntheticMemory mem;
  FakeSymbols symbols;
  FakeTypes types;
  KernelLayout layout;
  std::vector<Image> tasks;

  TaskFixture() {
    symbols.add("init_task", kInitTask, 0x2000, 'D');
    types.member("task_struct.tasks", kTasks, 16).member("task_struct.thread.sp", kThreadSp);
    types.member("task_struct.thread_group", kThreadGroup, 16).member("task_struct.on_cpu", kOnCpu, 4);
    layout.task_pid = {0x500, 4};
    layout.task_comm = {0x600, 16};
    layout.task_stack = {0x20, 8};
  }
  std::uint64_t task_at(int i) const { return i == 0 ? kInitTask : 0xffff888300000000 + 0x4000 * i; }
  // Processes linked on init_task.tasks, each its own thread group unless given threads.
  void plant(const std::vector<int>& processes, const std::map<int, std::vector<int>>& threads = {}) {
    auto link = [&](int i) { return task_at(i) + kTasks; };
    std::map<int, Image> img;
    auto image = [&](int i) -> Image& {
      auto it = img.find(i);
      if (it == img.end()) {
        it = img.emplace(i, Image(task_at(i), 0x2000)).first;
        it->second.u32(task_at(i) + 0x500, 100 + i).str(task_at(i) + 0x600, "task" + std::to_string(i));
        it->second.u64(task_at(i) + kThreadSp, 0x1000 * i).u32(task_at(i) + kOnCpu, i == 1 ? 1 : 0);
        it->second.u64(task_at(i) + kThreadGroup, task_at(i) + kThreadGroup);  // alone in its group
      }
      return it->second;
    };
    for (std::size_t k = 0; k < processes.size(); ++k) {
      const int cur = processes[k], next = processes[(k + 1) % processes.size()];
      image(cur).u64(link(cur), link(next));
    }
    for (const auto& [leader, ts] : threads) {
      std::vector<int> ring = {leader};
      ring.insert(ring.end(), ts.begin(), ts.end());
      for (std::size_t k = 0; k < ring.size(); ++k)
        image(ring[k]).u64(task_at(ring[k]) + kThreadGroup, task_at(ring[(k + 1) % ring.size()]) + kThreadGroup);
    }
    for (auto& [i, im] : img) im.map_into(mem);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(task_list, TaskFixture)

BOOST_AUTO_TEST_CASE(ProcessesAndTheirThreadsAreListedOnce) {
  plant({0, 1, 2}, {{2, {3, 4}}});
  const TaskList l = read_task_list(mem, symbols, types, layout);
  std::vector<int> pids;
  for (const TaskInfo& t : l.tasks) pids.push_back(t.pid);
  const std::vector<int> expected = {100, 101, 102, 103, 104};
  BOOST_TEST(pids == expected, boost::test_tools::per_element());
  BOOST_TEST(l.problems.empty());
  BOOST_TEST(l.tasks[3].comm == "task3");
  BOOST_TEST(*l.tasks[1].on_cpu);
  BOOST_TEST(!*l.tasks[2].on_cpu);
  BOOST_TEST(l.tasks[2].thread_sp == 0x2000u);
}

BOOST_AUTO_TEST_CASE(A67ThreadListHangsOffTheSignalStruct) {
  FakeTypes t67;
  t67.member("task_struct.tasks", kTasks, 16).member("task_struct.thread.sp", kThreadSp);
  t67.member("task_struct.thread_node", 0xa00, 16).member("task_struct.signal", 0xb00);
  t67.member("signal_struct.thread_head", 0x10, 16);
  plant({0, 1});
  // Task 1's signal_struct holds thread_head, linking task 1 and task 5 through thread_node.
  const std::uint64_t sig = 0xffff888400000000;
  Image s(sig, 0x100);
  s.u64(sig + 0x10, task_at(1) + 0xa00);
  s.map_into(mem);
  Image t1(task_at(1) + 0xa00, 0x108);
  t1.u64(task_at(1) + 0xa00, task_at(5) + 0xa00).u64(task_at(1) + 0xb00, sig);
  t1.map_into(mem);
  Image t5(task_at(5), 0x2000);
  t5.u32(task_at(5) + 0x500, 105).u64(task_at(5) + 0xa00, sig + 0x10);
  t5.map_into(mem);
  const TaskList l = read_task_list(mem, symbols, t67, layout);
  bool found = false;
  for (const TaskInfo& t : l.tasks) found = found || t.pid == 105;
  BOOST_TEST(found);
}

BOOST_AUTO_TEST_CASE(ABrokenLinkCutsTheListShortWithAProblem) {
  plant({0, 1, 2});
  Image broken(task_at(2) + kTasks, 8);
  broken.u64(task_at(2) + kTasks, 0xffff8888deadbeef);  // points into unmapped memory
  broken.map_into(mem);
  const TaskList l = read_task_list(mem, symbols, types, layout);
  BOOST_TEST(l.tasks.size() >= 3u);
  BOOST_TEST(!l.problems.empty());
}

BOOST_AUTO_TEST_CASE(WithoutInitTaskOrItsMembersTasksCannotBeListed) {
  FakeSymbols none;
  BOOST_CHECK_THROW(read_task_list(mem, none, types, layout), DebugInfoError);
  FakeTypes bare;
  BOOST_CHECK_THROW(read_task_list(mem, symbols, bare, layout), DebugInfoError);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- the module list ----

namespace {

constexpr std::uint64_t kModulesHead = 0xffffffff82b00000;
constexpr std::uint64_t kModule = 0xffffffffc0010000;  // struct module
constexpr std::uint64_t kModText = 0xffffffffc0000000;
constexpr std::uint64_t kKallsyms = 0xffffffffc0020000;  // struct mod_kallsyms
constexpr std::uint64_t kSymtab = 0xffffffffc0021000;
constexpr std::uint64_t kStrtab = 0xffffffffc0022000;

struct ModuleFixture {
  SyntheticMemory mem;
  FakeTypes types;
  std::vector<std::string> problems;

  ModuleFixture() {
    types.member("module.list", 0x8, 16).member("module.name", 0x18, 56).member("module.kallsyms", 0x100);
    types.member("module.arch.num_orcs", 0x200, 4).member("module.arch.orc_unwind_ip", 0x208);
    types.member("module.arch.orc_unwind", 0x210);
    types.member("mod_kallsyms.symtab", 0).member("mod_kallsyms.num_symtab", 8, 4).member("mod_kallsyms.strtab", 16);
  }
  // 6.4+: mem[MOD_TEXT] and mem[MOD_INIT_TEXT] (struct module_memory of 0x50 bytes).
  void mem_layout() {
    types.member("module.mem.base", 0x300).member("module.mem.size", 0x308, 4).size("module_memory", 0x50);
  }
  void core_layout() {
    types.member("module.core_layout.base", 0x300).member("module.core_layout.text_size", 0x30c, 4);
    types.member("module.init_layout.base", 0x400).member("module.init_layout.text_size", 0x40c, 4);
  }
  void plant(bool init_text = false) {
    Image head(kModulesHead, 16);
    head.u64(kModulesHead, kModule + 0x8).u64(kModulesHead + 8, kModule + 0x8);
    head.map_into(mem);
    Image m(kModule, 0x500);
    m.u64(kModule + 0x8, kModulesHead);  // list.next: back to the head
    m.str(kModule + 0x18, "labcrash");
    m.u64(kModule + 0x100, kKallsyms);
    m.u32(kModule + 0x200, 12).u64(kModule + 0x208, 0xffffffffc0030000).u64(kModule + 0x210, 0xffffffffc0031000);
    m.u64(kModule + 0x300, kModText).u32(kModule + 0x308, 0x1000).u32(kModule + 0x30c, 0x1000);
    if (init_text) {
      m.u64(kModule + 0x300 + 4 * 0x50, kModText + 0x8000).u32(kModule + 0x308 + 4 * 0x50, 0x200);
      m.u64(kModule + 0x400, kModText + 0x8000).u32(kModule + 0x40c, 0x200);
    }
    m.map_into(mem);
    Image ks(kKallsyms, 24);
    ks.u64(kKallsyms, kSymtab).u32(kKallsyms + 8, 4).u64(kKallsyms + 16, kStrtab);
    ks.map_into(mem);
    Image sym(kSymtab, 4 * 24), str(kStrtab, 64);
    auto put_sym = [&](int i, std::uint32_t name, std::uint16_t shndx, std::uint64_t value) {
      sym.u32(kSymtab + 24 * i, name).u16(kSymtab + 24 * i + 6, shndx).u64(kSymtab + 24 * i + 8, value);
    };
    put_sym(0, 0, 0, 0);
    str.str(kStrtab + 1, "labcrash_recurse");
    put_sym(1, 1, 2, kModText + 0x80);
    str.str(kStrtab + 18, "printk");
    put_sym(2, 18, 0, 0);  // undefined
    str.str(kStrtab + 25, "labcrash_write");
    put_sym(3, 25, 2, kModText + 0x110);
    sym.map_into(mem);
    str.map_into(mem);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(module_list, ModuleFixture)

BOOST_AUTO_TEST_CASE(AModuleIsReadWithItsTextOrcAndSymtabInOrder) {
  mem_layout();
  plant();
  const auto mods = read_modules(mem, types, kModulesHead, problems);
  BOOST_REQUIRE_EQUAL(mods.size(), 1u);
  const LoadedModule& m = mods[0];
  BOOST_TEST(m.name == "labcrash");
  BOOST_TEST(m.text_begin == kModText);
  BOOST_TEST(m.text_end == kModText + 0x1000);
  BOOST_TEST(m.num_orcs == 12u);
  BOOST_REQUIRE_EQUAL(m.kallsyms.symtab.size(), 4u);
  BOOST_TEST(m.kallsyms.symtab[1].name == "labcrash_recurse");
  BOOST_TEST(m.kallsyms.symtab[2].shndx == 0u);  // the import stays, kallsyms skips it
  BOOST_TEST(problems.empty());
  // The kernel's rule over what was read: size to the next symbol.
  auto s = module_kallsyms_lookup(m.kallsyms, kModText + 0x80 + 0x67);
  BOOST_REQUIRE(s);
  BOOST_TEST(s->size == 0x90u);
}

BOOST_AUTO_TEST_CASE(ModulesBefore64KeepTheirLayoutInCoreLayout) {
  core_layout();
  plant(true);
  const auto mods = read_modules(mem, types, kModulesHead, problems);
  BOOST_REQUIRE_EQUAL(mods.size(), 1u);
  BOOST_TEST(mods[0].text_end == kModText + 0x1000);
  BOOST_TEST(mods[0].kallsyms.init_text_begin == kModText + 0x8000);
  BOOST_TEST(mods[0].kallsyms.holds(kModText + 0x8100));
}

BOOST_AUTO_TEST_CASE(InitTextOfA64ModuleIsMemOfModInitText) {
  mem_layout();
  plant(true);
  const auto mods = read_modules(mem, types, kModulesHead, problems);
  BOOST_TEST(mods[0].kallsyms.init_text_end == kModText + 0x8200);
}

BOOST_AUTO_TEST_CASE(ModulesBefore46KeepTheirSymtabInStructModule) {
  mem_layout();
  plant();
  FakeTypes t;
  t.member("module.list", 0x8, 16).member("module.name", 0x18, 56);
  t.member("module.mem.base", 0x300).member("module.mem.size", 0x308, 4).size("module_memory", 0x50);
  t.member("module.symtab", 0x100).member("module.num_symtab", 0x108, 4).member("module.strtab", 0x110);
  Image m(kModule + 0x100, 0x18);
  m.u64(kModule + 0x100, kSymtab).u32(kModule + 0x108, 4).u64(kModule + 0x110, kStrtab);
  m.map_into(mem);
  const auto mods = read_modules(mem, t, kModulesHead, problems);
  BOOST_REQUIRE_EQUAL(mods.size(), 1u);
  BOOST_TEST(mods[0].kallsyms.symtab.size() == 4u);
}

BOOST_AUTO_TEST_CASE(AStructModuleUnknownToDwarfIsAProblem) {
  FakeTypes bare;
  plant();
  BOOST_TEST(read_modules(mem, bare, kModulesHead, problems).empty());
  BOOST_TEST(problems.back().find("struct module layout") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(ABrokenModuleListEndsWithAProblem) {
  mem_layout();
  plant();
  Image m(kModule + 0x8, 8);
  m.u64(kModule + 0x8, 0xffffffffc9990000);  // next: unmapped
  m.map_into(mem);
  const auto mods = read_modules(mem, types, kModulesHead, problems);
  BOOST_TEST(mods.size() >= 1u);
  BOOST_TEST(problems.back().find("breaks off") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

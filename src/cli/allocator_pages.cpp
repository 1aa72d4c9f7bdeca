#include "cli/allocator_pages.h"

#ifdef BTAUDIT_WITH_MIMALLOC
#include <mimalloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#endif

namespace btaudit {

#ifdef BTAUDIT_WITH_MIMALLOC
namespace {

// Address space handed to mimalloc as the main heap's arena: reserved, not committed (the
// kernel gives a page when it is first touched), so its size costs nothing until used. A heap
// made in an arena takes nothing from anywhere else, so the arena is far larger than any run's
// heap (inputs are capped at 1 GiB, --max-input-mb). Where the address space is limited
// (ulimit -v) or not overcommitted, the reservation fails and the heap is mimalloc's own.
constexpr std::size_t kArenaBytes = std::size_t{64} << 30;
// mimalloc's arenas hand out whole segments, aligned to their size (32 MiB in 2.0).
constexpr std::size_t kArenaAlign = std::size_t{64} << 20;

}  // namespace
#endif

void use_huge_allocator_pages() {
#ifdef BTAUDIT_WITH_MIMALLOC
  // mimalloc reads its options (MIMALLOC_LARGE_OS_PAGES among them) before main: too early to
  // set from here. An arena of our own, marked for transparent huge pages, does the same: the
  // heap's segments come from it, and each first touch of 2 MiB is one fault. Someone who
  // set MIMALLOC_LARGE_OS_PAGES has chosen for themselves.
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") != nullptr) return;
  void* map = ::mmap(nullptr, kArenaBytes + kArenaAlign, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) return;  // no arena: the OS's pages, as without this
  // The first aligned address in the mapping, as an offset into it (no integer-to-pointer cast).
  const auto misalign = reinterpret_cast<std::uintptr_t>(map) & (kArenaAlign - 1);
  void* arena = static_cast<char*>(map) + (misalign == 0 ? 0 : kArenaAlign - misalign);
  // Without transparent huge pages (never, or an old kernel) the arena still serves, in 4 KiB pages.
  (void)::madvise(arena, kArenaBytes, MADV_HUGEPAGE);
  // Committed (mimalloc need not ask for it), not large (it may decommit parts), zero (fresh
  // anonymous memory), any NUMA node, exclusive: only the heap made in it below takes from it.
  // The mapping lives as long as the process.
  mi_arena_id_t id = 0;
  if (!mi_manage_os_memory_ex(arena, kArenaBytes, true, false, true, -1, true, &id)) {
    ::munmap(map, kArenaBytes + kArenaAlign);
    return;
  }
  // The main thread's allocations from now on: its start-up heap has a segment of 4 KiB pages
  // already, which it would go on filling. (Freed blocks go back to whichever heap they came from.)
  if (mi_heap_t* heap = mi_heap_new_in_arena(id)) mi_heap_set_default(heap);
#endif
}

}  // namespace btaudit

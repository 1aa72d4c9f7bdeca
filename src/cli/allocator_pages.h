// The executable's allocator set up for btaudit's runs before any command starts.
#pragma once

namespace btaudit {

// With mimalloc (BTAUDIT_MIMALLOC): its memory is asked of the OS in huge pages where the
// kernel gives them (transparent huge pages, madvise). A warm `vmcore bt` or a batch worker
// runs for tens of milliseconds and touches tens of megabytes once: in 4 KiB pages that was
// 1,800 page faults, a third of the run's CPU time on a virtual machine; in 2 MiB pages about
// 500. A MIMALLOC_LARGE_OS_PAGES in the environment is left to decide. Without mimalloc, nothing.
void use_huge_allocator_pages();

}  // namespace btaudit

// Turns a memory fault (SIGSEGV, SIGBUS) into an error btaudit can report as one
// line, where the fault comes from the input rather than from btaudit's own code:
//
// - guarded_call() runs a call into a C library that trusts its input file
//   (libkdumpfile reads dump headers and pages through mmap and memcpy). A fault
//   inside jumps back (sigsetjmp/siglongjmp) and the call returns the signal.
//   Why not open the dump in a child process: libkdumpfile is used for the whole
//   run, one kdump_read() per stack or structure read, not only at open; a child
//   would protect the open and nothing after it (or proxy every read over a pipe).
//   The price of jumping out: the library's state is unknown afterwards (a lock
//   may be held, a cache half filled), so its handle must never be used again.
// - MappedRegion covers a read-only file mapping that this thread is reading (an
//   input log): a SIGBUS there (an I/O error on the device, the file truncated
//   by another process) maps a page of zeros over the faulting page, marks the
//   region failed and lets the reader go on; whoever holds the region checks
//   failed() afterwards and reports the input as unreadable. No jump: the reader
//   is C++ code whose destructors must run.
//
// Both are per thread. A fault that belongs to neither is handed to whatever
// handled the signal before (the default action, or a sanitizer's reporter).
// The one process-wide piece is the handler itself, installed once.
#pragma once
#include <atomic>
#include <cstddef>
#include <type_traits>

namespace btaudit {

// Runs fn(arg) and returns 0, or SIGSEGV/SIGBUS when it faulted. fn must only
// call C code: a jump out of it skips destructors of anything it constructed.
int guarded_call_raw(void (*fn)(void*), void* arg);

// The same for a callable: `call` runs in the guard; what it assigns to its
// captures before a fault is left as it was (use plain data, not objects).
template <typename F>
int guarded_call(F& call) {
  static_assert(std::is_invocable_v<F&>);
  return guarded_call_raw([](void* p) { (*static_cast<F*>(p))(); }, &call);
}

// A read-only mapping of [begin, begin + size) read by the thread that creates
// this object (a fault in another thread is not covered). Not copyable or movable:
// the fault handler holds its address (keep it in a unique_ptr to move it around).
// At most a few regions per thread are covered at once; more are left uncovered.
class MappedRegion {
 public:
  MappedRegion(const void* begin, std::size_t size);
  ~MappedRegion();
  MappedRegion(const MappedRegion&) = delete;
  MappedRegion& operator=(const MappedRegion&) = delete;

  // Whether a page could not be read: its bytes were replaced with zeros.
  bool failed() const { return failed_.load(std::memory_order_relaxed); }

 private:
  friend struct FaultHandler;
  const char* begin_;
  std::size_t size_;
  MappedRegion** slot_ = nullptr;  // where the creating thread's fault handler finds it
  std::atomic<bool> failed_{false};
};

// Name of a fault signal for messages ("SIGBUS", "SIGSEGV").
const char* fault_name(int signal);

}  // namespace btaudit

#include "fault/fault_guard.h"

#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <mutex>

namespace btaudit {

namespace {

struct JumpFrame {
  sigjmp_buf env;
  volatile int signal = 0;
  JumpFrame* outer = nullptr;
};

constexpr std::size_t kMaxRegions = 8;  // inputs mapped at once by one thread (analyze and batch map one)

// Per thread, read by the handler: the innermost guarded call, and the mappings being read.
// initial-exec: the handler must not make the first access to a thread-local (that may allocate).
[[gnu::tls_model("initial-exec")]] thread_local JumpFrame* t_jump = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local std::array<MappedRegion*, kMaxRegions> t_regions{};

}  // namespace

// The process-wide part: what handled SIGSEGV and SIGBUS before (signal dispositions are
// per process, so this is the one piece of global state), installed once.
struct FaultHandler {
  static inline struct sigaction previous_segv {};
  static inline struct sigaction previous_bus {};
  static inline std::once_flag installed;

  static void install() {
    std::call_once(installed, [] {
      struct sigaction sa {};
      sa.sa_sigaction = &on_fault;
      sa.sa_flags = SA_SIGINFO | SA_NODEFER;  // NODEFER: a later fault in a guard after a jump is caught too
      sigemptyset(&sa.sa_mask);
      sigaction(SIGSEGV, &sa, &previous_segv);
      sigaction(SIGBUS, &sa, &previous_bus);
    });
  }

  static bool cover_with_zeros(MappedRegion& r, const char* at) {
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    // The page holding `at`: an offset into the region, not an integer turned into a pointer.
    const auto into = static_cast<std::size_t>(at - r.begin_);
    const char* page_start = at - ((reinterpret_cast<std::uintptr_t>(r.begin_) + into) & (page - 1));
    void* start = const_cast<char*>(page_start);
    if (::mmap(start, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) return false;
    r.failed_.store(true, std::memory_order_relaxed);
    return true;
  }

  static void on_fault(int signal, siginfo_t* info, void* context) {
    if (JumpFrame* frame = t_jump) {
      frame->signal = signal;
      siglongjmp(frame->env, 1);
    }
    if (signal == SIGBUS && info) {
      const char* at = static_cast<const char*>(info->si_addr);
      for (MappedRegion* r : t_regions)
        if (r && at >= r->begin_ && at < r->begin_ + r->size_ && cover_with_zeros(*r, at)) return;
    }
    // Not ours: what handled the signal before handles it now.
    const struct sigaction& before = signal == SIGBUS ? previous_bus : previous_segv;
    if ((before.sa_flags & SA_SIGINFO) && before.sa_sigaction) {
      before.sa_sigaction(signal, info, context);
      return;
    }
    if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
      before.sa_handler(signal);
      return;
    }
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(signal, &dfl, nullptr);
    // A fault re-executes its instruction and dies of the default action; a signal
    // sent with kill() does not come back by itself.
    if (!info || info->si_code <= 0) raise(signal);
  }
};

int guarded_call_raw(void (*fn)(void*), void* arg) {
  FaultHandler::install();
  JumpFrame frame;
  frame.outer = t_jump;
  if (sigsetjmp(frame.env, 1) != 0) {
    t_jump = frame.outer;
    return frame.signal;
  }
  t_jump = &frame;
  fn(arg);
  t_jump = frame.outer;
  return 0;
}

MappedRegion::MappedRegion(const void* begin, std::size_t size) : begin_(static_cast<const char*>(begin)), size_(size) {
  FaultHandler::install();
  for (MappedRegion*& slot : t_regions) {
    if (!slot) {
      slot = this;
      slot_ = &slot;
      break;
    }
  }
}

MappedRegion::~MappedRegion() {
  if (slot_) *slot_ = nullptr;  // the creating thread's table, wherever this is destroyed
}

const char* fault_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    default: return "a fault";
  }
}

}  // namespace btaudit

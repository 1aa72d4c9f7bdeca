#include "analysis/crosscheck.h"

#include <cstdio>

namespace btaudit {

namespace {

std::string name_of(const Frame& f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(f.offset.value_or(0)));
  return f.function.value_or("?") + buf;
}

std::string stack_of(const Frame& f) {
  if (f.stack == StackKind::Exception || f.stack == StackKind::Nmi) return f.exception.value_or("exception");
  return std::string(to_string(f.stack));
}

std::string stack_of(const StackFrame& f) {
  if (f.exception) return *f.exception;
  return std::string(to_string(f.stack));
}

}  // namespace

Crosscheck crosscheck(const Report& r, std::size_t report_index, const StackWalk& walk) {
  Crosscheck c;
  c.report = report_index;
  c.cpu = walk.state.cpu;
  // The last primary trace is the one this CPU's stack can still show (a
  // WARN or hung-task report that then panicked: the panic's own trace).
  std::size_t first = 0, count = r.frames.size();
  for (const Trace& t : r.traces)
    if (t.primary && t.frame_count) {
      first = t.first_frame;
      count = t.frame_count;
    }
  // A panic's own trace: the frames above panic() were overwritten when panic went on.
  std::size_t begin = first;
  c.scope = "the whole printed trace";
  {  // any trace that reached panic(): a panic report, or a WARN/oops/hung task that panicked
    for (std::size_t i = first; i < first + count; ++i)
      if (r.frames[i].function && (*r.frames[i].function == "panic" || *r.frames[i].function == "vpanic")) {
        begin = i;
        c.scope = "the printed frames from panic() down (those above it were overwritten when panic went on)";
        break;
      }
  }
  std::size_t w = 0;
  for (std::size_t i = begin; i < first + count; ++i) {
    const Frame& p = r.frames[i];
    if (!p.function || !p.offset) continue;
    ++c.printed_frames;
    // panic's own offset changes as it goes on (it printed from one call, loops in another).
    const bool any_offset = p.function && (*p.function == "panic" || *p.function == "vpanic");
    std::size_t found = walk.frames.size();
    for (std::size_t k = w; k < walk.frames.size(); ++k) {
      const StackFrame& s = walk.frames[k];
      if (s.from_regs || !s.function || *s.function != *p.function) continue;
      if (!any_offset && s.offset != *p.offset) continue;
      found = k;
      break;
    }
    if (found == walk.frames.size()) {
      c.mismatches.push_back({i, name_of(p), "not found on the stack at dump time, in order"});
      continue;
    }
    w = found + 1;
    const StackFrame& s = walk.frames[found];
    bool ok = true;
    if (!any_offset && s.reliable() == p.printed_unreliable) {
      c.mismatches.push_back({i, name_of(p),
                              std::string("printed ") + (p.printed_unreliable ? "with" : "without") +
                                  " '?', the walk finds it " + (s.reliable() ? "reliable" : "unreliable")});
      ok = false;
    }
    if (stack_of(p) != stack_of(s)) {
      c.mismatches.push_back({i, name_of(p), "printed on the " + stack_of(p) + " stack, found on the " + stack_of(s)});
      ok = false;
    }
    if (ok) ++c.matched_frames;
  }
  return c;
}

}  // namespace btaudit

// Which kernel stack a frame was printed from.
#pragma once
#include <string_view>

namespace btaudit {

enum class StackKind { Task, Irq, Softirq, Nmi, Exception, Entry, Unknown };

constexpr std::string_view to_string(StackKind k) {
  switch (k) {
    case StackKind::Task: return "task";
    case StackKind::Irq: return "irq";
    case StackKind::Softirq: return "softirq";
    case StackKind::Nmi: return "nmi";
    case StackKind::Exception: return "exception";
    case StackKind::Entry: return "entry";
    case StackKind::Unknown: return "unknown";
  }
  return "unknown";
}

}  // namespace btaudit

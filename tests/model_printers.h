// Lets Boost.Test print model enums in failure messages.
#pragma once
#include <ostream>

#include "model/report.h"
#include "model/walked_stack.h"

namespace btaudit {

inline std::ostream& operator<<(std::ostream& os, Verdict v) { return os << to_string(v); }
inline std::ostream& operator<<(std::ostream& os, Reason r) { return os << reason_code(r); }
inline std::ostream& operator<<(std::ostream& os, StackKind k) { return os << to_string(k); }
inline std::ostream& operator<<(std::ostream& os, ReportKind k) { return os << to_string(k); }
inline std::ostream& operator<<(std::ostream& os, Arch a) { return os << to_string(a); }
inline std::ostream& operator<<(std::ostream& os, Trust t) { return os << to_string(t); }
inline std::ostream& operator<<(std::ostream& os, WordRole r) { return os << to_string(r); }
inline std::ostream& operator<<(std::ostream& os, SegmentEntry e) { return os << to_string(e); }

}  // namespace btaudit

#include "batch/progress_meter.h"

namespace btaudit {

void ProgressMeter::show(const ProgressFigures& f) {
  if (!out_) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double mb = static_cast<double>(f.bytes) / 1e6;
  const double rate = seconds > 0 ? mb / seconds : 0;
  char eta[32] = "?";
  if (f.total_bytes > 0 && f.bytes > 0 && f.bytes <= f.total_bytes) {
    const auto left =
        static_cast<long>(seconds * static_cast<double>(f.total_bytes - f.bytes) / static_cast<double>(f.bytes));
    std::snprintf(eta, sizeof eta, "%ld:%02ld", left / 60, left % 60);
  }
  char total[32] = "";
  if (f.total_inputs > 0) std::snprintf(total, sizeof total, "/%llu", static_cast<unsigned long long>(f.total_inputs));
  // \r and "erase to end of line": the line is redrawn in place.
  std::fprintf(out_, "\r\033[Kbatch: %llu%s inputs, %llu reports, %.1f MB, %.1f MB/s, ETA %s",
               static_cast<unsigned long long>(f.inputs), total, static_cast<unsigned long long>(f.reports), mb, rate,
               eta);
  std::fflush(out_);
  drawn_ = true;
}

void ProgressMeter::finish() {
  if (!out_ || !drawn_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace btaudit

#include "model/report_record.h"

namespace btaudit {

Bucket ReportRecord::as_bucket() const {
  Bucket b;
  b.signature = signature;
  b.title = title;
  b.kind = kind;
  b.guilty_function = guilty_function;
  b.count = 1;
  b.first_input = input;
  b.last_input = input;
  b.example_input = input;
  b.example_line = first_line;
  b.unreliable_frames = unreliable_frames;
  b.stale_frames = stale_frames;
  return b;
}

}  // namespace btaudit

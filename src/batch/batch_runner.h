// The batch engine: `jobs` worker threads take inputs from the walk, analyze
// them, and hand every result to on_result in walk order, so the output is the
// same whatever the number of jobs. Memory is bounded: a worker never runs more
// than `window` inputs ahead of the last one delivered.
#pragma once
#include <cstdint>
#include <functional>

#include "batch/input_walk.h"
#include "batch/unit_analysis.h"

namespace btaudit {

struct BatchOptions {
  unsigned jobs = 1;
  unsigned window_per_job = 4;  // inputs in flight per worker (queued, being analyzed or waiting for output)
  UnitLimits limits;
  ReportHook enrich;  // called from worker threads: it must be thread-safe
};

struct BatchHooks {
  // Walker thread: true to leave an input out (already in the database).
  std::function<bool(const InputUnit&)> already_done;
  // The worker that analyzed an input (0 .. jobs-1), right after, in no particular
  // order and concurrently with other workers: per-worker work that needs no order
  // (bucket tables, whose merge is order-independent) stays out of the ordered path.
  std::function<void(unsigned worker, const UnitResult&)> on_analyzed;
  // Once per input, in walk order, never two at a time (from whichever worker
  // finished the input next in line).
  std::function<void(UnitResult&&)> on_result;
  // The calling thread, a few times a second, never while on_result runs:
  // progress, and whether to stop early (true: inputs not yet delivered are
  // dropped, the ones being analyzed are finished and dropped).
  std::function<bool()> on_tick;
};

struct BatchTotals {
  std::uint64_t inputs = 0;        // delivered through on_result
  std::uint64_t already_done = 0;  // left out by already_done
  bool stopped = false;            // on_tick asked to stop
};

// An exception from a hook or from an input's analysis stops the run (as a stop
// from on_tick does) and is rethrown here, in the calling thread, once every
// worker has left: results delivered before it stay delivered.
BatchTotals run_batch(InputWalk walk, const BatchOptions& options, const BatchHooks& hooks);

}  // namespace btaudit

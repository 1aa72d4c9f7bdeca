#include "batch/batch_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace btaudit {

namespace {

using namespace std::chrono_literals;

// There is no walker thread and no output thread: a worker takes the next input
// from the walk itself, and the worker that finishes the input next in line
// delivers it and every finished one after it (outside the results' lock, so
// the other workers never wait for the output). Inputs are small (a console log
// is kilobytes), so a hand-off between threads per input, a wake-up and a
// context switch each, would cost more than analyzing many of them.
class Pipeline {
 public:
  Pipeline(InputWalk walk, const BatchOptions& options, const BatchHooks& hooks)
      : walk_(std::move(walk)),
        options_(options),
        hooks_(hooks),
        window_(std::max(1u, options.jobs) * std::max(1u, options.window_per_job)) {}

  BatchTotals run() {
    const unsigned jobs = std::max(1u, options_.jobs);
    std::vector<std::thread> workers;
    workers.reserve(jobs);
    for (unsigned i = 0; i < jobs; ++i) workers.emplace_back([this, i] { work(i); });
    {
      std::unique_lock lock(out_mutex_);
      while (running_ > 0 || !done_.empty()) {
        if (finished_.wait_for(lock, 200ms, [&] { return running_ == 0; })) break;
        if (!hooks_.on_tick) continue;
        lock.unlock();  // never hold both mutexes: the deliverer takes them one at a time
        bool stop = false;
        {
          std::lock_guard hooks(hooks_mutex_);
          stop = hooks_.on_tick();
        }
        lock.lock();
        if (stop) {
          stop_ = true;
          totals_.stopped = true;
          break;
        }
      }
    }
    for (std::thread& t : workers) t.join();
    if (error_) std::rethrow_exception(error_);  // in the caller's thread, where it can be reported
    totals_.already_done = already_done_;
    return totals_;
  }

 private:
  // The next input and its sequence number, or nullopt at the end (or on stop).
  std::optional<std::pair<std::uint64_t, InputUnit>> take() {
    std::lock_guard lock(walk_mutex_);
    while (!stop_) {
      std::optional<InputUnit> unit = walk_.next();
      if (!unit) return std::nullopt;
      if (hooks_.already_done) unit->stat_now();  // the database compares size and mtime
      if (!unit->error && hooks_.already_done && hooks_.already_done(*unit)) {
        ++already_done_;
        continue;
      }
      return std::make_pair(next_seq_++, std::move(*unit));
    }
    return std::nullopt;
  }

  // A hook or the analysis threw (the store failed, an output could not be
  // written, memory ran out): the run stops, and run() rethrows the first error.
  void work(unsigned worker) {
    try {
      work_loop(worker);
    } catch (...) {
      std::lock_guard lock(out_mutex_);
      if (!error_) error_ = std::current_exception();
      stop_ = true;
      totals_.stopped = true;
    }
    std::lock_guard lock(out_mutex_);
    if (--running_ == 0) finished_.notify_all();
    moved_.notify_all();  // a worker waiting on the window must see a stop
  }

  void work_loop(unsigned worker) {
    for (;;) {
      auto job = take();
      if (!job) break;
      {
        // One slow input must not let finished results pile up behind it.
        std::unique_lock lock(out_mutex_);
        if (job->first >= delivered_ + window_) {
          ++window_waiters_;
          moved_.wait(lock, [&] { return stop_ || job->first < delivered_ + window_; });
          --window_waiters_;
        }
        if (stop_) break;
      }
      UnitResult result = analyze_unit(job->second, job->first, options_.limits, options_.enrich);
      if (hooks_.on_analyzed) hooks_.on_analyzed(worker, result);
      std::unique_lock lock(out_mutex_);
      if (stop_) break;
      done_.emplace(job->first, std::move(result));
      if (delivering_) continue;  // the worker delivering now picks this one up when its turn comes
      // This worker delivers every result that is next in line, in order, with
      // out_mutex_ released: the others keep handing in results meanwhile.
      delivering_ = true;
      std::vector<UnitResult> batch;
      for (;;) {
        for (auto it = done_.find(delivered_); it != done_.end(); it = done_.find(delivered_)) {
          batch.push_back(std::move(it->second));
          done_.erase(it);
          ++delivered_;
          ++totals_.inputs;
        }
        if (batch.empty() || stop_) break;
        if (window_waiters_ > 0) moved_.notify_all();
        lock.unlock();
        {
          // hooks_mutex_ keeps on_result from running beside on_tick.
          std::lock_guard hooks(hooks_mutex_);
          for (UnitResult& r : batch) hooks_.on_result(std::move(r));
        }
        batch.clear();  // freed outside out_mutex_
        lock.lock();
      }
      delivering_ = false;
    }
  }

  InputWalk walk_;
  const BatchOptions& options_;
  const BatchHooks& hooks_;
  const std::size_t window_;

  std::mutex walk_mutex_;  // the walk, next_seq_, already_done_
  std::uint64_t next_seq_ = 0;
  std::uint64_t already_done_ = 0;

  std::mutex hooks_mutex_;            // on_result and on_tick: one at a time
  std::mutex out_mutex_;              // everything below
  std::condition_variable moved_;     // delivered_ advanced (or stop)
  std::condition_variable finished_;  // the last worker left
  std::map<std::uint64_t, UnitResult> done_;
  std::uint64_t delivered_ = 0;
  unsigned window_waiters_ = 0;
  bool delivering_ = false;  // a worker is handing results to on_result
  unsigned running_ = std::max(1u, options_.jobs);
  std::atomic<bool> stop_{false};  // set under out_mutex_; also read by take() under walk_mutex_
  BatchTotals totals_;
  std::exception_ptr error_;  // the first exception a worker met
};

}  // namespace

BatchTotals run_batch(InputWalk walk, const BatchOptions& options, const BatchHooks& hooks) {
  Pipeline pipeline(std::move(walk), options, hooks);
  return pipeline.run();
}

}  // namespace btaudit

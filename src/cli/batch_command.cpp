// `btaudit batch`: a corpus of logs in, NDJSON reports, dedup buckets and an
// optional SQLite store out, over all cores.
#include <sys/signalfd.h>
#include <unistd.h>

#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "analysis/debug_analysis.h"
#include "analysis/debuginfo_pool.h"
#include "batch/batch_runner.h"
#include "batch/progress_meter.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/debuginfod_options.h"
#include "cli/profile_cache_options.h"
#include "cli/output_file.h"
#include "model/bucket.h"
#include "render/bucket_render.h"
#include "store/report_store.h"
#include "text/log_parser.h"

namespace btaudit {

namespace po = boost::program_options;

namespace {

constexpr int kExitInterrupted = 130;
// Each libdwfl session holds its own symbol tables and answers (about 100 MB on a
// distribution vmlinux): more jobs than this share sessions.
constexpr unsigned kDefaultVmlinuxSessions = 4;

// SIGINT/SIGTERM/SIGHUP are blocked for the run (every thread inherits the
// mask) and read from a signalfd by the output thread, which then stops the
// run cleanly: what is committed stays committed. Restores the mask on exit.
class InterruptWatch {
 public:
  InterruptWatch() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    fd_ = signalfd(-1, &set_, SFD_NONBLOCK | SFD_CLOEXEC);
  }
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;
  ~InterruptWatch() {
    if (fd_ >= 0) ::close(fd_);
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  bool interrupted() {
    if (fd_ < 0) return false;
    signalfd_siginfo info{};
    if (::read(fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info))
      signal_ = static_cast<int>(info.ssi_signo);
    return signal_ != 0;
  }
  int signal() const { return signal_; }

 private:
  sigset_t set_{};
  sigset_t old_{};
  int fd_ = -1;
  int signal_ = 0;
};

// Sizes the corpus in the background so that the progress line can show an ETA.
class CorpusSizer {
 public:
  explicit CorpusSizer(const std::vector<std::string>& paths)
      : thread_([this, paths](const std::stop_token& stop) {
          InputWalk walk(paths);
          while (!stop.stop_requested()) {
            auto unit = walk.next();
            if (!unit) break;
            unit->stat_now();
            inputs_.fetch_add(1, std::memory_order_relaxed);
            bytes_.fetch_add(unit->bytes, std::memory_order_relaxed);
          }
          done_.store(true);
        }) {}
  void fill(ProgressFigures& f) const {
    if (!done_.load()) return;
    f.total_inputs = inputs_.load();
    f.total_bytes = bytes_.load();
  }

 private:
  std::atomic<std::uint64_t> inputs_{0};
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<bool> done_{false};
  std::jthread thread_;  // last: joined (stop requested) before the counters go
};

struct RunCounts {
  std::uint64_t inputs = 0;
  std::uint64_t reports = 0;
  std::uint64_t bytes = 0;
  std::uint64_t mails = 0;
  std::map<std::string, std::uint64_t> skipped;  // by kind
  std::uint64_t skipped_total = 0;
  bool missing_argument = false;
};

std::string summary_line(const RunCounts& c, const BatchTotals& totals, std::size_t buckets, double seconds) {
  char figures[160];
  const double mb = static_cast<double>(c.bytes) / 1e6;
  std::snprintf(figures, sizeof figures, "%.1f MB in %.2f s (%.1f MB/s, %.0f reports/s)", mb, seconds,
                seconds > 0 ? mb / seconds : 0.0, seconds > 0 ? static_cast<double>(c.reports) / seconds : 0.0);
  std::string line = "btaudit batch: " + std::to_string(c.inputs) + " inputs";
  std::string notes;
  if (c.skipped_total > 0) {
    notes += std::to_string(c.skipped_total) + " skipped:";
    bool first = true;
    for (const auto& [kind, n] : c.skipped) {
      notes += (first ? " " : ", ") + std::to_string(n) + " " + kind;
      first = false;
    }
  }
  if (c.mails > 0) notes += std::string(notes.empty() ? "" : "; ") + std::to_string(c.mails) + " mails";
  if (totals.already_done > 0)
    notes += std::string(notes.empty() ? "" : "; ") + std::to_string(totals.already_done) + " already in the database";
  if (!notes.empty()) line += " (" + notes + ")";
  line += ", " + std::to_string(c.reports) + " reports in " + std::to_string(buckets) + " buckets, " + figures;
  if (totals.stopped) line += ", interrupted";
  return line;
}

}  // namespace

int run_batch_command(const std::vector<std::string>& args) {
  std::vector<std::string> paths;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::string output = "-";
  std::string buckets_path;
  std::string db_path;
  std::string progress = "auto";
  std::size_t max_input_mb = 1024;
  std::size_t max_line_kb = 1024;
  unsigned commit_every = 256;
  std::size_t max_frames = ParserLimits{}.max_frames;
  long check_budget_ms = kDefaultCheckBudgetMs;
  std::string vmlinux;
  unsigned vmlinux_sessions = 0;  // 0: one per job, at most kDefaultVmlinuxSessions
  DebugInfoOptions debug_options;
  po::options_description opts(
      "btaudit batch [options] PATH... (files, folders walked recursively, '-' for standard input)");
  opts.add_options()("help,h", "show this help")("jobs,j", po::value(&jobs),
                                                 "worker threads (default: the number of cores)")(
      "output,o", po::value(&output)->default_value("-"),
      "NDJSON reports, one a line ('-': standard output, 'none': not written)")(
      "buckets", po::value(&buckets_path), "write the bucket summary (NDJSON, one bucket a line) to this file")(
      "db", po::value(&db_path),
      "keep inputs, reports and buckets in this SQLite database (inputs already in it are skipped)")(
      "progress", po::value(&progress)->default_value("auto"),
      "progress line on standard error: auto, always or never")(
      "max-input-mb", po::value(&max_input_mb)->default_value(1024), "skip inputs larger than this once decompressed")(
      "max-line-kb", po::value(&max_line_kb)->default_value(1024), "skip inputs with a line longer than this")(
      "max-frames", po::value(&max_frames)->default_value(max_frames),
      "frames (and traces) kept per report; the rest are counted in 'truncated'")(
      "check-budget-ms", po::value(&check_budget_ms)->default_value(kDefaultCheckBudgetMs),
      "time for one report's call-site checks with --vmlinux; frames left say unchecked_budget")(
      "vmlinux", po::value(&vmlinux),
      "kernel image with DWARF for every report ('auto': by each report's release under --debug-dir)")(
      "vmlinux-sessions", po::value(&vmlinux_sessions),
      "libdwfl sessions the workers share with --vmlinux, each with its own memory (default: one per job, at "
      "most 4; 1 with debuginfod)")("modules", po::value(&debug_options.module_paths),
                                    "module debuginfo, as for analyze (repeatable)")(
      "debug-dir", po::value(&debug_options.debug_dir)->default_value("/usr/lib/debug"),
      "root of build-id and release-named debuginfo")("quiet,q", "no summary line");
  DebuginfodOptions debuginfod;
  debuginfod.add_to(opts, true);
  ProfileCacheFlags cache;
  cache.add_to(opts);
  po::options_description hidden;  // for tests: commit more often than a real run would
  hidden.add_options()("commit-every", po::value(&commit_every));
  po::variables_map vm;
  if (!parse_command_line("batch", args, opts, paths, vm, &hidden)) return kExitUsage;
  if (vm.count("help")) {
    std::cout << opts << "\nSee btaudit(1), BATCH and DATABASE, for the outputs and the schema.\n";
    return kExitOk;
  }
  if (paths.empty()) {
    std::cerr << "btaudit batch: no input given (name files or folders, or '-' for standard input)\n";
    return kExitUsage;
  }
  if (vm.count("vmlinux-sessions") && (vmlinux_sessions == 0 || vmlinux_sessions > 1024)) {
    std::cerr << "btaudit batch: --vmlinux-sessions must be between 1 and 1024\n";
    return kExitUsage;
  }
  if (jobs == 0 || jobs > 1024) {
    std::cerr << "btaudit batch: --jobs must be between 1 and 1024\n";
    return kExitUsage;
  }
  if (progress != "auto" && progress != "always" && progress != "never") {
    std::cerr << "btaudit batch: unknown --progress '" << progress << "' (use auto, always or never)\n";
    return kExitUsage;
  }
  if (max_input_mb == 0 || max_input_mb > (std::size_t{1} << 20) || max_line_kb == 0 ||
      max_line_kb > (std::size_t{1} << 30) || max_frames == 0 || check_budget_ms < 0) {
    std::cerr << "btaudit batch: --max-input-mb must be 1 to 1048576, --max-line-kb at least 1, --max-frames at "
                 "least 1, --check-budget-ms not negative\n";
    return kExitUsage;
  }
  if (commit_every == 0) commit_every = 1;
  std::unique_ptr<DebuginfodClient> server;
  if (!debuginfod.apply(vmlinux, debug_options, server, "batch")) return kExitUsage;
  debug_options.cache = cache.options();

  std::optional<OutputFile> reports_out;
  std::unique_ptr<ReportStore> store;
  std::unique_ptr<StoredInputs> stored;
  try {
    if (output != "none") reports_out.emplace(output);
    if (!db_path.empty()) {
      store = std::make_unique<ReportStore>(db_path);
      stored = std::make_unique<StoredInputs>(db_path);
    }
  } catch (const std::exception& e) {
    std::cerr << "btaudit batch: " << e.what() << "\n";
    return kExitInputError;
  }

  const bool show_progress = progress == "always" || (progress == "auto" && ::isatty(STDERR_FILENO));
  ProgressMeter meter(show_progress ? stderr : nullptr);
  std::optional<CorpusSizer> sizer;
  if (show_progress) sizer.emplace(paths);

  BatchOptions options;
  options.jobs = jobs;
  options.limits.input.max_bytes = max_input_mb << 20;
  options.limits.screen.max_line_bytes = max_line_kb << 10;
  options.limits.parser.max_frames = max_frames;
  CheckBudget budget;
  budget.per_report = std::chrono::milliseconds(check_budget_ms);
  // libdwfl is not thread-safe: each report borrows a whole session (a libdwfl
  // handle per vmlinux and its answer caches) from a pool of them. The debuginfod
  // client is one for the run and not thread-safe either: with it, one session.
  if (vmlinux_sessions == 0) vmlinux_sessions = std::min(jobs, kDefaultVmlinuxSessions);
  if (server) vmlinux_sessions = 1;
  DebugInfoPool debuginfo(vmlinux, debug_options, vmlinux_sessions);
  if (!vmlinux.empty())
    options.enrich = [&](Report& r) {
      DebugInfoPool::Lease session = debuginfo.borrow();
      if (KernelDebugInfo* info = session->for_report(r)) apply_debuginfo(r, *info, budget);
    };

  RunCounts counts;
  // One bucket table per worker, merged at the end: merging is order-independent,
  // so the result is the same as one table fed in walk order.
  std::vector<BucketTable> worker_buckets(jobs);
  constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
  std::string pending_out;
  unsigned uncommitted = 0;
  auto last_commit = std::chrono::steady_clock::now();
  constexpr int kMaxSkipLines = 10;
  int skip_lines = 0;
  InterruptWatch interrupt;

  BatchHooks hooks;
  if (stored) hooks.already_done = [&](const InputUnit& u) { return stored->contains(identity_of(u)); };
  hooks.on_result = [&](UnitResult&& r) {
    ++counts.inputs;
    counts.bytes += r.bytes;
    counts.mails += r.mails;
    if (r.skip != SkipKind::None) {
      ++counts.skipped_total;
      ++counts.skipped[std::string(to_string(r.skip))];
      // A file named as a PATH argument and skipped (missing, a read that failed with EIO,
      // too large, not a log) fails the run: it was asked for by name. An input found
      // under a folder is one bad input among many, skipped and counted.
      const bool bad_argument = r.unit.from_argument;
      if (bad_argument) counts.missing_argument = true;
      if (skip_lines < kMaxSkipLines || bad_argument) {
        meter.finish();
        std::cerr << "btaudit batch: skipped " << r.unit.path << ": " << r.skip_reason << "\n";
        ++skip_lines;
      }
    }
    for (const ReportRecord& rec : r.reports) {
      ++counts.reports;
      if (reports_out) {
        pending_out += rec.json;
        pending_out.push_back('\n');
      }
    }
    if (reports_out && pending_out.size() >= kFlushBytes) {
      reports_out->write(pending_out);
      pending_out.clear();
    }
    if (store) {
      store->add(outcome_of(r));
      const auto now = std::chrono::steady_clock::now();
      if (++uncommitted >= commit_every || now - last_commit >= std::chrono::seconds(1)) {
        store->commit();
        uncommitted = 0;
        last_commit = now;
      }
    }
  };
  hooks.on_analyzed = [&](unsigned worker, const UnitResult& r) {
    for (const ReportRecord& rec : r.reports) worker_buckets[worker].add(rec.as_bucket());
  };
  hooks.on_tick = [&] {
    ProgressFigures f{counts.inputs, counts.reports, counts.bytes, 0, 0};
    if (sizer) sizer->fill(f);
    meter.show(f);
    return interrupt.interrupted();
  };

  const auto start = std::chrono::steady_clock::now();
  BatchTotals totals;
  BucketTable buckets;
  try {
    totals = run_batch(InputWalk(paths), options, hooks);
    for (const BucketTable& t : worker_buckets)
      for (const Bucket& b : t.sorted()) buckets.add(b);
    if (store) store->commit();
    if (reports_out) {
      reports_out->write(pending_out);
      reports_out->close();
    }
    // An interrupted run's worker tables may hold inputs that were analyzed but never
    // delivered: no summary rather than one that disagrees with the reports written.
    if (!buckets_path.empty() && totals.stopped) {
      std::cerr << "btaudit batch: interrupted: bucket summary " << buckets_path << " not written\n";
    } else if (!buckets_path.empty()) {
      OutputFile out(buckets_path);
      out.write(render_buckets_ndjson(buckets.sorted()));
      out.close();
    }
  } catch (const std::exception& e) {
    meter.finish();
    std::cerr << "btaudit batch: " << e.what() << "\n";
    return kExitInputError;
  }
  meter.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (skip_lines >= kMaxSkipLines && counts.skipped_total > static_cast<std::uint64_t>(skip_lines))
    std::cerr << "btaudit batch: " << counts.skipped_total - static_cast<std::uint64_t>(skip_lines)
              << " more inputs skipped" << (store ? " (all listed in the database's inputs table)" : "") << "\n";
  for (const std::string& w : debuginfo.warnings()) std::cerr << "btaudit batch: warning: " << w << "\n";
  for (KernelDebugInfo* info : debuginfo.opened()) finish_profile(*info, "batch");
  if (!vm.count("quiet")) std::cerr << summary_line(counts, totals, buckets.size(), seconds) << "\n";
  if (debuginfo.failed()) return kExitInputError;
  if (totals.stopped) return kExitInterrupted;
  return counts.missing_argument ? kExitInputError : kExitOk;
}

}  // namespace btaudit

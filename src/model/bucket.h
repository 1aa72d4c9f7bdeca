// A dedup bucket: every report of one bug (one signature), summarised so that
// buckets from any number of runs combine into the same result (merge is
// commutative and associative: counts add, first/last inputs are the
// lexicographic extremes, the example is the earliest report by (input, line)).
// Pure data, no I/O.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace btaudit {

struct Bucket {
  std::string signature;  // hex, the report signature every member shares
  std::string title;      // of the example report
  std::string kind;       // of the example report
  std::optional<std::string> guilty_function;
  std::uint64_t count = 0;
  std::string first_input;  // lexicographically smallest input holding a member
  std::string last_input;   // lexicographically largest
  std::string example_input;
  std::uint32_t example_line = 0;
  std::uint64_t unreliable_frames = 0;  // frames printed with '?'
  std::uint64_t stale_frames = 0;       // of those, the ones proven stale

  // Folds `other` (same signature) into this bucket. Counts saturate at 2^64-1
  // (model/saturating.h); false when one did.
  bool merge(const Bucket& other);
  // stale_frames / unreliable_frames, or nullopt when no frame was printed with '?'.
  std::optional<double> stale_share() const;
};

// Buckets keyed by signature.
class BucketTable {
 public:
  // Adds a bucket; false when a count saturated (then saturated() stays true).
  bool add(const Bucket& b);
  std::size_t size() const { return buckets_.size(); }
  std::uint64_t reports() const { return reports_; }
  bool saturated() const { return saturated_; }
  // Largest first; ties by signature, so the order never depends on input order.
  std::vector<Bucket> sorted() const;

 private:
  std::map<std::string, Bucket> buckets_;
  std::uint64_t reports_ = 0;
  bool saturated_ = false;
};

// Buckets regrouped by kind or by guilty function: one row per key, with the
// number of buckets and reports under it. Largest first, ties by key.
struct BucketGroup {
  std::string key;
  std::uint64_t buckets = 0;
  std::uint64_t reports = 0;
  std::string example_title;  // title of the largest bucket in the group
};
enum class BucketGrouping { Kind, Function };
std::vector<BucketGroup> group_buckets(const std::vector<Bucket>& sorted_buckets, BucketGrouping by);

}  // namespace btaudit

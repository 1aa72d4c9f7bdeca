// Boxed<T> (model/boxed.h) against std::optional<T>, the interface it copies: the same
// generated sequences of operations (construct, emplace, assign a value or nothing, copy,
// move, reset, self-assignment) must leave both holding the same thing after every step.
// Then Frame::debug, the member it exists for: deep copies, a moved-from frame, the size.
#include "model/boxed.h"

#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/frame.h"

namespace {

using btaudit::Boxed;

template <class T>
bool same(const Boxed<T>& b, const std::optional<T>& o) {
  if (b.has_value() != o.has_value() || static_cast<bool>(b) != o.has_value()) return false;
  if (b.value_or(T{}) != o.value_or(T{})) return false;
  return !o || (*b == *o && b.value() == o.value() && *b.operator->() == *o);
}

// Every comparison Boxed offers answers as std::optional's does on the same contents.
void compare_like_optional(const Boxed<std::string> (&b)[2], const std::optional<std::string> (&o)[2]) {
  for (int i = 0; i < 2; ++i) {
    const int j = 1 - i;
    BOOST_TEST((b[i] == b[j]) == (o[i] == o[j]));
    BOOST_TEST((b[i] != b[j]) == (o[i] != o[j]));
    BOOST_TEST((b[i] == o[j]) == (o[i] == o[j]));
    BOOST_TEST((b[i] == std::nullopt) == (o[i] == std::nullopt));
    BOOST_TEST((b[i] != std::nullopt) == (o[i] != std::nullopt));
    if (o[j]) {
      BOOST_TEST((b[i] == *o[j]) == (o[i] == *o[j]));
      BOOST_TEST((b[i] == std::string_view(*o[j])) == (o[i] == std::string_view(*o[j])));
    }
    BOOST_TEST((b[i] == "") == (o[i] == ""));
  }
}

// A value long enough to live on the heap, so that a shallow copy or a double free shows.
std::string value_for(std::mt19937& rng) {
  return std::string(16 + rng() % 48, static_cast<char>('a' + rng() % 26)) + std::to_string(rng());
}

// Runs `steps` random operations on two slots of each kind, checking after each one.
void run_sequence(unsigned seed, int steps) {
  std::mt19937 rng(seed);
  Boxed<std::string> b[2];
  std::optional<std::string> o[2];
  for (int step = 0; step < steps; ++step) {
    const unsigned i = rng() % 2;
    const unsigned j = 1 - i;
    switch (rng() % 13) {
      case 11: {  // assigned from an optional, copied (the report builder's exception_)
        const bool has = static_cast<bool>(rng() % 2);
        const std::optional<std::string> v = has ? std::optional<std::string>(value_for(rng)) : std::nullopt;
        b[i] = v;
        o[i] = v;
        break;
      }
      case 12: {  // assigned from an optional, moved
        const bool has = static_cast<bool>(rng() % 2);
        std::optional<std::string> v = has ? std::optional<std::string>(value_for(rng)) : std::nullopt;
        std::optional<std::string> w = v;
        b[i] = std::move(v);
        o[i] = std::move(w);
        break;
      }
      case 0: {
        const std::string v = value_for(rng);
        b[i].emplace(v);
        o[i].emplace(v);
        break;
      }
      case 1: {
        const std::string v = value_for(rng);
        b[i] = v;  // copy-assigned value, in place when one is held
        o[i] = v;
        break;
      }
      case 2: {
        std::string v = value_for(rng);
        std::string w = v;
        b[i] = std::move(v);
        o[i] = std::move(w);
        break;
      }
      case 3:
        b[i] = std::nullopt;
        o[i] = std::nullopt;
        break;
      case 4:
        b[i].reset();
        o[i].reset();
        break;
      case 5:
        b[i] = b[j];  // deep copy: the two must not share the value afterwards
        o[i] = o[j];
        if (b[i]) {
          b[i]->append("!");
          o[i]->append("!");
        }
        break;
      case 6:
        b[i] = std::move(b[j]);
        o[i] = std::move(o[j]);
        // A moved-from optional keeps a (moved-from) value; a moved-from box holds none. Only
        // "empty or moved-from" is promised: both are made empty before the next comparison.
        b[j].reset();
        o[j].reset();
        break;
      case 7: {
        Boxed<std::string> copy(b[i]);
        std::optional<std::string> ocopy(o[i]);
        BOOST_TEST(same(copy, ocopy));
        b[j] = std::move(copy);
        o[j] = std::move(ocopy);
        break;
      }
      case 8: {
        Boxed<std::string> moved(std::move(b[i]));
        std::optional<std::string> omoved(std::move(o[i]));
        BOOST_TEST(same(moved, omoved));
        b[i].reset();
        o[i].reset();
        b[j] = moved;
        o[j] = omoved;
        break;
      }
      case 9: {
        auto& self = b[i];
        b[i] = self;  // self-assignment keeps the value
        break;
      }
      default: {
        const bool has = static_cast<bool>(rng() % 2);
        const std::string v = value_for(rng);
        Boxed<std::string> made = has ? Boxed<std::string>(v) : Boxed<std::string>(std::nullopt);
        std::optional<std::string> omade = has ? std::optional<std::string>(v) : std::nullopt;
        b[i] = made;
        o[i] = omade;
        break;
      }
    }
    BOOST_REQUIRE(same(b[0], o[0]));
    BOOST_REQUIRE(same(b[1], o[1]));
    if (step % 7 == 0) compare_like_optional(b, o);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(boxed)

BOOST_AUTO_TEST_CASE(empty_by_default) {
  const Boxed<std::string> b;
  BOOST_TEST(!b.has_value());
  BOOST_TEST(!static_cast<bool>(b));
  BOOST_CHECK_THROW((void)b.value(), std::bad_optional_access);
  Boxed<std::string> m;
  BOOST_CHECK_THROW((void)m.value(), std::bad_optional_access);
}

BOOST_AUTO_TEST_CASE(generated_sequences_match_optional) {
  for (unsigned seed = 1; seed <= 200; ++seed) run_sequence(seed, 300);
}

BOOST_AUTO_TEST_CASE(emplace_passes_arguments) {
  Boxed<std::vector<int>> b;
  BOOST_TEST(b.emplace(3u, 7).size() == 3u);
  BOOST_TEST((*b == std::vector<int>{7, 7, 7}));
  b.emplace();
  BOOST_TEST(b.has_value());
  BOOST_TEST(b->empty());
}

BOOST_AUTO_TEST_CASE(frame_debug_is_copied_deeply) {
  btaudit::Frame f;
  BOOST_TEST(!f.debug.has_value());
  btaudit::FrameDebugInfo d;
  d.address = 0xffffffff81000000ULL;
  d.note = std::string(40, 'n');
  f.debug = d;
  btaudit::Frame g = f;
  BOOST_REQUIRE(g.debug);
  g.debug->note += "changed";
  BOOST_TEST(f.debug->note == std::string(40, 'n'));
  BOOST_TEST(g.debug->address == d.address);
  btaudit::Frame h = std::move(g);
  BOOST_REQUIRE(h.debug);
  BOOST_TEST(h.debug->note == std::string(40, 'n') + "changed");
  h = f;
  BOOST_TEST(h.debug->note == f.debug->note);
  h.debug = std::nullopt;
  BOOST_TEST(!h.debug.has_value());
  BOOST_TEST(f.debug.has_value());
}

BOOST_AUTO_TEST_CASE(frame_strings_are_copied_deeply) {
  btaudit::Frame f;
  BOOST_TEST(!f.module.has_value());
  BOOST_TEST(!f.build_id.has_value());
  BOOST_TEST(!f.source.has_value());
  BOOST_TEST(!f.exception.has_value());
  f.module = std::string(20, 'm');
  f.build_id.emplace("0a1b2c3d4e5f60718293a4b5c6d7e8f901234567");
  f.source = std::optional<std::string>("net/core/dev.c:123");
  f.exception = std::optional<std::string>();
  btaudit::Frame g = f;
  g.module->push_back('!');
  BOOST_TEST(*f.module == std::string(20, 'm'));
  BOOST_TEST((f.build_id == g.build_id));
  BOOST_TEST(f.source.value_or("") == "net/core/dev.c:123");
  BOOST_TEST(!g.exception.has_value());
  BOOST_TEST((f.module != g.module));
}

// The reason for the boxes: a frame does not carry the empty slots of what it did not print
// (168 bytes on x86-64, from ~600). A vector of frames is reserved and regrown by the report
// builder; a larger frame costs every construction, move and destruction.
BOOST_AUTO_TEST_CASE(frame_stays_small) {
  BOOST_TEST(sizeof(btaudit::Frame) <= 176u);
  BOOST_TEST(sizeof(btaudit::Boxed<btaudit::FrameDebugInfo>) == sizeof(void*));
}

BOOST_AUTO_TEST_SUITE_END()

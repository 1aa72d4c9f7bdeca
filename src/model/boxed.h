// A value that is usually absent, kept on the heap behind the interface of std::optional.
// For a rarely set member of a type that is held by the thousand (Frame::debug, whose
// debuginfo slots exist only when --vmlinux is given; a frame's module, build id, source and
// exception, which few frames print): the holder carries one pointer instead of the whole
// value, so it is smaller to construct, move and destroy. Setting one costs an allocation
// more than std::optional would, which is why it is kept for what is seldom set.
// Copies are deep, as std::optional's are.
#pragma once
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace btaudit {

template <class T>
class Boxed {
 public:
  Boxed() noexcept = default;
  Boxed(std::nullopt_t) noexcept {}                              // NOLINT(google-explicit-constructor): as optional
  Boxed(const T& value) : value_(std::make_unique<T>(value)) {}  // NOLINT(google-explicit-constructor)
  Boxed(T&& value) : value_(std::make_unique<T>(std::move(value))) {}  // NOLINT(google-explicit-constructor)
  Boxed(const Boxed& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Boxed(Boxed&& other) noexcept = default;
  ~Boxed() = default;

  Boxed& operator=(const Boxed& other) {
    if (this == &other) return *this;
    if (other.value_)
      *this = *other.value_;
    else
      value_.reset();
    return *this;
  }
  Boxed& operator=(Boxed&& other) noexcept = default;
  Boxed& operator=(std::nullopt_t) noexcept {
    value_.reset();
    return *this;
  }
  // A value already held is assigned in place, as std::optional does.
  Boxed& operator=(const T& value) {
    if (value_)
      *value_ = value;
    else
      value_ = std::make_unique<T>(value);
    return *this;
  }
  Boxed& operator=(T&& value) {
    if (value_)
      *value_ = std::move(value);
    else
      value_ = std::make_unique<T>(std::move(value));
    return *this;
  }

  // From an optional, as the members this replaces were assigned.
  Boxed& operator=(const std::optional<T>& value) {
    if (value)
      *this = *value;
    else
      value_.reset();
    return *this;
  }
  Boxed& operator=(std::optional<T>&& value) {
    if (value)
      *this = std::move(*value);
    else
      value_.reset();
    return *this;
  }

  template <class... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() noexcept { value_.reset(); }

  bool has_value() const noexcept { return value_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() {
    if (!value_) throw std::bad_optional_access();
    return *value_;
  }
  const T& value() const {
    if (!value_) throw std::bad_optional_access();
    return *value_;
  }
  template <class U>
  T value_or(U&& fallback) const {
    return value_ ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }
  T& operator*() noexcept { return *value_; }
  const T& operator*() const noexcept { return *value_; }
  T* operator->() noexcept { return value_.get(); }
  const T* operator->() const noexcept { return value_.get(); }

  // Compared as std::optional compares: nothing equals nothing, a value equals an equal value.
  friend bool operator==(const Boxed& a, const Boxed& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
  }
  friend bool operator==(const Boxed& a, std::nullopt_t) noexcept { return !a.has_value(); }
  friend bool operator==(const Boxed& a, const std::optional<T>& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
  }
  template <class U>
  requires(!std::is_same_v<std::remove_cvref_t<U>, Boxed> && !std::is_same_v<std::remove_cvref_t<U>, std::nullopt_t> &&
           !std::is_same_v<std::remove_cvref_t<U>, std::optional<T>>) friend bool
  operator==(const Boxed& a, const U& v) {
    return a.has_value() && *a == v;
  }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace btaudit

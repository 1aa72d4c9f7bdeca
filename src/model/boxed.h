// A value that is usually absent, kept on the heap behind the interface of std::optional.
// For a large, rarely set member of a type that is held by the thousand (Frame::debug: the
// debuginfo slots of a frame exist only when --vmlinux is given): the holder carries one
// pointer instead of the whole value, so it is smaller to construct, move and destroy.
// Copies are deep, as std::optional's are.
#pragma once
#include <memory>
#include <optional>
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
  T& operator*() noexcept { return *value_; }
  const T& operator*() const noexcept { return *value_; }
  T* operator->() noexcept { return value_.get(); }
  const T* operator->() const noexcept { return value_.get(); }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace btaudit

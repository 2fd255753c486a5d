// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "common/error.h"

namespace cairn {

/// A value or an Error, shaped like std::expected so a later move to C++23 is a rename.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value)
      : data_(std::in_place_index<0>, std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error)
      : data_(std::in_place_index<1>, std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const { return data_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & {
    assert(has_value());
    return std::get<0>(data_);
  }
  const T& value() const& {
    assert(has_value());
    return std::get<0>(data_);
  }
  T&& value() && {
    assert(has_value());
    return std::get<0>(std::move(data_));
  }
  const Error& error() const& {
    assert(!has_value());
    return std::get<1>(data_);
  }
  Error&& error() && {
    assert(!has_value());
    return std::get<1>(std::move(data_));
  }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Error> data_;
};

/// Success or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error)
      : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const& {
    assert(!ok_);
    return error_;
  }
  Error&& error() && {
    assert(!ok_);
    return std::move(error_);
  }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

inline Status Ok() { return {}; }

}  // namespace cairn

#define CAIRN_CONCAT_INNER(a, b) a##b
#define CAIRN_CONCAT(a, b) CAIRN_CONCAT_INNER(a, b)

/// Returns the error of `expr` (a Result or Status) from the enclosing function.
#define CAIRN_RETURN_IF_ERROR(expr)            \
  do {                                         \
    auto&& cairn_status_ = (expr);             \
    if (!cairn_status_.has_value()) {          \
      return std::move(cairn_status_).error(); \
    }                                          \
  } while (false)

#define CAIRN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.has_value()) {                           \
    return std::move(tmp).error();                  \
  }                                                 \
  lhs = std::move(tmp).value()

/// `lhs = value of expr`, or return its error. Expands to several statements: always use braces.
#define CAIRN_ASSIGN_OR_RETURN(lhs, expr) \
  CAIRN_ASSIGN_OR_RETURN_IMPL(CAIRN_CONCAT(cairn_result_, __LINE__), lhs, expr)

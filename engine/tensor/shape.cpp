#include "tensor/shape.h"

namespace flowlens {

bool Shape::fully_defined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

int64_t Shape::num_elements() const {
  if (!fully_defined()) return -1;
  return checked_num_elements(dims_).value_or(-1);
}

std::optional<int64_t> Shape::checked_num_elements(std::span<const int64_t> dims) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    overflow = overflow || __builtin_mul_overflow(n, d, &n);
  }
  // A zero dim makes any product 0, even one that overflowed on the way.
  for (int64_t d : dims)
    if (d == 0) return 0;
  if (overflow) return std::nullopt;
  return n;
}

std::string Shape::to_string() const {
  if (unknown_rank_) return "<unknown>";
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += dims_[i] < 0 ? "?" : std::to_string(dims_[i]);
  }
  return s + "]";
}

}  // namespace flowlens

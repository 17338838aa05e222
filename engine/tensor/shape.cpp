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
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
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

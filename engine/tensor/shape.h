#pragma once
// A tensor shape. Dimensions may be -1 (unknown) and the rank itself may be
// unknown; that partial form is what shape inference and Placeholder attrs use.
// Tensors always carry fully defined shapes.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace flowlens {

class Shape {
 public:
  static constexpr int64_t kUnknownDim = -1;

  Shape() = default;  // scalar
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  static Shape unknown_rank() { Shape s; s.unknown_rank_ = true; return s; }

  bool rank_known() const { return !unknown_rank_; }
  int rank() const { return static_cast<int>(dims_.size()); }  // only if rank_known()
  int64_t dim(int i) const { return dims_[static_cast<size_t>(i)]; }
  int64_t& dim(int i) { return dims_[static_cast<size_t>(i)]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  bool fully_defined() const;
  // Product of dims; -1 when not fully defined or when it overflows int64.
  int64_t num_elements() const;
  // The product of `dims`, or nullopt when a dim is negative or the product
  // overflows int64: every element count computed from input goes through this.
  static std::optional<int64_t> checked_num_elements(std::span<const int64_t> dims);

  // "[4,3]", "[?,3]", "<unknown>", "[]" for scalars.
  std::string to_string() const;
  bool operator==(const Shape& o) const { return unknown_rank_ == o.unknown_rank_ && dims_ == o.dims_; }

 private:
  std::vector<int64_t> dims_;
  bool unknown_rank_ = false;
};

}  // namespace flowlens

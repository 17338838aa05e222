#pragma once
// A histogram of a whole tensor's finite values (every element, not just the
// displayed slice), with the value range under the bars and the NaN/Inf
// count, which the bars cannot show, in the corner.
#include <QWidget>
#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace flowlens::ui {

struct Histogram {
  std::vector<int64_t> counts;  // equal-width bins over [low, high]
  double low = 0, high = 0;
  int64_t non_finite = 0;
};

class TensorHistogram : public QWidget {
  Q_OBJECT

 public:
  explicit TensorHistogram(QWidget* parent = nullptr);

  static Histogram compute(const Tensor& t, int bins = 32);

  void set_tensor(const Tensor& t);
  const Histogram& histogram() const { return histogram_; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  Histogram histogram_;
  bool numeric_ = false;
};

}  // namespace flowlens::ui

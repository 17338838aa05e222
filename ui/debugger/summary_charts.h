#pragma once
// The Summaries dock: the scalar values of summary ops (ScalarSummary, or a
// MergeSummary of them) charted over the session's runs, one line per tag,
// in the style of the cluster charts. A run that fetches a summary tensor,
// or a pause at a summary node, adds that run's point; a later value for the
// same run replaces it; the x ticks are at the run numbers. Histograms and
// other values are not charted (a log's are, in the TensorBoard docks). Until
// a scalar arrives the dock says what it is for instead of an empty chart.
#include <QStringList>
#include <QWidget>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

QT_BEGIN_NAMESPACE
class QChartView;
class QLabel;
class QLineSeries;
class QStackedWidget;
class QValueAxis;
QT_END_NAMESPACE

namespace flowlens::ui {

// (tag, simple_value) of every scalar value in a DT_STRING tensor of
// serialized Summary protos; empty for anything else.
std::vector<std::pair<std::string, float>> summary_scalars(const Tensor& t);

class SummaryCharts : public QWidget {
  Q_OBJECT

 public:
  explicit SummaryCharts(QWidget* parent = nullptr);

  // Adds the scalars of `summary` as the points of run `run`; false when it
  // holds none.
  bool add(int run, const Tensor& summary);
  void clear();

  QStringList tags() const;
  QLineSeries* series(const QString& tag) const;  // null if the tag has no line
  QChartView* view() const { return view_; }
  bool showing_chart() const;  // false while there is nothing to chart: the explanation is shown

 private:
  void rescale();

  QStackedWidget* pages_ = nullptr;
  QLabel* placeholder_ = nullptr;
  QChartView* view_ = nullptr;
  QValueAxis* x_axis_ = nullptr;
  QValueAxis* y_axis_ = nullptr;
  std::map<QString, QLineSeries*> series_;
};

}  // namespace flowlens::ui

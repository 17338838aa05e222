#pragma once
// The layout the Histograms, Distributions and Images dashboards share, as
// TensorBoard's do: a summary line on top; below, the run selector and tag
// list on the left beside a scrolling area of charts or cards.
class QLabel;
class QWidget;

namespace flowlens::ui {

// Lays `panel` out: `summary` above a splitter of `side` (at least 160 px)
// and `content` in a scroll area, which takes the rest.
void lay_out_dashboard(QWidget* panel, QLabel* summary, QWidget* side, QWidget* content);

}  // namespace flowlens::ui

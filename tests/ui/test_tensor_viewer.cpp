// The tensor viewer: stats (min, max, mean, NaN/Inf), slicing an n-d tensor
// (displayed axes and fixed indices), the heatmap and histogram, saving as
// .npy (read back with the engine's reader) and comparing two tensors.
#include "test_main.h"
#include <QtTest>

#include <QComboBox>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <cmath>
#include <limits>

#include "tensor/npy.h"
#include "ui/tensor/tensor_catalog.h"
#include "ui/tensor/tensor_heatmap.h"
#include "ui/tensor/tensor_histogram.h"
#include "ui/tensor/tensor_slice.h"
#include "ui/tensor/tensor_table_model.h"
#include "ui/tensor/tensor_viewer.h"

using flowlens::Shape;
using flowlens::Tensor;
using flowlens::ui::TensorCatalog;
using flowlens::ui::TensorHeatmap;
using flowlens::ui::TensorHistogram;
using flowlens::ui::TensorSlice;
using flowlens::ui::TensorViewer;

namespace {

// 2x3x4 with element (i, j, k) = 100 i + 10 j + k.
Tensor cube() {
  std::vector<float> v;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) v.push_back(static_cast<float>(100 * i + 10 * j + k));
  return Tensor::from_vector<float>(Shape({2, 3, 4}), v);
}

QString cell(const TensorViewer& viewer, int row, int col) {
  return viewer.table_model()->index(row, col).data().toString();
}

}  // namespace

class TensorViewerTest : public QObject {
  Q_OBJECT

 private:
  TensorCatalog catalog_;

 private slots:
  void stats_count_nan_and_inf() {
    TensorViewer viewer(&catalog_);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    viewer.set_tensor(QStringLiteral("t"), Tensor::from_vector<float>(Shape({5}), {1, -3, nan, inf, 8}));
    const QString stats = viewer.stats_text();
    QVERIFY2(stats.contains(QStringLiteral("min -3")) && stats.contains(QStringLiteral("max 8")), qPrintable(stats));
    QVERIFY2(stats.contains(QStringLiteral("mean 2")), qPrintable(stats));  // (1 - 3 + 8) / 3 finite values
    QVERIFY(stats.contains(QStringLiteral("1 NaN")) && stats.contains(QStringLiteral("1 Inf")));
    // A vector is one column.
    QCOMPARE(viewer.table_model()->rowCount(), 5);
    QCOMPARE(viewer.table_model()->columnCount(), 1);
    QCOMPARE(cell(viewer, 2, 0), QStringLiteral("nan"));
    QVERIFY(viewer.table_model()->index(2, 0).data(Qt::BackgroundRole).isValid());  // flagged
    QVERIFY(!viewer.table_model()->index(0, 0).data(Qt::BackgroundRole).isValid());
  }

  void slicing_chooses_axes_and_fixed_indices() {
    TensorViewer viewer(&catalog_);
    viewer.set_tensor(QStringLiteral("cube"), cube());
    // Default: the last two axes, axis 0 fixed at 0.
    QCOMPARE(viewer.table_model()->rowCount(), 3);
    QCOMPARE(viewer.table_model()->columnCount(), 4);
    QCOMPARE(cell(viewer, 2, 3), QStringLiteral("23"));
    QVERIFY(viewer.index_spin(0));
    QVERIFY(!viewer.index_spin(1));
    viewer.index_spin(0)->setValue(1);  // the spin box drives the slice
    QCOMPARE(cell(viewer, 2, 3), QStringLiteral("123"));

    QVERIFY(viewer.set_axes(0, 2));  // rows = axis 0, columns = axis 2, axis 1 fixed
    QCOMPARE(viewer.table_model()->rowCount(), 2);
    QCOMPARE(viewer.table_model()->columnCount(), 4);
    QVERIFY(viewer.index_spin(1));
    QCOMPARE(viewer.row_axis_combo()->currentData().toInt(), 0);
    QCOMPARE(viewer.col_axis_combo()->currentData().toInt(), 2);
    QVERIFY(viewer.set_fixed_index(1, 2));
    QCOMPARE(cell(viewer, 1, 3), QStringLiteral("123"));
    QCOMPARE(cell(viewer, 0, 1), QStringLiteral("21"));
    QVERIFY(!viewer.set_fixed_index(1, 3));  // outside the axis
    QVERIFY(!viewer.set_axes(1, 1));
    QVERIFY(!viewer.set_axes(0, 3));
    QCOMPARE(viewer.table_model()->columnCount(), 4);  // unchanged

    QVERIFY(viewer.set_axes(2, 1));  // transposed
    QCOMPARE(viewer.table_model()->rowCount(), 4);
    // (k=3, j=2) with axis 0 still at the index 1 its spin box was given.
    QCOMPARE(cell(viewer, 3, 2), QStringLiteral("123"));
  }

  void heatmap_renders_the_slice() {
    TensorViewer viewer(&catalog_);
    viewer.set_tensor(QStringLiteral("cube"), cube());
    const QImage image = viewer.heatmap()->image();
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(4, 3));
    // Min and max ends of the ramp differ; NaN gets its own colour.
    QCOMPARE(QColor(image.pixel(0, 0)), TensorHeatmap::color_for(0));
    QCOMPARE(QColor(image.pixel(3, 2)), TensorHeatmap::color_for(1));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const QImage with_nan = TensorHeatmap::render(TensorSlice(Tensor::from_vector<float>(Shape({2, 2}), {0, nan, 1, 2})));
    QCOMPARE(QColor(with_nan.pixel(1, 0)), QColor(Qt::magenta));
    // Strings have no heatmap, and that is said, not crashed on.
    QVERIFY(TensorHeatmap::render(TensorSlice(Tensor::from_strings(Shape({1}), {"a"}))).isNull());
    // The colour scale's range, and the value under the pointer.
    double lo = 0, hi = 0;
    TensorHeatmap::render(TensorSlice(Tensor::from_vector<float>(Shape({2, 2}), {-1, 0, 1, 3})), &lo, &hi);
    QCOMPARE(lo, -1.0);
    QCOMPARE(hi, 3.0);
    TensorHeatmap map;
    map.resize(300, 200);
    map.set_slice(TensorSlice(Tensor::from_vector<float>(Shape({2, 2}), {-1, 0, 1, 3})));
    QCOMPARE(map.describe_at(QPoint(0, 0)), QString());
    bool found = false;
    for (int x = 0; x < 300 && !found; x += 2)
      found = map.describe_at(QPoint(x, 150)) == QStringLiteral("row 1, col 1: 3");
    QVERIFY(found);
  }

  void histogram_covers_every_element() {
    const auto h = TensorHistogram::compute(cube(), 8);
    int64_t total = 0;
    for (int64_t c : h.counts) total += c;
    QCOMPARE(total, int64_t{24});
    QCOMPARE(h.low, 0.0);
    QCOMPARE(h.high, 123.0);
    QVERIFY(h.counts.front() > 0 && h.counts.back() > 0);
  }

  void save_npy_round_trips() {
    QTemporaryDir dir;
    TensorViewer viewer(&catalog_);
    viewer.set_tensor(QStringLiteral("cube"), cube());
    const QString path = dir.filePath(QStringLiteral("cube.npy"));
    QString error;
    QVERIFY2(viewer.save_npy(path, &error), qPrintable(error));
    const Tensor back = flowlens::read_npy(path.toStdString());
    QVERIFY(back.equals(cube()));
    QVERIFY(!viewer.save_npy(dir.filePath(QStringLiteral("no/such/dir/x.npy")), &error));
    QVERIFY(error.contains(QStringLiteral("x.npy")));
  }

  void compare_shows_max_abs_diff_and_per_element_difference() {
    TensorViewer viewer(&catalog_);
    const Tensor a = Tensor::from_vector<float>(Shape({2, 2}), {1, 2, 3, 4});
    const Tensor b = Tensor::from_vector<float>(Shape({2, 2}), {1, 2.5f, 3, 1});
    viewer.set_tensor(QStringLiteral("a"), a);
    QVERIFY(std::isnan(viewer.max_abs_difference()));
    QVERIFY(!viewer.tabs()->isTabEnabled(3));
    QString error;
    QVERIFY2(viewer.compare_with(QStringLiteral("b"), b, &error), qPrintable(error));
    QCOMPARE(viewer.max_abs_difference(), 3.0);
    QVERIFY(viewer.compare_text().contains(QStringLiteral("= 3")));
    QVERIFY(viewer.tabs()->isTabEnabled(3));
    QCOMPARE(viewer.diff_model()->index(0, 1).data().toString(), QStringLiteral("-0.5"));
    QCOMPARE(viewer.diff_model()->index(1, 1).data().toString(), QStringLiteral("3"));

    // Different shapes are refused with a reason.
    QVERIFY(!viewer.compare_with(QStringLiteral("c"), Tensor::from_vector<float>(Shape({4}), {1, 2, 3, 4}), &error));
    QVERIFY(error.contains(QStringLiteral("Shapes differ")));
  }

  void catalog_feeds_the_pickers() {
    TensorCatalog catalog;
    TensorViewer viewer(&catalog);
    catalog.set_group(QStringLiteral("fetched"), {{QStringLiteral("x (run 1 result)"), cube()}});
    catalog.set_group(QStringLiteral("watches"), {{QStringLiteral("w @ run 2"), cube()}});
    auto* picker = viewer.findChild<QComboBox*>(QStringLiteral("tensorPicker"));
    QVERIFY(picker);
    QCOMPARE(picker->count(), 2);
    picker->setCurrentIndex(1);
    emit picker->textActivated(picker->currentText());
    QCOMPARE(viewer.label(), QStringLiteral("w @ run 2"));
    auto* compare = viewer.findChild<QComboBox*>(QStringLiteral("comparePicker"));
    QCOMPARE(compare->count(), 2);  // "(nothing)" and the other tensor
    emit compare->activated(1);
    QCOMPARE(viewer.max_abs_difference(), 0.0);
  }
};

FLOWLENS_TEST_MAIN(TensorViewerTest)
#include "test_tensor_viewer.moc"

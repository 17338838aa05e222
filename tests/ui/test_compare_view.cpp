// The compare view: matmul_baseline replicated x2 beside the original,
// linked selection both ways through the ReplicaMap, "added" markers on the
// Split/ConcatV2 nodes, the menus and settings, regex filtering, the
// inspector's actual device and outputs, every sample loading and malformed
// files refused while the window stays usable.
#include "test_main.h"
#include <QtTest>

#include <cmath>

#include "ui/ui_test_util.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QDir>
#include <QPushButton>
#include <QLineEdit>
#include <QMenu>
#include <QSet>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>

#include "ui/compare/compare_view.h"
#include "ui/graphview/device_palette.h"
#include "ui/compare/replica_comparison.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_item.h"
#include "ui/shell/main_window.h"
#include "ui/shell/main_window_actions.h"
#include "ui/nodes/node_details_view.h"
#include "ui/nodes/node_filter_proxy_model.h"
#include "ui/shell/recent_files.h"
#include "ui/compare/replicate_dialog.h"
#include "io/graph_io.h"
#include "transform/graph_templates.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QToolButton>

using flowlens::ui::CompareView;
using flowlens::ui::MainWindow;

using flowlens::testing::sample;

namespace {

constexpr int kLayoutMs = 60000;

flowlens::ReplicateOptions matmul_options() {
  flowlens::ReplicateOptions o;
  o.replicas = 2;
  o.split_inputs = {"input_data"};
  o.merge_outputs = {"output"};
  return o;
}

}  // namespace

class CompareViewTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> compared() {
    auto w = std::make_unique<MainWindow>();
    QString error;
    if (!w->open_file(sample("matmul_baseline.pbtxt"), &error)) qWarning("open: %s", qPrintable(error));
    if (!w->replicate(matmul_options(), &error)) qWarning("replicate: %s", qPrintable(error));
    w->show();
    if (!w->compare_view()->wait_for_layout(kLayoutMs)) qWarning("layout did not finish");
    return w;
  }

 private slots:
  void initTestCase() {
    // Keep the user's QSettings out of it.
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  void loads_every_sample() {
    const QStringList files = QDir(QStringLiteral(FLOWLENS_SAMPLES)).entryList({QStringLiteral("*.pbtxt")});
    QVERIFY(files.size() >= 4);
    MainWindow w;
    for (const QString& f : files) {
      QString error;
      QVERIFY2(w.open_file(QDir(QStringLiteral(FLOWLENS_SAMPLES)).filePath(f), &error), qPrintable(error));
      QVERIFY(w.document()->node_count() > 0);
      QVERIFY(w.graph_view()->wait_for_layout(kLayoutMs));
    }
  }

  // Colours come from both panes' devices: "/cpu:0", only in the replica,
  // sorts before "/gpu:0", yet /gpu:0 keeps one colour in both.
  void a_device_has_one_colour_in_both_panes() {
    const flowlens::Graph original = flowlens::parse_graph_text(
        "node { name: 'a' op: 'NoOp' device: '/gpu:0' }", "original");
    const flowlens::Graph replica = flowlens::parse_graph_text(
        "node { name: 'a' op: 'NoOp' device: '/gpu:0' } node { name: 'b' op: 'NoOp' device: '/cpu:0' }", "replica");
    flowlens::ui::DevicePalette left, right, alone;
    left.set_graph(original, {&original, &replica});
    right.set_graph(replica, {&original, &replica});
    alone.set_graph(original);
    QCOMPARE(left.color_for("/gpu:0"), right.color_for("/gpu:0"));
    QVERIFY(alone.color_for("/gpu:0") != right.color_for("/gpu:0"));  // what the panes showed before
    QCOMPARE(left.legend().size(), std::size_t{1});  // the legend lists its own devices
  }

  void compare_view_shows_both_graphs() {
    auto w = compared();
    QVERIFY(w->comparing());
    CompareView* c = w->compare_view();
    QVERIFY(c->isVisible());
    QCOMPARE(c->splitter()->count(), 2);
    QCOMPARE(c->original_view()->graph_scene()->items().isEmpty(), false);
    QCOMPARE(c->comparison()->original()->node_count(), 10);
    QVERIFY(c->comparison()->replicated()->node_count() > 10);
    QVERIFY(w->windowTitle().contains(QStringLiteral("\u00D72")));
    // The towers read left to right: tower_0's copy of output left of tower_1's.
    flowlens::ui::GraphView* right = c->replicated_view();
    const flowlens::Graph& replica = *c->comparison()->replicated()->graph;
    flowlens::ui::NodeItem* first = right->graph_scene()->item_for_node(replica.index_of("tower_0/output"));
    flowlens::ui::NodeItem* second = right->graph_scene()->item_for_node(replica.index_of("tower_1/output"));
    QVERIFY(first && second && first != second);
    QVERIFY2(first->pos().x() < second->pos().x(), qPrintable(QStringLiteral("%1 %2").arg(first->pos().x()).arg(second->pos().x())));
    // One device, one colour, in both panes (the replica has devices the original lacks).
    for (const auto& entry : c->original_view()->palette().legend())
      if (!entry.device.isEmpty())
        QCOMPARE(right->palette().color_for(entry.device.toStdString()), entry.color);
    w->close_comparison();
    QVERIFY(!w->comparing());
  }

  void selection_links_both_ways() {
    auto w = compared();
    CompareView* c = w->compare_view();
    // Original MatMul "output" -> its tower copies (and the merge under its name).
    QVERIFY(c->select_original(QStringLiteral("output")));
    const QStringList right = c->linked_in_replicated();
    QVERIFY2(right.contains(QStringLiteral("tower_0/output")), qPrintable(right.join(QLatin1Char(','))));
    QVERIFY(right.contains(QStringLiteral("tower_1/output")));
    QVERIFY(c->linked_marker_count() >= 2);
    // The hint line says what the selection maps to.
    QVERIFY2(c->hint().startsWith(QStringLiteral("output \u2194 %1 copies in the replicated graph").arg(right.size())),
             qPrintable(c->hint()));
    QVERIFY(c->hint().contains(QStringLiteral("tower_0/output")));
    // A tower copy -> its original, outlined on the left.
    QVERIFY(c->select_replicated(QStringLiteral("tower_1/output")));
    QCOMPARE(c->linked_in_original(), QStringList{QStringLiteral("output")});
    QCOMPARE(c->hint(), QStringLiteral("tower_1/output \u2194 output in the original"));
    QCOMPARE(c->linked_marker_count(), 1);
    QVERIFY(c->linked_in_replicated().isEmpty());
    // Shared nodes link to themselves.
    QVERIFY(c->select_replicated(QStringLiteral("b/read")));
    QCOMPARE(c->linked_in_original(), QStringList{QStringLiteral("b/read")});
    // The node table drives the left side.
    QVERIFY(w->select_node(QStringLiteral("output")));
    QVERIFY(c->linked_in_replicated().contains(QStringLiteral("tower_0/output")));
    // A click on the left (user selection) reaches the table.
    emit c->original_view()->node_selected(QStringLiteral("b"));
    QCOMPARE(w->current_node_name(), QStringLiteral("b"));
    // A click on the right shows that node's details.
    emit c->replicated_view()->node_selected(QStringLiteral("tower_1/output"));
    QVERIFY(w->details_view()->toPlainText().contains(QStringLiteral("tower_1/output")));
    QVERIFY(w->details_view()->toPlainText().contains(QStringLiteral("/gpu:1")));
  }

  void added_nodes_are_marked() {
    auto w = compared();
    const auto& cmp = *w->compare_view()->comparison();
    const auto& g = *cmp.replicated()->graph;
    int splits = 0, concats = 0;
    for (const auto& n : g.nodes()) {
      if (n.op == "Split" || n.op == "SplitV") {
        ++splits;
        QVERIFY2(cmp.is_added(n.name), n.name.c_str());
      }
      if (n.op == "ConcatV2") {
        ++concats;
        QVERIFY2(cmp.is_added(n.name), n.name.c_str());
      }
    }
    QCOMPARE(splits, 1);
    QCOMPARE(concats, 1);
    QVERIFY(cmp.is_added("output"));  // the merge keeps the old name, new op
    QVERIFY(!cmp.is_added("tower_0/output"));
    QVERIFY(!cmp.is_added("b"));
    // One badge per box holding added nodes (the Split's split_dim is drawn
    // inside the Split, so both share one).
    QSet<flowlens::ui::NodeItem*> boxes;
    for (const std::string& name : cmp.added())
      boxes.insert(w->compare_view()->replicated_view()->graph_scene()->item_for_node(cmp.replicated()->graph->index_of(name)));
    boxes.remove(nullptr);
    QVERIFY(boxes.size() >= 2);
    QCOMPARE(w->compare_view()->added_marker_count(), static_cast<int>(boxes.size()));
    QVERIFY(cmp.summary().contains(QStringLiteral("2 towers")));
  }

  void bad_replication_is_refused() {
    MainWindow w;
    QVERIFY(w.open_file(sample("matmul_baseline.pbtxt")));
    auto o = matmul_options();
    o.split_inputs = {"no_such_node"};
    QString error;
    QVERIFY(!w.replicate(o, &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!w.comparing());
  }

  void dialog_defaults() {
    MainWindow w;
    QVERIFY(w.open_file(sample("matmul_baseline.pbtxt")));
    flowlens::ReplicateOptions o;
    QVERIFY(flowlens::ui::ReplicateDialog::guess_endpoints(*w.document()->graph, &o));
    flowlens::ui::ReplicateDialog d({QStringLiteral("input_data"), QStringLiteral("output")});
    o.replicas = 3;
    d.set_options(o);
    QCOMPARE(d.devices_edit()->text(), QStringLiteral("/gpu:0,/gpu:1,/gpu:2"));
    QCOMPARE(d.options().split_inputs, std::vector<std::string>{"input_data"});
    QCOMPARE(d.options().devices.size(), std::size_t{3});
    // OK only once the fields make sense.
    auto* ok = d.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    d.devices_edit()->setText(QStringLiteral("/gpu:0"));
    emit d.devices_edit()->textEdited(d.devices_edit()->text());
    QVERIFY(!ok->isEnabled());
    d.devices_edit()->setText(QStringLiteral("/gpu:0,/gpu:1,/cpu:0"));
    emit d.devices_edit()->textEdited(d.devices_edit()->text());
    QVERIFY(ok->isEnabled());
    d.merge_edit()->setText(QStringLiteral("nope"));
    QVERIFY(!ok->isEnabled());
    // A training graph shaped like the templates (features, labels, loss) trains on its loss.
    QVERIFY(w.open_file(sample("mlp_model.pbtxt")));
    flowlens::ReplicateOptions training;
    QVERIFY(flowlens::ui::ReplicateDialog::guess_endpoints(*w.document()->graph, &training));
    QCOMPARE(training.split_inputs, (std::vector<std::string>{"features", "labels"}));
    QCOMPARE(training.loss, std::string("loss"));
    QVERIFY(training.merge_outputs.empty());
    flowlens::ui::ReplicateDialog t({QStringLiteral("features"), QStringLiteral("labels"), QStringLiteral("loss")});
    t.set_options(training);
    auto* train_ok = t.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QVERIFY(train_ok->isEnabled());  // a loss instead of merge outputs
    QCOMPARE(t.options().loss, std::string("loss"));
    t.loss_edit()->clear();
    QVERIFY(!train_ok->isEnabled());
    const flowlens::Graph other = flowlens::parse_graph_text("node { name: 'x' op: 'NoOp' }", "other.pbtxt");
    QVERIFY(!flowlens::ui::ReplicateDialog::guess_endpoints(other, nullptr));
  }

  // The CNN template's forward model on 2 towers: Compare Loss shows the
  // towers' merged loss equal to the original's (no batch norm: per-tower
  // batch statistics would differ by design). Without a loss there is no button.
  void compare_loss_shows_two_cnn_towers_match_one() {
    auto plain = compared();
    QVERIFY(plain->compare_view()->loss_button()->isHidden());

    QTemporaryDir dir;
    flowlens::CnnTemplateOptions o;
    o.batch = 8;
    o.image_size = 8;
    o.classes = 3;
    o.filters = {4};
    o.batch_norm = false;
    const QString file = dir.filePath(QStringLiteral("cnn.pbtxt"));
    flowlens::save_graph(flowlens::cnn_model_graph(o), file.toStdString());
    MainWindow w;
    QString error;
    QVERIFY2(w.open_file(file, &error), qPrintable(error));
    flowlens::ReplicateOptions r;
    r.replicas = 2;
    r.split_inputs = {"features", "labels"};
    r.loss = "loss";
    QVERIFY2(w.replicate(r, &error), qPrintable(error));
    w.show();
    CompareView* c = w.compare_view();
    QVERIFY(!c->loss_button()->isHidden());
    QSignalSpy done(c, &CompareView::loss_compared);
    c->loss_button()->click();
    QVERIFY(done.wait(60000));
    const QString text = c->loss_text();
    const QRegularExpression numbers(QStringLiteral("original ([-0-9.e]+) \u00B7 2 towers ([-0-9.e]+)"));
    const QRegularExpressionMatch m = numbers.match(text);
    QVERIFY2(m.hasMatch(), qPrintable(text));
    const double one = m.captured(1).toDouble();
    const double two = m.captured(2).toDouble();
    QVERIFY2(one > 0 && std::abs(one - two) <= 1e-5 * std::max(1.0, one), qPrintable(text));
  }

  void regex_filter() {
    MainWindow w;
    QVERIFY(w.open_file(sample("matmul_baseline.pbtxt")));
    w.filter_edit()->setText(QStringLiteral("/^(b|output)$/"));
    QVERIFY(w.filter_model()->is_regex());
    QCOMPARE(w.filter_model()->rowCount(), 2);
    w.filter_edit()->setText(QStringLiteral("/variable/"));  // op, case-insensitive
    QCOMPARE(w.filter_model()->rowCount(), 2);
    w.filter_edit()->setText(QStringLiteral("/[/"));  // invalid: nothing
    QCOMPARE(w.filter_model()->rowCount(), 0);
    w.filter_edit()->setText(QStringLiteral("read"));  // plain substring again
    QVERIFY(!w.filter_model()->is_regex());
    QCOMPARE(w.filter_model()->rowCount(), 2);
  }

  void inspector_shows_actual_device_and_outputs() {
    MainWindow w;
    QVERIFY(w.open_file(sample("matmul_baseline.pbtxt")));
    QVERIFY(w.select_node(QStringLiteral("output")));
    const QString text = w.details_view()->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("Device (actual): /cpu:0")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("float32 [4,1]")), qPrintable(text));
  }

  void menus_and_recent_files() {
    MainWindow w;
    w.enable_settings();
    auto* a = w.actions();
    for (const char* name : {"actionOpen", "actionReload", "actionExportPng", "actionExportSvg", "actionExportDot",
                             "actionExportPbtxt", "actionQuit", "actionFit", "actionZoomIn", "actionZoomOut",
                             "actionReplicate", "actionAbout"})
      QVERIFY2(a->action(QLatin1String(name)), name);
    QVERIFY(!a->action(QStringLiteral("actionReplicate"))->isEnabled());
    QVERIFY(w.open_file(sample("matmul_baseline.pbtxt")));
    QVERIFY(a->action(QStringLiteral("actionReplicate"))->isEnabled());
    QVERIFY(w.open_file(sample("mlp_model.pbtxt")));
    QCOMPARE(w.recent_files()->files().value(0), QFileInfo(sample("mlp_model.pbtxt")).absoluteFilePath());
    QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList().size(), 2);
    for (int i = 0; i < 15; ++i) w.recent_files()->add(QStringLiteral("/tmp/f%1.pbtxt").arg(i));
    QCOMPARE(w.recent_files()->files().size(), flowlens::ui::RecentFiles::kMax);
    w.close();  // saves geometry and state
    QVERIFY(!QSettings().value(QStringLiteral("window/geometry")).toByteArray().isEmpty());
  }

  void malformed_files_are_refused() {
    MainWindow w;
    QVERIFY(w.open_file(sample("matmul_baseline.pbtxt")));
    const QDir dir(QStringLiteral(FLOWLENS_TEST_DATA "/malformed"));
    const QStringList files = dir.entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    int refused = 0;
    for (const QString& f : files) {
      QString error;
      if (w.open_file(dir.filePath(f), &error)) {  // a few are odd but loadable on purpose
        QVERIFY(w.open_file(sample("matmul_baseline.pbtxt")));
        continue;
      }
      ++refused;
      QVERIFY2(!error.isEmpty(), qPrintable(f));
      QCOMPARE(w.document()->file_name(), QStringLiteral("matmul_baseline.pbtxt"));
    }
    QVERIFY2(refused >= 10, qPrintable(QString::number(refused)));
    // Still usable: select, replicate, reload.
    QVERIFY(w.select_node(QStringLiteral("output")));
    QVERIFY(w.replicate(matmul_options()));
    QVERIFY(w.open_file(sample("matmul_baseline.pbtxt")));
    QVERIFY(w.comparing());  // reloading the compared file compares again
  }
};

FLOWLENS_TEST_MAIN(CompareViewTest)
#include "test_compare_view.moc"

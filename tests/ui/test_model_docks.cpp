// Opening what TensorFlow users have in the main window: a SavedModel
// directory shows its graph, the Model dock lists its signatures and the
// Variables dock its checkpoint tensors (a double-click opens one in the
// Tensor dock); serving_default runs off the UI thread with typed inputs;
// a .meta file finds the checkpoint beside it; a corrupt checkpoint is
// reported in the dock and the run, never a crash. File → Open's filter
// comes from the format registry, File → Open Folder exists, a dropped
// folder opens, an empty folder gets the registry's message, and recent
// files keep folders.
#include "test_main.h"
#include <QtTest>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QDropEvent>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <functional>

#include "io/graph_io.h"
#include "tensor/npy.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/document/graph_document.h"
#include "ui/shell/main_window.h"
#include "ui/shell/main_window_actions.h"
#include "ui/model/model_panel.h"
#include "ui/model/model_source.h"
#include "ui/model/model_workbench.h"
#include "ui/model/variables_panel.h"
#include "ui/shell/recent_files.h"
#include "ui/tensor/tensor_viewer.h"

using flowlens::Tensor;
using flowlens::ui::MainWindow;
using flowlens::ui::ModelPanel;
using flowlens::ui::VariablesPanel;

namespace {

const QString kSavedModel = QStringLiteral(FLOWLENS_TEST_DATA "/saved_model/half_plus_two_resource");
constexpr int kRunTimeoutMs = 60000;

std::vector<float> floats(const Tensor& t) {
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

ModelPanel* model_panel(MainWindow& w) { return w.model_workbench()->model_panel(); }
VariablesPanel* variables_panel(MainWindow& w) { return w.model_workbench()->variables_panel(); }

bool copy_dir(const QString& from, const QString& to) {
  QDir().mkpath(to);
  for (const QFileInfo& info : QDir(from).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
    const QString target = QDir(to).filePath(info.fileName());
    if (info.isDir() ? !copy_dir(info.filePath(), target) : !QFile::copy(info.filePath(), target)) return false;
  }
  return true;
}

// Accepts the next message box and returns its text.
QString accept_next_message_box(const std::function<void()>& action) {
  QString shown;
  QTimer poll;
  poll.setInterval(20);
  QObject::connect(&poll, &QTimer::timeout, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      shown = box->text();
      box->accept();
    }
  });
  poll.start();
  action();
  poll.stop();
  return shown;
}

}  // namespace

class ModelDocksTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(dir_.isValid());
  }

  void saved_model_directory_fills_model_and_variables_docks() {
    MainWindow w;
    QString error;
    QVERIFY2(w.open_file(kSavedModel, &error), qPrintable(error));
    QVERIFY(w.document()->model);
    QCOMPARE(w.document()->file_name(), QStringLiteral("half_plus_two_resource"));
    QVERIFY(w.document()->graph->find("y"));
    QVERIFY(w.model_workbench()->model_dock()->isVisibleTo(&w));

    const QStringList keys = model_panel(w)->signature_keys();
    QVERIFY2(keys.contains(QStringLiteral("serving_default")), qPrintable(keys.join(u',')));
    QVERIFY(keys.contains(QStringLiteral("regress_x_to_y2")));
    // Inputs and outputs with dtype and shape.
    const auto found = model_panel(w)->signature_tree()->findItems(QStringLiteral("x"), Qt::MatchRecursive);
    QVERIFY(!found.isEmpty());
    QCOMPARE(found.front()->text(1), QStringLiteral("float32"));
    QCOMPARE(found.front()->text(2), QStringLiteral("[?,1]"));

    QCOMPARE(variables_panel(w)->names(), (QStringList{"a", "b", "c"}));
    QVERIFY(!variables_panel(w)->has_error());
    QVERIFY2(variables_panel(w)->status_text().contains(QStringLiteral("3 tensors")),
             qPrintable(variables_panel(w)->status_text()));
    const QTreeWidgetItem* a = variables_panel(w)->table()->topLevelItem(0);
    QCOMPARE(a->text(1), QStringLiteral("float32"));
    QCOMPARE(a->text(2), QStringLiteral("[]"));
    QCOMPARE(a->data(3, Qt::UserRole).toLongLong(), 4LL);

    // Double-click (activation) opens the value in the Tensor dock.
    emit variables_panel(w)->table()->itemActivated(variables_panel(w)->table()->topLevelItem(1), 0);
    QCOMPARE(w.debug_workbench()->tensor_viewer()->label(), QStringLiteral("b"));
    QCOMPARE(floats(w.debug_workbench()->tensor_viewer()->tensor()), std::vector<float>{2.0f});

    // A plain graph empties the docks.
    QVERIFY(w.open_file(QStringLiteral(FLOWLENS_SAMPLES "/mlp_model.pbtxt")));
    QVERIFY(!w.document()->model);
    QVERIFY(model_panel(w)->signature_keys().isEmpty());
    QVERIFY(variables_panel(w)->names().isEmpty());
  }

  void runs_serving_default_off_the_ui_thread() {
    MainWindow w;
    QVERIFY(w.open_file(kSavedModel));
    ModelPanel* panel = model_panel(w);
    QVERIFY(panel->select_signature(QStringLiteral("serving_default")));
    QVERIFY(panel->input_edit(QStringLiteral("x")));
    panel->input_edit(QStringLiteral("x"))->setText(QStringLiteral("1, 2, 3"));
    QString error;
    QVERIFY2(panel->run(&error), qPrintable(error));
    QVERIFY(panel->wait_for_run(kRunTimeoutMs));
    QVERIFY2(panel->outputs().count("y"), qPrintable(panel->status_text()));
    const Tensor& y = panel->outputs().at("y");
    QCOMPARE(y.shape(), (flowlens::Shape{3, 1}));
    QCOMPARE(floats(y), (std::vector<float>{2.5f, 3.0f, 3.5f}));
    QCOMPARE(panel->output_table()->rowCount(), 1);
    QCOMPARE(panel->output_table()->item(0, 0)->text(), QStringLiteral("y"));
    QVERIFY2(panel->status_text().contains(QStringLiteral("restored")), qPrintable(panel->status_text()));

    // The second signature reuses the loaded model; nested lists work too,
    // and a .npy input as well.
    QVERIFY(panel->select_signature(QStringLiteral("regress_x_to_y2")));
    panel->input_edit(QStringLiteral("x"))->setText(QStringLiteral("[[2]]"));
    QVERIFY2(panel->run(&error), qPrintable(error));
    QVERIFY(panel->wait_for_run(kRunTimeoutMs));
    QCOMPARE(floats(panel->outputs().at("y2")), std::vector<float>{4.0f});
    const QString npy = dir_.filePath(QStringLiteral("x.npy"));
    flowlens::write_npy(Tensor::from_vector<float>({2, 1}, {4, 6}), npy.toStdString());
    panel->input_edit(QStringLiteral("x"))->setText(npy);
    QVERIFY2(panel->run(&error), qPrintable(error));
    QVERIFY(panel->wait_for_run(kRunTimeoutMs));
    QCOMPARE(floats(panel->outputs().at("y2")), (std::vector<float>{5.0f, 6.0f}));

    // Outputs open in the Tensor dock and join its catalog.
    emit panel->output_table()->cellDoubleClicked(0, 0);
    QCOMPARE(w.debug_workbench()->tensor_viewer()->label(), QStringLiteral("regress_x_to_y2:y2"));

    // Bad input is refused before anything runs, naming the input.
    panel->input_edit(QStringLiteral("x"))->setText(QStringLiteral("one"));
    QVERIFY(!panel->run(&error));
    QVERIFY2(error.contains(QStringLiteral("'x'")), qPrintable(error));
    panel->input_edit(QStringLiteral("x"))->clear();
    QVERIFY(!panel->run(&error));
    QVERIFY2(error.contains(QStringLiteral("no value")), qPrintable(error));
  }

  void signature_input_parsing() {
    flowlens::SignatureTensor in;
    in.key = "x";
    in.dtype = flowlens::DType::Float;
    in.shape = flowlens::Shape{-1, 2};
    Tensor t = flowlens::ui::parse_signature_input(QStringLiteral("1,2,3,4"), in);
    QCOMPARE(t.shape(), (flowlens::Shape{2, 2}));
    t = flowlens::ui::parse_signature_input(QStringLiteral("[1,2,3]"), in);  // does not fit: left for the engine
    QCOMPARE(t.shape(), (flowlens::Shape{3}));
    in.shape = flowlens::Shape{};
    QCOMPARE(flowlens::ui::parse_signature_input(QStringLiteral(" 7 "), in).shape(), flowlens::Shape{});
    in.dtype = flowlens::DType::Int8;
    QVERIFY_THROWS_EXCEPTION(flowlens::Error, flowlens::ui::parse_signature_input(QStringLiteral("300"), in));
    QVERIFY_THROWS_EXCEPTION(flowlens::Error,
                             flowlens::ui::parse_signature_input(dir_.filePath(QStringLiteral("missing.npy")), in));
    // A string input takes tf.Examples as JSON (serialized, one per object).
    in.dtype = flowlens::DType::String;
    in.shape = flowlens::Shape::unknown_rank();
    t = flowlens::ui::parse_signature_input(QStringLiteral(R"([{"x": [1.0]}, {"x": [2.0]}])"), in);
    QCOMPARE(t.shape(), flowlens::Shape{2});
    QVERIFY(!t.strings()[0].empty());
    QVERIFY_THROWS_EXCEPTION(flowlens::Error, flowlens::ui::parse_signature_input(QStringLiteral("[{\"x\": "), in));
  }

  void meta_file_uses_the_checkpoint_beside_it() {
    // A tf.train.Saver training directory: model.ckpt-1.meta (the SavedModel's
    // meta graph as text) beside model.ckpt-1.{index,data-00000-of-00001}.
    const QString train = dir_.filePath(QStringLiteral("train"));
    QVERIFY(QDir().mkpath(train));
    QFile sm(kSavedModel + QStringLiteral("/saved_model.pbtxt"));
    QVERIFY(sm.open(QIODevice::ReadOnly));
    QStringList lines = QString::fromUtf8(sm.readAll()).split(u'\n');
    while (!lines.isEmpty() && !lines.front().startsWith(QStringLiteral("meta_graphs {"))) lines.removeFirst();
    QVERIFY(!lines.isEmpty());
    lines.removeFirst();
    while (!lines.isEmpty() && lines.back().trimmed() != QStringLiteral("}")) lines.removeLast();
    lines.removeLast();
    QFile meta(train + QStringLiteral("/model.ckpt-1.meta"));
    QVERIFY(meta.open(QIODevice::WriteOnly));
    meta.write(lines.join(u'\n').toUtf8());
    meta.close();
    QVERIFY(QFile::copy(kSavedModel + QStringLiteral("/variables/variables.index"), train + QStringLiteral("/model.ckpt-1.index")));
    QVERIFY(QFile::copy(kSavedModel + QStringLiteral("/variables/variables.data-00000-of-00001"),
                        train + QStringLiteral("/model.ckpt-1.data-00000-of-00001")));

    MainWindow w;
    QString error;
    QVERIFY2(w.open_file(meta.fileName(), &error), qPrintable(error));
    QVERIFY(w.document()->model);
    QCOMPARE(w.document()->model->format, flowlens::FileFormat::MetaGraph);
    QCOMPARE(variables_panel(w)->names(), (QStringList{"a", "b", "c"}));
    ModelPanel* panel = model_panel(w);
    QVERIFY(panel->select_signature(QStringLiteral("serving_default")));
    panel->input_edit(QStringLiteral("x"))->setText(QStringLiteral("2"));
    QVERIFY2(panel->run(&error), qPrintable(error));
    QVERIFY(panel->wait_for_run(kRunTimeoutMs));
    QVERIFY2(panel->outputs().count("y"), qPrintable(panel->status_text()));
    QCOMPARE(floats(panel->outputs().at("y")), std::vector<float>{3.0f});
  }

  void corrupt_checkpoint_is_reported_not_fatal() {
    const QString copy = dir_.filePath(QStringLiteral("corrupt_model"));
    QVERIFY(copy_dir(kSavedModel, copy));
    QFile index(copy + QStringLiteral("/variables/variables.index"));
    QVERIFY(index.open(QIODevice::ReadWrite));
    QByteArray bytes = index.readAll();
    for (int i = 0; i < 24 && i < bytes.size(); ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
    index.seek(0);
    index.write(bytes);
    index.close();

    MainWindow w;
    QString error;
    QVERIFY2(w.open_file(copy, &error), qPrintable(error));  // the graph still opens
    QVERIFY(variables_panel(w)->has_error());
    QVERIFY2(variables_panel(w)->status_text().contains(QStringLiteral("variables.index")),
             qPrintable(variables_panel(w)->status_text()));
    QVERIFY(variables_panel(w)->names().isEmpty());
    QVERIFY(!variables_panel(w)->open_tensor(QStringLiteral("a"), &error));

    ModelPanel* panel = model_panel(w);
    panel->input_edit(QStringLiteral("x"))->setText(QStringLiteral("1"));
    QVERIFY(panel->run(&error));
    QVERIFY(panel->wait_for_run(kRunTimeoutMs));
    QVERIFY(panel->outputs().empty());
    QVERIFY2(panel->status_text().contains(QStringLiteral("failed")), qPrintable(panel->status_text()));
  }

  void open_filter_and_open_folder_action() {
    const QString filter = flowlens::ui::WorkbenchHost::open_filter();
    QVERIFY2(filter.contains(QStringLiteral("*.onnx")), qPrintable(filter));
    QVERIFY2(filter.contains(QStringLiteral("saved_model.pb")), qPrintable(filter));
    QVERIFY2(filter.contains(QStringLiteral("*.dot")), qPrintable(filter));
    MainWindow w;
    QVERIFY(w.actions()->action(QStringLiteral("actionOpenFolder")));
  }

  void dropping_a_folder_opens_it() {
    MainWindow w;
    auto drop = [&](const QString& path) {
      QMimeData mime;
      mime.setUrls({QUrl::fromLocalFile(path)});
      QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(&w, &enter);
      if (!enter.isAccepted()) return false;
      QDropEvent event(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(&w, &event);
      return true;
    };
    QVERIFY(drop(kSavedModel + QLatin1Char('/')));
    QVERIFY(w.document());
    QCOMPARE(w.document()->path, QFileInfo(kSavedModel).absoluteFilePath());
    QCOMPARE(model_panel(w)->signature_keys().size(), 2);
    // A name no format claims is not taken.
    const QString other = dir_.filePath(QStringLiteral("notes.xyz"));
    QFile other_file(other);
    QVERIFY(other_file.open(QIODevice::WriteOnly));
    other_file.close();
    QVERIFY(!drop(other));
  }

  void empty_folder_shows_the_registry_message() {
    const QString empty = dir_.filePath(QStringLiteral("empty_folder"));
    QVERIFY(QDir().mkpath(empty));
    MainWindow w;
    QString error;
    QVERIFY(!w.open_file(empty, &error));
    QVERIFY2(error.contains(QStringLiteral("holds no model")), qPrintable(error));
    w.show();
    const QString shown = accept_next_message_box([&] { QVERIFY(!w.open_file_interactive(empty)); });
    QVERIFY2(shown.contains(QStringLiteral("holds no model")) && shown.contains(QStringLiteral("empty_folder")),
             qPrintable(shown));
  }

  void recent_files_keep_folders() {
    MainWindow w;
    w.enable_settings();
    QVERIFY(w.open_file(kSavedModel + QLatin1Char('/')));
    QCOMPARE(w.recent_files()->files().value(0), QFileInfo(kSavedModel).absoluteFilePath());
    const auto* menu = w.findChild<QMenu*>(QStringLiteral("menuRecent"));
    QVERIFY(menu);
    QVERIFY(!menu->actions().isEmpty());
    QVERIFY2(menu->actions().front()->text().endsWith(QStringLiteral("half_plus_two_resource/")),
             qPrintable(menu->actions().front()->text()));
  }
};

FLOWLENS_TEST_MAIN(ModelDocksTest)
#include "test_model_docks.moc"

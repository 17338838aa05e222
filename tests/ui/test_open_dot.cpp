// Opening Graphviz DOT files view-only in the main window: load_graph reads
// them (engine io/dot_reader, tested in tests/engine/test_dot_reader), the
// document notes "view only", the graph lays out; a syntax error is reported
// like any unreadable file.
#include "test_main.h"
#include <QtTest>

#include "ui/ui_test_util.h"

#include <QTemporaryDir>

#include "io/graph_io.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/shell/main_window.h"

using flowlens::ui::GraphView;
using flowlens::ui::MainWindow;

using flowlens::testing::sample;

namespace {

bool wait(GraphView* view) { return flowlens::testing::wait_for_layout(view); }

}  // namespace

class OpenDotTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  QString write(const QString& name, const QByteArray& text) { return flowlens::testing::write_file(dir_, name, text); }

 private slots:
  void opens_dot_exported_by_flowlens() {
    for (const char* name : {"mlp_model.pbtxt", "matmul_in_graph.pbtxt"}) {
      const flowlens::Graph original = flowlens::load_graph(sample(name).toStdString());
      const QString path = dir_.filePath(QLatin1String(name) + QStringLiteral(".dot"));
      flowlens::save_graph(original, path.toStdString());
      MainWindow w;
      QString error;
      QVERIFY2(w.open_file(path, &error), qPrintable(error));
      const flowlens::Graph& g = *w.document()->graph;
      QCOMPARE(g.size(), original.size());
      for (const flowlens::Node& n : original.nodes()) {
        const flowlens::Node* loaded = g.find(n.name);
        QVERIFY2(loaded, n.name.c_str());
        QCOMPARE(loaded->op, n.op);
        QCOMPARE(loaded->inputs, n.inputs);
        QCOMPARE(loaded->device, n.device);
      }
      QVERIFY(wait(w.graph_view()));
      QVERIFY(w.graph_view()->graph_scene()->edge_item_count() > 0);
    }
  }

  void opens_hand_written_dot_and_reports_errors() {
    const QString path = write(QStringLiteral("hand.gv"),
                               "digraph g {\n  a [op=\"Const\"];\n  b [label=\"b\\nMatMul\"];\n  c;\n"
                               "  a -> b; a -> b [label=\":1\"];\n  a -> c [label=\"^\"]; b -> c [style=dashed]; b -> c;\n}\n");
    MainWindow w;
    QString error;
    QVERIFY2(w.open_file(path, &error), qPrintable(error));
    const flowlens::Graph& g = *w.document()->graph;
    QCOMPARE(g.size(), std::size_t(3));
    QCOMPARE(g.find("a")->op, std::string("Const"));
    QCOMPARE(g.find("b")->op, std::string("MatMul"));
    QCOMPARE(g.find("c")->op, std::string("dot"));
    QCOMPARE(g.find("b")->inputs, (std::vector<std::string>{"a", "a:1"}));
    QCOMPARE(g.find("c")->inputs, (std::vector<std::string>{"b", "^a", "^b"}));
    QVERIFY(w.document()->warning_count() >= 1);  // "view only"
    QVERIFY(wait(w.graph_view()));
    QCOMPARE(w.graph_view()->graph_scene()->node_item_count(), 3);

    const QString bad = write(QStringLiteral("bad.dot"), "digraph { a -> ; }\n");
    QVERIFY(!w.open_file(bad, &error));
    QVERIFY2(error.contains(QStringLiteral("bad.dot")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("syntax"), Qt::CaseInsensitive), qPrintable(error));
    // Graphviz's parser recovers: the next file opens.
    QVERIFY2(w.open_file(path, &error), qPrintable(error));
    QCOMPARE(w.document()->node_count(), 3);
  }

};

FLOWLENS_TEST_MAIN(OpenDotTest)
#include "test_open_dot.moc"

// The Diagnostics dock at first sight of a real export: one finding repeated
// over many nodes (a ResNet export warns about its unknown ops once per
// node) is one row per kind and op, "unknown op 'CudnnRNN' ×5", expanding to a
// row per node; a finding on one node stays a single row. Validation tags
// each diagnostic with its kind and op for that (analysis/validate.h).
#include "test_main.h"
#include <QtTest>

#include "analysis/validate.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "ui/nodes/diagnostics_panel.h"

using flowlens::Diagnostic;
using flowlens::ui::DiagnosticsPanel;

namespace {

// 5 × CudnnRNN, 3 × CudnnRNNBackprop, one _Other (ops FlowLens does not register: warnings) and
// two Negs reading nodes that are not there (errors).
std::vector<Diagnostic> mixed_diagnostics() {
  std::string text;
  for (int i = 0; i < 5; ++i) text += "node { name: \"arg_" + std::to_string(i) + "\" op: \"CudnnRNN\" }\n";
  for (int i = 0; i < 3; ++i)
    text += "node { name: \"ret_" + std::to_string(i) + "\" op: \"CudnnRNNBackprop\" input: \"arg_" + std::to_string(i) + "\" }\n";
  text += "node { name: \"odd\" op: \"_Other\" }\n";
  text += "node { name: \"neg_a\" op: \"Neg\" input: \"ghost\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
  text += "node { name: \"neg_b\" op: \"Neg\" input: \"phantom\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
  const flowlens::Graph graph = flowlens::parse_graph_text(text, "mixed");
  return flowlens::validate_graph(graph, flowlens::OpRegistry::global());
}

}  // namespace

class DiagnosticsPanelTest : public QObject {
  Q_OBJECT

 private slots:
  void validation_tags_kind_and_op() {
    const auto diagnostics = mixed_diagnostics();
    QCOMPARE(diagnostics.size(), std::size_t{11});
    int unknown_args = 0, missing = 0;
    for (const Diagnostic& d : diagnostics) {
      unknown_args += d.kind == Diagnostic::Kind::UnknownOp && d.op == "CudnnRNN";
      missing += d.kind == Diagnostic::Kind::MissingInput && d.op == "Neg";
    }
    QCOMPARE(unknown_args, 5);
    QCOMPARE(missing, 2);
  }

  void repeated_findings_share_a_row() {
    DiagnosticsPanel panel;
    panel.set_diagnostics(mixed_diagnostics());
    QCOMPARE(panel.diagnostic_count(), 11);
    const QStringList summary = panel.summary_lines();
    QCOMPARE(summary.size(), 4);
    QCOMPARE(summary[0], QStringLiteral("error \u00B7 inputs naming nodes not in the graph on Neg nodes \u00D72"));
    QCOMPARE(summary[1], QStringLiteral("warning \u00B7 unknown op 'CudnnRNN' \u00D75"));
    QCOMPARE(summary[2], QStringLiteral("warning \u00B7 unknown op 'CudnnRNNBackprop' \u00D73"));
    QVERIFY2(summary[3].startsWith(QStringLiteral("warning: node 'odd': unknown op '_Other'")), qPrintable(summary[3]));
    QVERIFY(panel.rootIsDecorated());

    QTreeWidgetItem* args = panel.topLevelItem(1);
    QCOMPARE(args->text(DiagnosticsPanel::SeverityColumn), QStringLiteral("Warning"));
    QCOMPARE(args->text(DiagnosticsPanel::NodeColumn), QStringLiteral("5 nodes"));
    QCOMPARE(args->childCount(), 5);
    QCOMPARE(args->child(2)->text(DiagnosticsPanel::NodeColumn), QStringLiteral("arg_2"));
    QCOMPARE(args->foreground(DiagnosticsPanel::MessageColumn).color(), DiagnosticsPanel::warning_color());
    QCOMPARE(panel.topLevelItem(0)->child(1)->foreground(DiagnosticsPanel::NodeColumn).color(),
             DiagnosticsPanel::error_color());
    QCOMPARE(panel.topLevelItem(3)->childCount(), 0);  // a single finding stays one row

    // lines() still has every diagnostic, errors first, a group's nodes in turn.
    const QStringList lines = panel.lines();
    QCOMPARE(lines.size(), 11);
    QVERIFY2(lines[0].startsWith(QStringLiteral("error: node 'neg_a': input 'ghost'")), qPrintable(lines[0]));
    QVERIFY2(lines[4].startsWith(QStringLiteral("warning: node 'arg_2': unknown op 'CudnnRNN'")), qPrintable(lines[4]));
  }

  void child_rows_select_their_node() {
    DiagnosticsPanel panel;
    panel.set_diagnostics(mixed_diagnostics());
    QSignalSpy activated(&panel, &DiagnosticsPanel::node_activated);
    QTreeWidgetItem* group = panel.topLevelItem(2);
    emit panel.itemClicked(group, 0);  // the group row names no node
    QCOMPARE(activated.count(), 0);
    emit panel.itemActivated(group->child(1), 0);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated[0][0].toString(), QStringLiteral("ret_1"));
    emit panel.itemClicked(panel.topLevelItem(3), 0);  // a single row, as before
    QCOMPARE(activated[1][0].toString(), QStringLiteral("odd"));
  }

  void an_export_with_thousands_of_warnings_is_two_rows() {
    std::string text;
    for (int i = 0; i < 1200; ++i) text += "node { name: \"conv" + std::to_string(i) + "/CudnnRNN\" op: \"CudnnRNN\" }\n";
    const auto diagnostics =
        flowlens::validate_graph(flowlens::parse_graph_text(text, "resnet"), flowlens::OpRegistry::global());
    DiagnosticsPanel panel;
    panel.set_diagnostics(diagnostics);
    // The listed 1,000 in one group, then validation's "200 more" line.
    QCOMPARE(panel.topLevelItemCount(), 2);
    QCOMPARE(panel.topLevelItem(0)->childCount(), 1000);
    QVERIFY(panel.summary_lines()[1].contains(QStringLiteral("200 more warnings")));
    QCOMPARE(panel.lines().size(), 1001);
  }

  void no_groups_no_tree_decoration() {
    DiagnosticsPanel panel;
    panel.set_diagnostics({{Diagnostic::Severity::Error, "a", "first"}, {Diagnostic::Severity::Error, "b", "second"}});
    QCOMPARE(panel.topLevelItemCount(), 2);
    QVERIFY(!panel.rootIsDecorated());
    panel.clear_diagnostics();
    QVERIFY(panel.lines().isEmpty());
  }
};

FLOWLENS_TEST_MAIN(DiagnosticsPanelTest)
#include "test_diagnostics_panel.moc"

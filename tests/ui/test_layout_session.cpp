// LayoutSession (ui/graphview/layout_session.h) without a widget: a layout
// of the grouping's view lands as shown(), the first one per document says
// so, expanding one scope lays out only its contents and merges them, an
// empty view starts nothing, cancelling drops the layout and the pending
// selection, and shapes come from the document's analysis.
#include "test_main.h"
#include <QtTest>

#include <QSignalSpy>
#include <optional>
#include <utility>

#include "io/graph_io.h"  // parse_graph_text
#include "ui/document/graph_document.h"
#include "ui/graphview/layout_session.h"

using flowlens::ui::LayoutSession;

namespace {

constexpr int kLayoutTimeoutMs = 60000;  // layouts share two cores with the rest of the suite

// input -> a/x -> a/y -> b/z -> out: two scopes between two top-level nodes.
std::shared_ptr<const flowlens::ui::GraphDocument> scoped_document() {
  const char* text = R"(
node { name: "input" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "a/x" op: "Identity" input: "input" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "a/y" op: "Identity" input: "a/x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "b/z" op: "Identity" input: "a/y" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Identity" input: "b/z" attr { key: "T" value { type: DT_FLOAT } } }
)";
  return flowlens::ui::make_graph_document(flowlens::parse_graph_text(text, "scoped.pbtxt"), "scoped.pbtxt");
}

// Waits for the session's next finished(); its (expansion, first), or
// nullopt when none came.
std::optional<std::pair<bool, bool>> wait_finished(QSignalSpy& spy) {
  if (spy.isEmpty() && !spy.wait(kLayoutTimeoutMs)) return std::nullopt;
  const QList<QVariant> args = spy.takeFirst();
  return std::pair{args.at(0).toBool(), args.at(1).toBool()};
}

}  // namespace

class TestLayoutSession : public QObject {
  Q_OBJECT

 private slots:
  void first_layout_lands_as_shown() {
    LayoutSession session;
    QSignalSpy finished(&session, &LayoutSession::finished);
    session.set_document(scoped_document());
    QVERIFY(!session.has_shown());
    QCOMPARE(session.request_layout(), std::size_t{5});  // small graphs open fully expanded
    QVERIFY(session.running());
    QCOMPARE(wait_finished(finished), (std::optional<std::pair<bool, bool>>{{false, true}}));
    QVERIFY(!session.running());
    QVERIFY(session.has_shown());
    QCOMPARE(session.shown().visible.units.size(), std::size_t{5});
    QCOMPARE(session.shown().layout.box_centers.size(), std::size_t{5});
    QVERIFY(session.shapes());  // a valid graph: the analysis's inference
    // Later layouts of the same document are not the first.
    session.request_layout();
    QCOMPARE(wait_finished(finished), (std::optional<std::pair<bool, bool>>{{false, false}}));
  }

  void expanding_a_scope_lays_out_only_its_contents() {
    LayoutSession session;
    QSignalSpy finished(&session, &LayoutSession::finished);
    session.set_document(scoped_document());
    QVERIFY(session.grouping().collapse_all());
    const std::size_t collapsed = session.request_layout();
    QVERIFY(wait_finished(finished));
    QCOMPARE(session.shown().visible.units.size(), collapsed);
    // Node 4, "out", lies below scope a.
    auto out_centre = [&] {
      const int unit = session.shown().visible.unit_of_node[4];
      return session.shown().layout.box_centers[static_cast<std::size_t>(unit)];
    };
    const QPointF out_before = out_centre();

    QVERIFY(session.grouping().expand("a"));
    QCOMPARE(session.request_layout("a"), std::size_t{2});  // a/x and a/y only
    QCOMPARE(wait_finished(finished), (std::optional<std::pair<bool, bool>>{{true, false}}));
    QCOMPARE(session.shown().visible.units.size(), collapsed + 1);
    QCOMPARE(session.shown().layout.box_centers.size(), collapsed + 1);
    QVERIFY(out_centre().y() > out_before.y());  // moved down to make room
  }

  void cancel_drops_the_layout_and_the_selection() {
    LayoutSession session;
    QSignalSpy finished(&session, &LayoutSession::finished);
    QSignalSpy failed(&session, &LayoutSession::failed);
    session.set_document(scoped_document());
    session.request_layout();
    session.set_pending_selection(3);
    session.cancel();
    QVERIFY(!session.running());
    QCOMPARE(session.pending_selection(), -1);
    QTest::qWait(200);  // an obsolete result that arrives anyway is dropped
    QCOMPARE(finished.count(), 0);
    QCOMPARE(failed.count(), 0);
    QVERIFY(!session.has_shown());
  }

  void no_document_or_no_nodes_starts_nothing() {
    LayoutSession session;
    QCOMPARE(session.request_layout(), std::size_t{0});
    QVERIFY(!session.graph());
    session.set_document(flowlens::ui::make_graph_document(flowlens::Graph(), "empty.pbtxt"));
    QCOMPARE(session.request_layout(), std::size_t{0});
    QVERIFY(!session.running());
  }

  void a_new_document_forgets_the_old_one() {
    LayoutSession session;
    QSignalSpy finished(&session, &LayoutSession::finished);
    session.set_document(scoped_document());
    session.request_layout();
    QVERIFY(wait_finished(finished));
    session.set_pending_selection(1);
    session.set_document(scoped_document());
    QVERIFY(!session.has_shown());
    QCOMPARE(session.pending_selection(), -1);
    session.request_layout();
    QCOMPARE(wait_finished(finished), (std::optional<std::pair<bool, bool>>{{false, true}}));
  }
};

FLOWLENS_TEST_MAIN(TestLayoutSession)
#include "test_layout_session.moc"

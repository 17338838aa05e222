#pragma once
// What the graph view lays out and shows, without the widget: the document
// and its name-scope grouping, the layout running on a LayoutJob and the
// view it is for, the layout on screen (kept so that expanding a scope lays
// out only its contents, see ExpansionPlan), the node to select once a
// layout lands, and the shape inference running beside the document's first
// layout. GraphView draws what this hands it and forwards requests here; a
// test can drive it with no widget at all.
#include <QObject>
#include <QString>
#include <cstddef>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "analysis/infer_shapes.h"
#include "ui/graphview/graphviz_layout.h"
#include "ui/graphview/incremental_layout.h"
#include "ui/graphview/layout_job.h"
#include "ui/graphview/name_scope_grouping.h"

namespace flowlens::ui {

struct GraphDocument;

// One view of the grouping and its layout: the boxes and edges, what the
// layout ran on, and the geometry it produced.
struct ViewLayout {
  VisibleGraph visible;
  LayoutInput input;
  LayoutResult layout;
};

class LayoutSession : public QObject {
  Q_OBJECT

 public:
  explicit LayoutSession(QObject* parent = nullptr);
  // Waits for the shape inference: it reads the document's graph.
  ~LayoutSession() override;

  // A new document (nullptr: none). Drops the running layout, what was
  // shown and the pending selection, groups the new graph, and starts shape
  // inference for a graph without errors (shape functions assume a valid
  // one) beside its first layout. Starts no layout.
  void set_document(std::shared_ptr<const GraphDocument> doc);
  const GraphDocument* document() const { return doc_.get(); }
  const Graph* graph() const;  // the document's; nullptr without one

  NameScopeGrouping& grouping() { return grouping_; }
  const NameScopeGrouping& grouping() const { return grouping_; }

  // The one entry point: lays out the grouping's current view and returns
  // the number of boxes being laid out, 0 when the view is empty (then
  // nothing runs). `expanded_scope`, the scope just expanded: while a layout
  // is shown and none is running, only its contents are laid out and merged
  // into the shown layout, which keeps everything else in place.
  std::size_t request_layout(const std::string& expanded_scope = {});
  bool running() const { return job_.running(); }
  // The aspect (width over height) of the screen area layouts are fitted
  // into; LayoutInput::target_aspect of the next layouts.
  void set_target_aspect(double aspect) { target_aspect_ = aspect; }
  // Obsoletes the running layout (neither finished() nor failed() follows)
  // and forgets the pending selection.
  void cancel();

  // The latest finished layout, which the scene shows; has_shown() is false
  // until one finished for this document.
  const ViewLayout& shown() const { return shown_; }
  bool has_shown() const { return has_shown_; }

  // The document's shapes once inference is done (waiting for it if it is
  // still running); nullptr when none were inferred.
  const ShapeInferenceResult* shapes();

  // A graph node to select once the running layout lands; -1 for none.
  void set_pending_selection(int node) { pending_select_ = node; }
  int pending_selection() const { return pending_select_; }
  int take_pending_selection() { return std::exchange(pending_select_, -1); }

 signals:
  // A layout finished and is now shown(). `expansion`: one scope's contents
  // were merged in and nothing else moved. `first`: the document's first
  // layout (which the view may replace with the scope overview).
  void finished(bool expansion, bool first);
  void failed(const QString& message);

 private:
  void on_finished(const LayoutResult& result);
  void wait_for_shapes();

  std::shared_ptr<const GraphDocument> doc_;
  NameScopeGrouping grouping_;
  LayoutJob job_;
  ViewLayout pending_;  // what the running layout is for (its layout still empty)
  std::optional<ExpansionPlan> pending_expansion_;  // set when the running layout is an expansion's contents
  ViewLayout shown_;
  bool has_shown_ = false;
  int pending_select_ = -1;
  double target_aspect_ = 1.5;
  bool first_layout_ = false;  // the document's first layout is still to land
  const ShapeInferenceResult* shapes_ = nullptr;  // the document's analysis's
  std::future<const ShapeInferenceResult*> shapes_future_;  // inference running beside the first layout
};

}  // namespace flowlens::ui

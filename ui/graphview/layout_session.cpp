#include "ui/graphview/layout_session.h"

#include <utility>

#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/side_areas.h"

namespace flowlens::ui {

LayoutSession::LayoutSession(QObject* parent) : QObject(parent) {
  connect(&job_, &LayoutJob::finished, this, [this](int, const LayoutResult& result) { on_finished(result); });
  connect(&job_, &LayoutJob::failed, this, [this](int, const QString& message) {
    pending_expansion_.reset();
    emit failed(message);
  });
}

LayoutSession::~LayoutSession() { wait_for_shapes(); }

const Graph* LayoutSession::graph() const { return doc_ ? doc_->graph.get() : nullptr; }

void LayoutSession::set_document(std::shared_ptr<const GraphDocument> doc) {
  job_.cancel();
  wait_for_shapes();  // a previous document's inference must finish before its graph may go
  shapes_ = nullptr;
  doc_ = std::move(doc);
  pending_ = {};
  pending_expansion_.reset();
  shown_ = {};
  has_shown_ = false;
  pending_select_ = -1;
  first_layout_ = true;
  grouping_.set_graph(doc_ ? doc_->graph : nullptr);
  // Edges need shapes only once the layout lands, so inference runs beside
  // the layout instead of before it (a fifth of a second for 100,000 nodes,
  // on the way to the first frame otherwise).
  if (doc_ && doc_->graph && doc_->error_count() == 0 && doc_->analysis)
    shapes_future_ = std::async(std::launch::async, [analysis = doc_->analysis] { return analysis->shapes(); });
}

std::size_t LayoutSession::request_layout(const std::string& expanded_scope) {
  pending_expansion_.reset();
  if (!graph()) return 0;
  VisibleGraph next = grouping_.visible();
  if (next.units.empty()) {  // nothing to lay out; Graphviz is not needed
    job_.cancel();
    return 0;
  }
  LayoutInput input = GraphScene::layout_input(next, *graph());
  input.target_aspect = target_aspect_;
  if (!expanded_scope.empty() && has_shown_ && !job_.running()) {
    // Null when not a single group opened (e.g. lone sub-scopes opened too):
    // then the whole view is laid out anew.
    auto plan = ExpansionPlan::make(shown_.visible, shown_.input, shown_.layout, next, input, expanded_scope);
    if (plan) {
      pending_ = {std::move(next), std::move(input), {}};
      const std::size_t boxes = plan->sub_input().boxes.size();
      job_.start(plan->sub_input());
      pending_expansion_ = std::move(plan);
      return boxes;
    }
  }
  const std::size_t boxes = next.units.size();
  pending_ = {std::move(next), std::move(input), {}};
  job_.start(pending_.input);
  return boxes;
}

void LayoutSession::cancel() {
  job_.cancel();
  pending_expansion_.reset();
  pending_select_ = -1;
}

void LayoutSession::on_finished(const LayoutResult& result) {
  const bool expansion = pending_expansion_.has_value();
  pending_.layout = expansion ? pending_expansion_->merge(result) : result;
  // The merge routes edges between the outside and the new members as
  // curves; those that touch a side box are stubs.
  if (expansion) draw_stub_edges(pending_.input, pending_.layout);
  pending_expansion_.reset();
  shown_ = std::move(pending_);
  pending_ = {};
  has_shown_ = true;
  const bool first = !expansion && std::exchange(first_layout_, false);
  emit finished(expansion, first);
}

const ShapeInferenceResult* LayoutSession::shapes() {
  wait_for_shapes();
  return shapes_;
}

void LayoutSession::wait_for_shapes() {
  if (shapes_future_.valid()) shapes_ = shapes_future_.get();
}

}  // namespace flowlens::ui

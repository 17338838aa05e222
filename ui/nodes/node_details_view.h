#pragma once
// The details of one node: name, op, device, inputs (links to their
// producers), consumers, the device it actually runs on after soft
// placement, its outputs' dtypes and shapes, attributes as "key: value" and the node's own
// diagnostics. Clicking a node link emits node_activated().
#include <QTextBrowser>
#include <memory>

#include "ui/document/node_facts.h"

namespace flowlens::ui {

struct GraphDocument;

class NodeDetailsView : public QTextBrowser {
  Q_OBJECT

 public:
  explicit NodeDetailsView(QWidget* parent = nullptr);

  // Shows node `index` of `doc`; an invalid index shows the placeholder.
  void show_node(std::shared_ptr<const GraphDocument> doc, int index);
  void clear_node();
  int node_index() const { return index_; }

 signals:
  void node_activated(const QString& name);

 private:
  void on_anchor(const QUrl& url);

  std::shared_ptr<const GraphDocument> doc_;
  int index_ = -1;
  // Placement and shapes of facts_doc_, kept while the same document is shown.
  std::shared_ptr<const GraphDocument> facts_doc_;
  std::unique_ptr<NodeFacts> facts_;
};

}  // namespace flowlens::ui

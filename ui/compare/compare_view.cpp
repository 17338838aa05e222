#include "ui/compare/compare_view.h"
#include "ui/util/std_text.h"

#include <cmath>

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QThreadPool>
#include <QSet>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include "common/error.h"
#include "observe/replica_compare.h"
#include "ui/compare/compare_marker_item.h"
#include "ui/compare/replica_comparison.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_item.h"

namespace flowlens::ui {
namespace {

QLabel* make_label(const QString& text, QWidget* parent, bool bold) {
  auto* label = new QLabel(text, parent);
  QFont f = label->font();
  if (bold) {
    f.setWeight(QFont::DemiBold);
    f.setPointSizeF(f.pointSizeF() * 1.1);
  }
  label->setFont(f);
  return label;
}

// A small swatch for the key: drawn with the marker's own colours.
QString swatch(const QColor& color, bool dashed, const QString& glyph) {
  return QStringLiteral("<span style=\"color:%1; font-weight:600;\">%2</span>&nbsp;%3")
      .arg(color.name(), glyph, dashed ? QStringLiteral("added by replication") : QStringLiteral("linked to selection"));
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("compareView"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);

  left_ = new GraphView;
  left_->setObjectName(QStringLiteral("originalGraphView"));
  right_ = new GraphView;
  right_->setObjectName(QStringLiteral("replicatedGraphView"));
  splitter_ = new QSplitter(Qt::Horizontal, this);
  splitter_->setObjectName(QStringLiteral("compareSplitter"));
  splitter_->setChildrenCollapsible(false);
  splitter_->setHandleWidth(5);
  splitter_->addWidget(make_pane(QStringLiteral("Original"), left_, &left_subtitle_));
  splitter_->addWidget(make_pane(QStringLiteral("Replicated (in-graph)"), right_, &right_subtitle_));
  // The replicated graph is the bigger one: give it more room.
  splitter_->setStretchFactor(0, 2);
  splitter_->setStretchFactor(1, 3);
  splitter_->setSizes({400, 600});  // scaled to the real width when shown
  layout->addWidget(splitter_, 1);

  // The key: what the two outlines mean.
  auto* key = new QLabel(this);
  key->setObjectName(QStringLiteral("compareLegend"));
  key->setTextFormat(Qt::RichText);
  key->setText(swatch(CompareMarkerItem::linked_color(), false, QStringLiteral("\u25A2")) +
               QStringLiteral("&nbsp;&nbsp;&nbsp;&nbsp;") +
               swatch(CompareMarkerItem::added_color(), true, QStringLiteral("\u2295")));
  key->setContentsMargins(10, 5, 10, 5);
  // The hint line beside the key: what the selection maps to on the other side.
  hint_ = new QLabel(this);
  hint_->setObjectName(QStringLiteral("compareHint"));
  hint_->setStyleSheet(QStringLiteral("color:#4b5563;"));
  hint_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  hint_->setContentsMargins(10, 5, 10, 5);
  auto* key_row = new QWidget(this);
  key_row->setAutoFillBackground(true);
  auto* key_layout = new QHBoxLayout(key_row);
  key_layout->setContentsMargins(0, 0, 0, 0);
  key_layout->addWidget(key);
  key_layout->addWidget(hint_, 1);
  loss_ = new QLabel(this);
  loss_->setObjectName(QStringLiteral("compareLoss"));
  loss_->setContentsMargins(10, 5, 4, 5);
  loss_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // A long error wraps inside the view; it never widens the window.
  loss_->setWordWrap(true);
  loss_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  loss_button_ = new QToolButton(this);
  loss_button_->setObjectName(QStringLiteral("compareLossButton"));
  loss_button_->setText(QStringLiteral("Compare Loss"));
  loss_button_->setToolTip(QStringLiteral("Run the original's loss and the towers' merged loss once, from the same "
                                          "initial variables, and show both"));
  connect(loss_button_, &QToolButton::clicked, this, &CompareView::compare_loss);
  key_layout->addWidget(loss_, 1);
  key_layout->addWidget(loss_button_);
  layout->addWidget(key_row);
  update_hint(QString(), false);

  connect(left_, &GraphView::node_selected, this, &CompareView::on_left_selected);
  connect(right_, &GraphView::node_selected, this, &CompareView::on_right_selected);
  connect(left_, &GraphView::layout_finished, this, [this] { mark(left_, linked_left_, false); });
  connect(right_, &GraphView::layout_finished, this, [this] { mark(right_, linked_right_, true); });
}

QWidget* CompareView::make_pane(const QString& title, GraphView* view, QLabel** subtitle) {
  auto* pane = new QWidget;
  auto* v = new QVBoxLayout(pane);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(0);
  auto* header = new QWidget(pane);
  header->setObjectName(QStringLiteral("compareHeader"));
  header->setAttribute(Qt::WA_StyledBackground);
  header->setStyleSheet(QStringLiteral("#compareHeader { background: #f1f3f6; border-bottom: 1px solid #d0d5dc; }"));
  auto* h = new QHBoxLayout(header);
  h->setContentsMargins(12, 6, 12, 6);
  auto* title_label = make_label(title, header, true);
  title_label->setObjectName(QStringLiteral("compareTitle"));
  *subtitle = make_label(QString(), header, false);
  (*subtitle)->setForegroundRole(QPalette::PlaceholderText);
  // A long summary must not widen the pane (and squeeze the docks): it is
  // cut at the pane's edge instead, with the full text as tooltip.
  (*subtitle)->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  (*subtitle)->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  h->addWidget(title_label);
  h->addSpacing(12);
  h->addWidget(*subtitle, 1);
  v->addWidget(header);
  v->addWidget(view, 1);
  return pane;
}

void CompareView::set_comparison(std::shared_ptr<const ReplicaComparison> comparison) {
  cmp_ = std::move(comparison);
  linked_left_.clear();
  linked_right_.clear();
  // One device, one colour, in both panes.
  std::vector<std::shared_ptr<const Graph>> both;
  if (cmp_) both = {cmp_->original()->graph, cmp_->replicated()->graph};
  left_->set_palette_peers(both);
  right_->set_palette_peers(both);
  left_->set_document(cmp_ ? cmp_->original() : nullptr);
  right_->set_document(cmp_ ? cmp_->replicated() : nullptr);
  left_subtitle_->setText(cmp_ ? cmp_->original()->file_name() : QString());
  right_subtitle_->setText(cmp_ ? cmp_->summary() : QString());
  left_subtitle_->setToolTip(left_subtitle_->text());
  right_subtitle_->setToolTip(right_subtitle_->text());
  update_hint(QString(), false);
  ++loss_generation_;
  loss_->clear();
  loss_button_->setEnabled(true);
  loss_button_->setVisible(cmp_ && !cmp_->options().loss.empty());
}

QString CompareView::loss_text() const { return loss_->text(); }

void CompareView::compare_loss() {
  if (!cmp_ || cmp_->options().loss.empty()) return;
  loss_button_->setEnabled(false);
  loss_->setText(QStringLiteral("computing the loss of both graphs\u2026"));
  const int generation = ++loss_generation_;
  const std::shared_ptr<const ReplicaComparison> cmp = cmp_;
  const FeedList feeds = feeds_source_ ? feeds_source_() : FeedList{};
  const QPointer<CompareView> self(this);
  // A CNN step takes seconds: the GUI stays responsive while both run.
  QThreadPool::globalInstance()->start([self, cmp, generation, feeds] {
    QString text;
    try {
      const TowerLossCheck check =
          compare_tower_loss(*cmp->original()->graph, *cmp->replicated()->graph, cmp->options().loss, feeds);
      text = QStringLiteral("loss: original %1 \u00B7 %2 towers %3 \u00B7 |\u0394| %4")
                 .arg(check.original, 0, 'g', 6)
                 .arg(cmp->options().replicas)
                 .arg(check.replicated, 0, 'g', 6)
                 .arg(std::abs(check.difference()), 0, 'g', 2);
    } catch (const Error& e) {
      text = QStringLiteral("cannot compare the loss: %1").arg(QString::fromStdString(e.what()));
    }
    QMetaObject::invokeMethod(
        qApp,
        [self, generation, text] {
          if (!self || generation != self->loss_generation_) return;
          self->loss_->setText(text);
          self->loss_->setToolTip(text);
          self->loss_button_->setEnabled(true);
          emit self->loss_compared();
        },
        Qt::QueuedConnection);
  });
}

bool CompareView::select_original(const QString& name) {
  if (!cmp_ || !left_->select_node(name)) return false;
  linked_left_.clear();
  linked_right_.clear();
  for (const std::string& r : cmp_->replicated_of(name.toStdString())) linked_right_ << qs(r);
  right_->graph_scene()->clearSelection();
  update_hint(name, true);
  mark(left_, linked_left_, false);
  mark(right_, linked_right_, true);
  return true;
}

bool CompareView::select_replicated(const QString& name) {
  if (!cmp_ || !right_->select_node(name)) return false;
  linked_left_.clear();
  linked_right_.clear();
  const std::string original = cmp_->original_of(name.toStdString());
  if (!original.empty()) linked_left_ << qs(original);
  left_->graph_scene()->clearSelection();
  update_hint(name, false);
  mark(left_, linked_left_, false);
  mark(right_, linked_right_, true);
  return true;
}

QString CompareView::hint_text(const QString& selected, bool in_original) const {
  if (selected.isEmpty() || !cmp_) return QStringLiteral("Select a node on either side to find its copies on the other.");
  const QStringList& other = in_original ? linked_right_ : linked_left_;
  if (other.isEmpty())
    return in_original ? QStringLiteral("%1 has no copy in the replicated graph.").arg(selected)
                       : QStringLiteral("%1 was added by replication: it has no original.").arg(selected);
  const QString where = in_original ? QStringLiteral("in the replicated graph") : QStringLiteral("in the original");
  if (other.size() == 1) return QStringLiteral("%1 \u2194 %2 %3").arg(selected, other.front(), where);
  constexpr int kNamed = 4;
  QStringList shown = other.mid(0, kNamed);
  if (other.size() > kNamed) shown << QStringLiteral("\u2026");
  return QStringLiteral("%1 \u2194 %2 copies %3: %4").arg(selected).arg(other.size()).arg(where, shown.join(QStringLiteral(", ")));
}

void CompareView::update_hint(const QString& selected, bool in_original) {
  hint_->setText(hint_text(selected, in_original));
  hint_->setToolTip(hint_->text());
}

void CompareView::on_left_selected(const QString& name) {
  select_original(name);
  emit original_node_selected(name);
}

void CompareView::on_right_selected(const QString& name) {
  select_replicated(name);
  emit replicated_node_selected(name);
}

void CompareView::mark(GraphView* view, const QStringList& linked, bool with_added) const {
  GraphScene* scene = view->graph_scene();
  for (QGraphicsItem* item : scene->items())
    if (item->type() == CompareMarkerItem::Type) {
      scene->removeItem(item);
      delete item;
    }
  if (!cmp_) return;
  const auto& doc = with_added ? cmp_->replicated() : cmp_->original();
  auto box_of = [&](const std::string& name) -> NodeItem* {
    const int index = doc->graph->index_of(name);
    return index < 0 ? nullptr : scene->item_for_node(index);
  };
  if (with_added) {
    // A collapsed scope holding added nodes gets one badge, so the Split
    // inside a collapsed "features" group is still findable.
    QSet<NodeItem*> badged;
    for (const std::string& name : cmp_->added())
      if (NodeItem* item = box_of(name); item && !badged.contains(item)) {
        badged.insert(item);
        scene->addItem(new CompareMarkerItem(CompareMarkerItem::Kind::Added, item->mapRectToScene(item->shape().boundingRect())));
      }
  }
  for (const QString& name : linked)
    if (NodeItem* item = box_of(name.toStdString()))
      scene->addItem(new CompareMarkerItem(CompareMarkerItem::Kind::Linked, item->mapRectToScene(item->shape().boundingRect())));
}

QString CompareView::hint() const { return hint_->text(); }

int CompareView::added_marker_count() const {
  int n = 0;
  for (QGraphicsItem* item : right_->graph_scene()->items())
    if (item->type() == CompareMarkerItem::Type &&
        static_cast<CompareMarkerItem*>(item)->kind() == CompareMarkerItem::Kind::Added)
      ++n;
  return n;
}

int CompareView::linked_marker_count() const {
  int n = 0;
  for (GraphView* v : {left_, right_})
    for (QGraphicsItem* item : v->graph_scene()->items())
      if (item->type() == CompareMarkerItem::Type &&
          static_cast<CompareMarkerItem*>(item)->kind() == CompareMarkerItem::Kind::Linked)
        ++n;
  return n;
}

bool CompareView::wait_for_layout(int timeout_ms) {
  const QDeadlineTimer deadline(timeout_ms);
  const bool a = left_->wait_for_layout(static_cast<int>(std::max<qint64>(1, deadline.remainingTime())));
  const bool b = right_->wait_for_layout(static_cast<int>(std::max<qint64>(1, deadline.remainingTime())));
  return a && b;
}

void CompareView::fit() {
  left_->fit_to_graph();
  right_->fit_to_graph();
}

void CompareView::zoom_in() {
  left_->zoom_in();
  right_->zoom_in();
}

void CompareView::zoom_out() {
  left_->zoom_out();
  right_->zoom_out();
}

}  // namespace flowlens::ui

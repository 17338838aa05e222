#include "ui/tboard/images_panel.h"

#include <QByteArray>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QListWidget>
#include <QPixmap>
#include <QScrollArea>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include "io/event_log.h"
#include "ui/tboard/dashboard_layout.h"
#include "ui/tboard/run_selection.h"

namespace flowlens::ui {
namespace {

constexpr int kImageTagRole = Qt::UserRole;
constexpr int kImageMinShownSide = 160;  // small images are enlarged to about this
constexpr int kImageMaxZoom = 8;

}  // namespace

struct ImagesPanel::Card {
  QFrame* frame = nullptr;
  QLabel* title = nullptr;
  QLabel* picture = nullptr;
  QLabel* caption = nullptr;
  QSlider* slider = nullptr;
  const std::vector<ImagePoint>* points = nullptr;
  QImage image;
  qint64 step = -1;
};

ImagesPanel::ImagesPanel(RunSelection* runs, QWidget* parent) : QWidget(parent), runs_(runs) {
  setObjectName(QStringLiteral("imagesPanel"));
  summary_ = new QLabel(this);
  tags_ = new QListWidget(this);
  tags_->setObjectName(QStringLiteral("imageTags"));
  auto* side = new QWidget(this);
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  side_layout->addWidget(runs_->make_view(side));
  side_layout->addWidget(tags_, 1);

  cards_ = new QWidget;
  cards_layout_ = new QGridLayout(cards_);
  cards_layout_->setContentsMargins(0, 0, 0, 0);
  lay_out_dashboard(this, summary_, side, cards_);

  connect(tags_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (item) show_tag(item->data(kImageTagRole).toString());
  });
  connect(runs_, &RunSelection::changed, this, [this] { show_tag(tag_); });
  clear();
}

ImagesPanel::~ImagesPanel() = default;

void ImagesPanel::clear() {
  log_.reset();
  tags_->clear();
  show_tag({});
  summary_->setText(QStringLiteral("No image summaries in this log"));
}

void ImagesPanel::set_log(std::shared_ptr<const EventLog> log) {
  clear();
  if (!log) return;
  log_ = std::move(log);
  std::map<QString, std::pair<int, qsizetype>> counts;
  for (const EventRun& run : log_->runs)
    for (const auto& [tag, points] : run.images) {
      auto& [runs, steps] = counts[QString::fromStdString(tag)];
      ++runs;
      steps += static_cast<qsizetype>(points.size());
    }
  for (const auto& [tag, c] : counts) {
    auto* item = new QListWidgetItem(QStringLiteral("%1  (%2)").arg(tag).arg(c.second), tags_);
    item->setData(kImageTagRole, tag);
    item->setToolTip(QStringLiteral("%1: %2 step(s) kept in %3 run(s)").arg(tag).arg(c.second).arg(c.first));
  }
  if (!counts.empty())
    summary_->setText(QStringLiteral("%1 image tag(s); up to %2 steps a tag are kept, as TensorBoard samples them")
                          .arg(counts.size())
                          .arg(EventLimits{}.images));
  if (tags_->count() > 0) tags_->setCurrentRow(0);
}

QStringList ImagesPanel::tags() const {
  QStringList out;
  for (int i = 0; i < tags_->count(); ++i) out << tags_->item(i)->data(kImageTagRole).toString();
  return out;
}

bool ImagesPanel::set_current_tag(const QString& tag) {
  for (int i = 0; i < tags_->count(); ++i)
    if (tags_->item(i)->data(kImageTagRole).toString() == tag) {
      tags_->setCurrentRow(i);
      show_tag(tag);
      return true;
    }
  return false;
}

QStringList ImagesPanel::shown_runs() const { return order_; }

QSlider* ImagesPanel::step_slider(const QString& run) const {
  auto it = cards_by_run_.find(run);
  return it == cards_by_run_.end() ? nullptr : it->second->slider;
}

qint64 ImagesPanel::current_step(const QString& run) const {
  auto it = cards_by_run_.find(run);
  return it == cards_by_run_.end() ? -1 : it->second->step;
}

QImage ImagesPanel::image(const QString& run) const {
  auto it = cards_by_run_.find(run);
  return it == cards_by_run_.end() ? QImage() : it->second->image;
}

QString ImagesPanel::caption(const QString& run) const {
  auto it = cards_by_run_.find(run);
  return it == cards_by_run_.end() ? QString() : it->second->caption->text();
}

void ImagesPanel::show_tag(const QString& tag) {
  for (auto& [run, card] : cards_by_run_) delete card->frame;
  cards_by_run_.clear();
  order_.clear();
  for (int r = 0; r < cards_layout_->rowCount(); ++r) cards_layout_->setRowStretch(r, 0);
  for (int col = 0; col < cards_layout_->columnCount(); ++col) cards_layout_->setColumnStretch(col, 0);
  tag_ = tag;
  if (log_ && !tag.isEmpty()) {
    const std::string key = tag.toStdString();
    for (const EventRun& run : log_->runs) {
      const QString name = QString::fromStdString(run.name);
      auto it = run.images.find(key);
      if (it == run.images.end() || it->second.empty() || !runs_->is_enabled(name)) continue;
      auto card = std::make_unique<Card>();
      card->points = &it->second;
      card->frame = new QFrame(cards_);
      card->frame->setObjectName(QStringLiteral("imageCard"));
      card->frame->setFrameShape(QFrame::StyledPanel);
      auto* layout = new QVBoxLayout(card->frame);
      card->title = new QLabel(QStringLiteral("<b>%1</b> \u2014 %2").arg(tag.toHtmlEscaped(), name.toHtmlEscaped()),
                               card->frame);
      card->picture = new QLabel(card->frame);
      card->picture->setObjectName(QStringLiteral("summaryImage"));
      card->picture->setAlignment(Qt::AlignLeft | Qt::AlignTop);
      card->caption = new QLabel(card->frame);
      card->slider = new QSlider(Qt::Horizontal, card->frame);
      card->slider->setObjectName(QStringLiteral("imageStep"));
      card->slider->setRange(0, static_cast<int>(it->second.size()) - 1);
      card->slider->setPageStep(1);
      card->slider->setToolTip(QStringLiteral("The step shown (of those kept)"));
      card->slider->setVisible(it->second.size() > 1);
      layout->addWidget(card->title);
      layout->addWidget(card->slider);
      layout->addWidget(card->caption);
      layout->addWidget(card->picture, 1);
      Card* raw = card.get();
      connect(card->slider, &QSlider::valueChanged, this, [this, raw](int index) { show_step(*raw, index); });
      constexpr int kImageCardsPerRow = 3;
      cards_layout_->addWidget(card->frame, static_cast<int>(order_.size()) / kImageCardsPerRow,
                               static_cast<int>(order_.size()) % kImageCardsPerRow, Qt::AlignTop);
      order_ << name;
      const int newest = static_cast<int>(it->second.size()) - 1;
      cards_by_run_[name] = std::move(card);
      raw->slider->setValue(newest);
      show_step(*raw, newest);  // also when the value did not change
    }
  }
  // Cards keep their size at the top left; the space left over stretches.
  cards_layout_->setRowStretch((static_cast<int>(order_.size()) + 2) / 3, 1);
  cards_layout_->setColumnStretch(std::min<int>(static_cast<int>(order_.size()), 3), 1);
}

void ImagesPanel::show_step(Card& card, int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= card.points->size()) return;
  const ImagePoint& p = (*card.points)[static_cast<std::size_t>(index)];
  card.step = p.step;
  // QImageReader's allocation limit (256 MB by default) bounds what a decode may take.
  card.image = QImage::fromData(QByteArray::fromRawData(p.encoded.data(), static_cast<qsizetype>(p.encoded.size())));
  card.image.detach();  // the bytes stay the log's; the image owns its pixels
  QString text = QStringLiteral("step %1 \u00b7 %2 of %3 kept").arg(p.step).arg(index + 1).arg(card.points->size());
  if (card.image.isNull()) {
    card.picture->clear();
    card.caption->setText(text + QStringLiteral(" \u00b7 %1 bytes that are not an image Qt can decode").arg(p.encoded.size()));
    return;
  }
  text += QStringLiteral(" \u00b7 %1\u00d7%2").arg(card.image.width()).arg(card.image.height());
  if ((p.width && p.width != card.image.width()) || (p.height && p.height != card.image.height()))
    text += QStringLiteral(" (the summary says %1\u00d7%2)").arg(p.width).arg(p.height);
  const int side = std::max(card.image.width(), card.image.height());
  const int zoom = std::clamp(kImageMinShownSide / std::max(side, 1), 1, kImageMaxZoom);
  if (zoom > 1) text += QStringLiteral(" \u00b7 shown \u00d7%1").arg(zoom);
  card.caption->setText(text);
  card.picture->setPixmap(QPixmap::fromImage(
      card.image.scaled(card.image.size() * zoom, Qt::KeepAspectRatio, Qt::FastTransformation)));
}

}  // namespace flowlens::ui

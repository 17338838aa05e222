#pragma once
// TensorBoard's Images dashboard over a log's image summaries
// (io/event_log.h's EventRun::images: a sample of steps per tag, at most
// EventLimits::images). For the chosen tag, one card per shown run (the
// shared run selector, run_selection.h): the image at the step its slider
// picks (the newest at first), decoded with QImage and enlarged by a whole
// factor when small (MNIST's 28x28), with the step, the size and what could
// not be decoded.
#include <QImage>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <map>
#include <memory>

class QLabel;
class QListWidget;
class QSlider;
class QGridLayout;

namespace flowlens {
struct EventLog;
}

namespace flowlens::ui {

class RunSelection;

class ImagesPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ImagesPanel(RunSelection* runs, QWidget* parent = nullptr);
  ~ImagesPanel() override;

  void set_log(std::shared_ptr<const EventLog> log);  // the first tag is shown
  void clear();

  QStringList tags() const;  // image tags of every run, sorted
  QString current_tag() const { return tag_; }
  bool set_current_tag(const QString& tag);

  QStringList shown_runs() const;              // runs with a card for the current tag
  QSlider* step_slider(const QString& run) const;  // index into that run's sampled steps
  qint64 current_step(const QString& run) const;   // -1 when the run has no card
  QImage image(const QString& run) const;      // decoded image at the slider's step (null if it did not decode)
  QString caption(const QString& run) const;   // "step 9 · 28×28" or what went wrong

  QListWidget* tag_list() const { return tags_; }

 private:
  struct Card;
  void show_tag(const QString& tag);
  void show_step(Card& card, int index);

  RunSelection* runs_;
  std::shared_ptr<const EventLog> log_;
  QString tag_;
  QLabel* summary_ = nullptr;
  QListWidget* tags_ = nullptr;
  QWidget* cards_ = nullptr;
  QGridLayout* cards_layout_ = nullptr;
  std::map<QString, std::unique_ptr<Card>> cards_by_run_;
  QStringList order_;
};

}  // namespace flowlens::ui

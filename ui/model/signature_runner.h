#pragma once
// Runs a SavedModel's (or a .meta file's) SignatureDefs off the UI thread.
// The first run loads the model with LoadedModel::load (variables restored,
// init op run) on the worker; later runs reuse it, as a served model would.
// One worker thread per run; its result reaches the UI thread through a
// queued call (ui/util/thread_handoff.h), so the engine never touches a widget.
// A new model, or destroying the runner, waits for a run in progress (the
// engine has no way to interrupt one) and drops the loaded model.
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "tensor/tensor.h"

namespace flowlens {
class LoadedModel;
}

namespace flowlens::ui {

struct ModelSource;

struct SignatureOutcome {
  bool ok = false;
  QString signature;
  QString error;                          // when !ok: the engine's message
  std::map<std::string, Tensor> outputs;  // by output key, when ok
  QStringList notes;                      // what loading did (first run only)
  double wall_ms = 0;                     // the run, without loading
  int run_number = 0;                     // 1, 2, ... per model
};

class SignatureRunner : public QObject {
  Q_OBJECT

 public:
  explicit SignatureRunner(QObject* parent = nullptr);
  ~SignatureRunner() override;

  // Waits for a run in progress, then forgets the loaded model.
  void set_model(std::shared_ptr<const ModelSource> model);
  const std::shared_ptr<const ModelSource>& model() const { return model_; }

  // False (with `error`) when no model is set or a run is going.
  bool start(const QString& signature, std::map<std::string, Tensor> inputs, QString* error = nullptr);
  bool busy() const { return busy_; }
  // Runs the event loop until the run in progress finished; false after `timeout_ms`.
  bool wait(int timeout_ms);

 signals:
  void started(const QString& signature);
  void finished(const flowlens::ui::SignatureOutcome& outcome);

 private:
  void work(int generation, std::shared_ptr<const ModelSource> model, QString signature,
            std::map<std::string, Tensor> inputs);
  void on_finished(int generation, const SignatureOutcome& outcome);
  void join();

  std::shared_ptr<const ModelSource> model_;
  std::unique_ptr<LoadedModel> loaded_;  // touched by the worker only while a run is going
  std::thread worker_;
  std::atomic<int> generation_{0};  // results for an older model are dropped
  bool busy_ = false;
  int run_number_ = 0;
};

}  // namespace flowlens::ui

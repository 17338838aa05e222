#include "ui/model/signature_runner.h"

#include <QEventLoop>
#include <QMetaObject>
#include <QTimer>
#include <chrono>
#include <exception>

#include "exec/loaded_model.h"
#include "ui/model/model_source.h"
#include "ui/util/thread_handoff.h"

namespace flowlens::ui {

SignatureRunner::SignatureRunner(QObject* parent) : QObject(parent) {}

SignatureRunner::~SignatureRunner() { join(); }

void SignatureRunner::join() {
  if (worker_.joinable()) worker_.join();
}

void SignatureRunner::set_model(std::shared_ptr<const ModelSource> model) {
  ++generation_;  // a result still queued belongs to the previous model
  join();
  busy_ = false;
  loaded_.reset();
  run_number_ = 0;
  model_ = std::move(model);
}

bool SignatureRunner::start(const QString& signature, std::map<std::string, Tensor> inputs, QString* error) {
  auto fail = [&](const QString& text) {
    if (error) *error = text;
    return false;
  };
  if (!model_) return fail(QStringLiteral("No SavedModel or meta graph is open"));
  if (busy_) return fail(QStringLiteral("A signature is already running"));
  join();  // the previous worker has posted its result and is leaving
  busy_ = true;
  emit started(signature);
  worker_ = std::thread(&SignatureRunner::work, this, generation_.load(), model_, signature, std::move(inputs));
  return true;
}

void SignatureRunner::work(int generation, std::shared_ptr<const ModelSource> model, QString signature,
                           std::map<std::string, Tensor> inputs) {
  SignatureOutcome outcome;
  outcome.signature = signature;
  try {
    if (!loaded_) {
      ModelLoadOptions options;
      options.tags = model->meta.tags;  // the meta graph the document shows
      options.checkpoint = model->checkpoint_prefix;
      loaded_ = std::make_unique<LoadedModel>(LoadedModel::load(model->path, options));
      for (const std::string& note : loaded_->notes()) outcome.notes << QString::fromStdString(note);
    }
    const auto begin = std::chrono::steady_clock::now();
    outcome.outputs = loaded_->run_signature(signature.toStdString(), inputs);
    outcome.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    for (auto& [key, value] : outcome.outputs) value = value.to_host();
    outcome.ok = true;
  } catch (const std::exception& e) {
    outcome.error = QString::fromStdString(e.what());
  } catch (...) {
    outcome.error = QStringLiteral("unexpected error while running the signature");
  }
  // handed(): the queued call crosses threads inside Qt (ui/util/thread_handoff.h).
  QMetaObject::invokeMethod(this, handoff::handed([this, generation, outcome] { on_finished(generation, outcome); }),
                            Qt::QueuedConnection);
}

void SignatureRunner::on_finished(int generation, const SignatureOutcome& result) {
  if (generation != generation_) return;
  join();
  busy_ = false;
  SignatureOutcome outcome = result;
  outcome.run_number = ++run_number_;
  emit finished(outcome);
}

bool SignatureRunner::wait(int timeout_ms) {
  if (!busy_) return true;
  QEventLoop loop;
  QTimer timer;
  timer.setSingleShot(true);
  connect(this, &SignatureRunner::finished, &loop, &QEventLoop::quit);
  connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
  timer.start(timeout_ms);
  loop.exec();
  return !busy_;
}

}  // namespace flowlens::ui

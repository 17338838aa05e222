// flowlens-run on the convolutional training graphs TensorFlow writes
// (tests/data/keras_cnn_step, tests/data/small_cnn): the Keras train step
// runs under `train` with its data arguments fed from .npy files and its
// variables from --init-args random, every op known, and learns; mnist_deep steps its
// train op under `run` with the variables initialized automatically.
#include "test_main.h"
#include <QtTest>

#include "cli/cli_runner.h"
#include "tensor/npy.h"

using flowlens::testing::CliResult;
using flowlens::testing::flowlens_run;

namespace {

const QString kKerasStep = QStringLiteral(FLOWLENS_TEST_DATA "/keras_cnn_step/train_step.pbtxt");
const QString kKerasMixed = QStringLiteral(FLOWLENS_TEST_DATA "/keras_cnn_step/train_step_mixed.pbtxt");
const QString kMnistDeep = QStringLiteral(FLOWLENS_TEST_DATA "/small_cnn/mnist_deep.pbtxt");

// "step N: loss X" lines -> X per step.
QList<double> losses(const QString& out) {
  QList<double> values;
  static const QRegularExpression line(R"(^step (\d+): loss ([-0-9.eE+naninf]+)$)", QRegularExpression::MultilineOption);
  for (auto it = line.globalMatch(out); it.hasNext();) values.append(it.next().captured(2).toDouble());
  return values;
}

}  // namespace

class TestRealCnnExportsCommand : public QObject {
  Q_OBJECT
 private slots:
  void train_runs_the_keras_step_fed_from_npy_files() {
    QTemporaryDir dir;
    const QString images = dir.filePath("images.npy"), labels = dir.filePath("labels.npy");
    std::vector<float> pixels(8 * 16 * 16 * 3);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<float>(i % 7) / 7.0f - 0.5f;
    flowlens::write_npy(flowlens::Tensor::from_vector<float>({8, 16, 16, 3}, pixels), images.toStdString());
    flowlens::write_npy(flowlens::Tensor::from_vector<int32_t>({8}, {0, 1, 2, 3, 4, 5, 6, 7}), labels.toStdString());
    for (const QString& graph : {kKerasStep, kKerasMixed}) {
      // The step's own loss (retval:1 is Keras's loss metric, the mean over the steps so far).
      const CliResult r = flowlens_run({"train", graph, "--init-args", "random", "--feed", "images=" + images,
                                        "--feed", "arg:1=" + labels, "--steps", "25", "--loss",
                                        "sparse_categorical_crossentropy/weighted_loss/value"});
      QVERIFY2(r.code == 0, qPrintable(r.err));
      QVERIFY2(r.err.contains("52 argument(s), 2 return value(s)"), qPrintable(r.err));
      QVERIFY2(r.err.contains("note: initialized 50 resource argument(s) with random"), qPrintable(r.err));
      // One note per role whose default --init-args random used.
      for (const char* note : {"3 resource argument(s) reaching FusedBatchNorm scale start at 1 ",
                               "3 resource argument(s) reaching FusedBatchNorm variance start at 1 ",
                               "1 resource argument(s) reaching Adam lr start at 0.001 ",
                               "1 resource argument(s) reaching Adam beta1 start at 0.9 ",
                               "1 resource argument(s) reaching Adam beta2 start at 0.999 "})
        QVERIFY2(r.err.contains(QString("note: --init-args random: ") + note), qPrintable(r.err));
      QCOMPARE(r.err.count("note: --init-args random: "), 5);
      // With gamma and moving variance at one and Adam's hyperparameters at
      // Keras's defaults, the step learns: the loss falls every step.
      const QList<double> l = losses(r.out);
      QCOMPARE(l.size(), 25);
      for (qsizetype i = 1; i < l.size(); ++i) QVERIFY2(l[i] < l[i - 1], qPrintable(r.out));
      QVERIFY2(l.last() < 0.85 * l.first(), qPrintable(r.out));
    }
  }

  void train_reports_a_data_argument_not_fed() {
    const CliResult r = flowlens_run({"train", kKerasStep, "--init-args", "random", "--steps", "1"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("arg:0 'images' (float32 [8,16,16,3])"), qPrintable(r.err));
    QVERIFY2(r.err.contains("arg:1 'labels' (int32 [8])"), qPrintable(r.err));
  }

  void run_steps_mnist_deep_train_op() {
    QTemporaryDir dir;
    const QString x = dir.filePath("x.npy"), y = dir.filePath("y.npy");
    std::vector<float> pixels, onehot;
    for (int i = 0; i < 10; ++i) {
      for (int p = 0; p < 784; ++p) pixels.push_back((p / 28) / 3 == i ? 1.0f : 0.0f);
      for (int k = 0; k < 10; ++k) onehot.push_back(k == i ? 1.0f : 0.0f);
    }
    flowlens::write_npy(flowlens::Tensor::from_vector<float>({10, 784}, pixels), x.toStdString());
    flowlens::write_npy(flowlens::Tensor::from_vector<float>({10, 10}, onehot), y.toStdString());
    const CliResult r = flowlens_run({"run", kMnistDeep, "--feed", "Placeholder=" + x, "--feed", "Placeholder_1=" + y,
                                      "--feed", "dropout/Placeholder=1.0", "--fetch", "Mean", "--target",
                                      "adam_optimizer/Adam", "--steps", "12"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("initializing 26 variable(s) first"), qPrintable(r.err));
    QList<double> l;
    static const QRegularExpression line(R"(^Mean = ([-0-9.eE+]+)$)", QRegularExpression::MultilineOption);
    for (auto it = line.globalMatch(r.out); it.hasNext();) l.append(it.next().captured(1).toDouble());
    QCOMPARE(l.size(), 12);
    QVERIFY2(l.last() < 0.5 * l.first(), qPrintable(r.out));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestRealCnnExportsCommand)
#include "test_real_cnn_exports_command.moc"

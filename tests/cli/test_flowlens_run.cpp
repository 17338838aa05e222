// flowlens-run as a user drives it: exit codes, output and error messages.
#include "test_main.h"
#include <QtTest>

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>

#include "cli/cli_runner.h"
#include <cstring>

#include "tensor/npy.h"

using flowlens::testing::CliResult;
using flowlens::testing::flowlens_run;
using flowlens::testing::sample;

namespace {

// y = x * x for a float placeholder x, written as DIR/sq.pbtxt ("" if it
// cannot be written).
QString write_square_graph(const QTemporaryDir& dir) {
  const QString path = dir.filePath(QStringLiteral("sq.pbtxt"));
  QFile g(path);
  if (!g.open(QIODevice::WriteOnly)) return QString();
  g.write("node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
          "node { name: 'y' op: 'Mul' input: 'x' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } }\n");
  return path;
}

}  // namespace

class TestFlowlensRun : public QObject {
  Q_OBJECT
 private slots:
  void help_everywhere() {
    for (QStringList args : {QStringList{"--help"}, {"info", "--help"}, {"run", "--help"}, {"convert", "--help"}}) {
      CliResult r = flowlens_run(args);
      QCOMPARE(r.code, 0);
      QVERIFY2(r.out.contains("Usage") || r.out.contains("usage"), qPrintable(r.out));
    }
  }

  // The CNN sample is what `template cnn` writes (so the two never drift
  // apart), and it trains: the loss falls over 40 steps. Bad template
  // options are usage errors naming the option.
  void template_writes_the_cnn_sample_and_it_trains() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("cnn.pbtxt"));
    CliResult r = flowlens_run({"template", "cnn", "-o", out, "--batch", "16", "--image-size", "16", "--classes", "4",
                                "--filters", "8,16"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QFile written(out), bundled(sample("cnn_train.pbtxt"));
    QVERIFY(written.open(QIODevice::ReadOnly) && bundled.open(QIODevice::ReadOnly));
    QVERIFY2(written.readAll() == bundled.readAll(), "samples/cnn_train.pbtxt differs from `template cnn`'s output");
    r = flowlens_run({"train", sample("cnn_train.pbtxt"), "--steps", "40"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QRegularExpression loss(QStringLiteral("loss ([0-9.]+) -> ([0-9.]+)"));
    const QRegularExpressionMatch m = loss.match(r.out + r.err);
    QVERIFY2(m.hasMatch(), qPrintable(r.out));
    QVERIFY2(m.captured(2).toDouble() < 0.75 * m.captured(1).toDouble(), qPrintable(m.captured(0)));
    r = flowlens_run({"template", "cnn", "-o", out, "--image-size", "2", "--filters", "8,8"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains(QLatin1String("too small")), qPrintable(r.err));
    r = flowlens_run({"template", "resnet", "-o", out});
    QVERIFY(r.code != 0);
  }

  void no_arguments_is_a_usage_error() {
    CliResult r = flowlens_run({});
    QVERIFY(r.code != 0);
  }

  void samples_print_the_article_result() {
    for (const char* s : {"matmul_baseline.pbtxt", "matmul_in_graph.pbtxt"}) {
      CliResult r = flowlens_run({"run", sample(s), "--fetch", "output"});
      QVERIFY2(r.code == 0, qPrintable(r.err));
      QVERIFY2(r.out.contains("output = [[9],[21],[33],[45]]"), qPrintable(r.out));
      QVERIFY2(r.err.contains("soft placement"), qPrintable(r.err));
    }
  }

  void info_reports_soft_placement() {
    CliResult r = flowlens_run({"info", sample("matmul_in_graph.pbtxt")});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY(r.out.contains("MatMul"));
    QVERIFY(r.out.contains("/gpu:1"));
    QVERIFY2(r.out.contains("soft placement") && r.out.contains("no GPU device is available"), qPrintable(r.out));
    QVERIFY(r.out.contains("validation: ok"));
  }

  void device_flags_report_gpus_and_refuse_bad_values() {
    CliResult r = flowlens_run({"info", sample("matmul_baseline.pbtxt"), "--virtual-gpus", "2", "--gpu-math", "tf32"});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    // Either the GPUs found or why there are none, on every machine.
    QVERIFY2(r.out.contains(QRegularExpression("this machine: 1 CPU, \\d+ GPU; (no NVIDIA GPU found; GPU ops run on "
                                               "the CPU|no GPU|\\d+ GPUs?)")),
             qPrintable(r.out));
    // A machine without a driver is the common case, said in the user's words.
    QVERIFY2(!r.out.contains("driver version is insufficient"), qPrintable(r.out));
    r = flowlens_run({"info", sample("matmul_baseline.pbtxt"), "--cpu-only"});
    QVERIFY2(r.out.contains("0 GPU; GPUs not used"), qPrintable(r.out));
    r = flowlens_run({"run", sample("matmul_baseline.pbtxt"), "--fetch", "output", "--cpu-only"});
    QVERIFY2(r.code == 0 && r.out.contains("[[9],[21],[33],[45]]"), qPrintable(r.out + r.err));
    r = flowlens_run({"run", sample("matmul_baseline.pbtxt"), "--fetch", "output", "--gpu-math", "fp64"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("--gpu-math"), qPrintable(r.err));
    r = flowlens_run({"train", sample("mlp_train.pbtxt"), "--virtual-gpus", "0"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("--virtual-gpus"), qPrintable(r.err));
  }

  // --threads / --intra-op-threads set the session's thread budget on run and
  // train, are described in --help, and refuse negative counts naming the flag.
  void thread_budget_flags() {
    for (const char* cmd : {"run", "train"}) {
      CliResult r = flowlens_run({cmd, "--help"});
      QVERIFY2(r.out.contains("--intra-op-threads") && r.out.contains("Inter-op threads"), qPrintable(r.out));
    }
    CliResult r = flowlens_run({"run", sample("matmul_baseline.pbtxt"), "--fetch", "output", "--threads", "1",
                                "--intra-op-threads", "1"});
    QVERIFY2(r.code == 0 && r.out.contains("[[9],[21],[33],[45]]"), qPrintable(r.out + r.err));
    r = flowlens_run({"train", sample("mlp_train.pbtxt"), "--steps", "2", "--threads", "2", "--intra-op-threads", "3"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    for (const char* cmd : {"run", "train"}) {
      r = flowlens_run({cmd, sample("matmul_baseline.pbtxt"), "--intra-op-threads", "-1"});
      QVERIFY(r.code != 0);
      QVERIFY2(r.err.contains("--intra-op-threads"), qPrintable(r.err));
    }
  }

  void convert_round_trip_runs_the_same() {
    QTemporaryDir dir;
    QString pb = dir.filePath("g.pb"), text = dir.filePath("g.pbtxt"), dot = dir.filePath("g.dot");
    QCOMPARE(flowlens_run({"convert", sample("matmul_in_graph.pbtxt"), "-o", pb}).code, 0);
    QCOMPARE(flowlens_run({"convert", pb, "-o", text}).code, 0);
    QCOMPARE(flowlens_run({"convert", text, "-o", dot}).code, 0);
    CliResult r = flowlens_run({"run", pb, "--fetch", "output"});
    QVERIFY2(r.out.contains("[[9],[21],[33],[45]]"), qPrintable(r.out + r.err));
    QFile f(dot);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains("digraph"));
  }

  // A TF 2.x style graph whose work is in its function library: info lists
  // the functions' signatures, run calls them (a StatelessWhile summing 1..10,
  // an If, a function called by name).
  void runs_a_graph_with_a_function_library() {
    const QString g = QStringLiteral(FLOWLENS_TEST_DATA "/functions/library.pbtxt");
    CliResult r = flowlens_run({"info", g});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("add_mul(a: float32, b: float32) -> (identity: float32)"), qPrintable(r.out));
    QVERIFY2(r.out.contains("square_generic(x: T) -> (y: T)"), qPrintable(r.out));
    r = flowlens_run({"run", g, "--cpu-only", "--feed", "n=10", "--feed", "flag=true", "--feed", "x=[1.5, 2]",
                      "--fetch", "loop:1,cond_if,sq_float"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("loop:1 = 55"), qPrintable(r.out));
    QVERIFY2(r.out.contains("cond_if = [3,4]"), qPrintable(r.out));
    QVERIFY2(r.out.contains("sq_float = [2.25,4]"), qPrintable(r.out));
  }

  void feeds_and_saves_npy() {
    QTemporaryDir dir;
    const QString graph = write_square_graph(dir);
    QVERIFY(!graph.isEmpty());
    QString in = dir.filePath("x.npy");
    flowlens::write_npy(flowlens::Tensor::from_vector<float>({3}, {1, 2, 3}), in.toStdString());
    CliResult r = flowlens_run({"run", graph, "--feed", "x=" + in, "--fetch", "y", "--save", dir.filePath("out")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("y = [1,4,9]"), qPrintable(r.out));
    flowlens::Tensor y = flowlens::read_npy(dir.filePath("out/y.npy").toStdString());
    QCOMPARE(y.data<float>()[2], 9.0f);
  }

  // Fetches print as NumPy prints them: a 2048x4 result elided to its
  // corners, small ones whole; --edge-items 0 prints every element.
  void large_fetches_print_elided() {
    QTemporaryDir dir;
    const QString graph = write_square_graph(dir);
    QVERIFY(!graph.isEmpty());
    std::vector<float> values(2048 * 4, 2.0f);
    const QString in = dir.filePath("x.npy");
    flowlens::write_npy(flowlens::Tensor::from_vector<float>({2048, 4}, values), in.toStdString());
    CliResult r = flowlens_run({"run", graph, "--feed", "x=" + in, "--fetch", "y"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("y = [[4,4,4,4],[4,4,4,4],[4,4,4,4],...,[4,4,4,4],[4,4,4,4],[4,4,4,4]]"), qPrintable(r.out));
    r = flowlens_run({"run", graph, "--feed", "x=" + in, "--fetch", "y", "--edge-items", "0"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QRegularExpressionMatch line = QRegularExpression(QStringLiteral("^y = (.*)$"),
                                                            QRegularExpression::MultilineOption).match(r.out);
    QVERIFY2(line.hasMatch(), qPrintable(r.out));
    QCOMPARE(line.captured(1).count(QLatin1Char('4')), 2048 * 4);
    QVERIFY(!line.captured(1).contains(QStringLiteral("...")));
  }

  // --feed name=VALUE reads a typed-in value as the placeholder's dtype;
  // Print goes to stderr and PrintV2's output_stream='stdout' to stdout.
  void typed_feeds_and_print_ops() {
    QTemporaryDir dir;
    QFile g(dir.filePath("strings.pbtxt"));
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write("node { name: 's' op: 'Placeholder' attr { key: 'dtype' value { type: DT_STRING } } }\n"
            "node { name: 'bucket' op: 'StringToHashBucketFast' input: 's' attr { key: 'num_buckets' value { i: 3 } } }\n"
            "node { name: 'h' op: 'Placeholder' attr { key: 'dtype' value { type: DT_HALF } } }\n"
            "node { name: 'i8' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT8 } } }\n"
            "node { name: 'p' op: 'Print' input: 'h' input: 'i8' attr { key: 'T' value { type: DT_HALF } }"
            "  attr { key: 'U' value { list { type: DT_INT8 } } } attr { key: 'message' value { s: 'i8: ' } } }\n"
            "node { name: 'fmt' op: 'StringFormat' input: 's' attr { key: 'T' value { list { type: DT_STRING } } }"
            "  attr { key: 'template' value { s: 'words: {}' } } attr { key: 'placeholder' value { s: '{}' } } }\n"
            "node { name: 'out' op: 'PrintV2' input: 'fmt' attr { key: 'output_stream' value { s: 'stdout' } } }\n");
    g.close();
    CliResult r = flowlens_run({"run", g.fileName(), "--feed", R"(s=["Hello", 'TensorFlow', "2.x"])", "--feed",
                                "h=[0.1, 2049]", "--feed", "i8=[-128, 127]", "--fetch", "bucket,p,s", "--target", "out"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("bucket = [0,2,2]"), qPrintable(r.out));
    QVERIFY2(r.out.contains("p = [0.1,2048]"), qPrintable(r.out));
    QVERIFY2(r.out.contains("s = [\"Hello\",\"TensorFlow\",\"2.x\"]"), qPrintable(r.out));
    QVERIFY2(r.out.contains("words: [\"Hello\" \"TensorFlow\" \"2.x\"]\n"), qPrintable(r.out));
    QVERIFY2(r.err.contains("i8: [-128 127]\n"), qPrintable(r.err));
    QVERIFY2(!r.out.contains("i8: "), qPrintable(r.out));

    r = flowlens_run({"run", g.fileName(), "--feed", "i8=[1, 300]", "--feed", "h=1", "--fetch", "p"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("--feed 'i8': '300' at column 5 is out of range for int8"), qPrintable(r.err));
    r = flowlens_run({"run", g.fileName(), "--feed", "nope=1", "--fetch", "p"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("--feed 'nope': no node named 'nope'"), qPrintable(r.err));

    // A float16 .npy feeds the float16 placeholder as it is.
    flowlens::Tensor half(flowlens::DType::Half, {2});
    const uint16_t bits[2] = {0x3555, 0xFBFF};  // 0.3333, -65504
    std::memcpy(half.raw_data(), bits, sizeof bits);
    const QString npy = dir.filePath("h.npy");
    flowlens::write_npy(half, npy.toStdString());
    r = flowlens_run({"run", g.fileName(), "--feed", "h=" + npy, "--feed", "i8=0", "--fetch", "p"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("p = [0.3333,-65500]"), qPrintable(r.out));
  }

  void bad_input_gives_clear_errors() {
    QTemporaryDir dir;
    QFile bad(dir.filePath("broken.pbtxt"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("node {\n  name: 'a'\n  op: 'Const'\n  bogus_field: 1\n}\n");
    bad.close();
    CliResult r = flowlens_run({"info", bad.fileName()});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("broken.pbtxt:4:"), qPrintable(r.err));

    r = flowlens_run({"run", sample("matmul_baseline.pbtxt"), "--fetch", "nothing_here"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("no node named 'nothing_here'"), qPrintable(r.err));

    r = flowlens_run({"run", sample("matmul_baseline.pbtxt"), "--fetch", "output", "--feed", "x"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("expected name=file.npy or name=VALUE"), qPrintable(r.err));

    r = flowlens_run({"run", sample("matmul_baseline.pbtxt"), "--fetch", "output", "--no-auto-init"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("uninitialized value"), qPrintable(r.err));

    r = flowlens_run({"run", dir.filePath("missing.pbtxt"), "--fetch", "x"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("missing.pbtxt"), qPrintable(r.err));

    r = flowlens_run({"convert", sample("matmul_baseline.pbtxt"), "-o", dir.filePath("out.xyz")});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("out.xyz"), qPrintable(r.err));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestFlowlensRun)
#include "test_flowlens_run.moc"

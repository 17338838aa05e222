// flowlens-run ops: the op set printed from the registry, and the op table of
// docs/ops.md ("What runs") kept equal to what the registry says.
#include "test_main.h"
#include <QtTest/QtTest>

#include <QFile>
#include <QRegularExpression>

#include "cli/cli_runner.h"
#include "ops/framework/op_registry.h"

using namespace flowlens;
using namespace flowlens::testing;

class TestOpsCommand : public QObject {
  Q_OBJECT

 private slots:
  void lists_every_registered_op() {
    const CliResult r = flowlens_run({"ops"});
    QCOMPARE(r.code, 0);
    const auto names = OpRegistry::global().op_names();
    QVERIFY2(r.out.contains(QStringLiteral("%1 ops;").arg(names.size())), qPrintable(r.out.right(200)));
    for (const std::string& name : names)
      QVERIFY2(r.out.contains(QRegularExpression(QStringLiteral("^%1 ").arg(QRegularExpression::escape(QString::fromStdString(name))),
                                                 QRegularExpression::MultilineOption)),
               name.c_str());
  }

  void shows_an_op_in_tensorflows_syntax() {
    const CliResult r = flowlens_run({"ops", "Sum", "ConcatV2"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("attr    keep_dims: bool = false"));
    QVERIFY(r.out.contains("attr    Tidx: {int32, int64} = DT_INT32"));
    QVERIFY(r.out.contains("input   values: N * T"));
    QVERIFY(r.out.contains("attr    N: int >= 2"));
    QVERIFY(r.out.contains("kernel  CPU:"));
    QVERIFY(r.out.contains("gradient: yes"));
  }

  void filters_by_category() {
    const CliResult r = flowlens_run({"ops", "--category", "nn"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("BiasAdd "));
    QVERIFY(!r.out.contains("MatMul "));
  }

  void refuses_unknown_ops_and_categories() {
    CliResult r = flowlens_run({"ops", "NoSuchOp"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("unknown op 'NoSuchOp'"), qPrintable(r.err));
    r = flowlens_run({"ops", "--category", "bogus"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("'bogus' is not one of"), qPrintable(r.err));
  }

  // docs/ops.md's table is `flowlens-run ops --format markdown` of a CUDA build
  // (the CI's); a change to the op set regenerates it.
  void docs_ops_table_is_current() {
#ifndef FLOWLENS_WITH_CUDA
    QSKIP("docs/ops.md's table lists GPU kernels: compared in CUDA builds only");
#else
    QFile page(QStringLiteral(FLOWLENS_SAMPLES "/../docs/ops.md"));
    QVERIFY(page.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(page.readAll());
    const QString begin = QStringLiteral("<!-- ops table: flowlens-run ops --format markdown -->\n");
    const QString end = QStringLiteral("<!-- end of ops table -->");
    const qsizetype b = text.indexOf(begin), e = text.indexOf(end);
    QVERIFY2(b >= 0 && e > b, "docs/ops.md lacks the ops table markers");
    const QString table = text.mid(b + begin.size(), e - b - begin.size());
    const CliResult r = flowlens_run({"ops", "--format", "markdown"});
    QCOMPARE(r.code, 0);
    QVERIFY2(table == r.out, "docs/ops.md's op table is stale: regenerate it with "
                             "build/bin/flowlens-run ops --format markdown");
#endif
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestOpsCommand)
#include "test_ops_command.moc"

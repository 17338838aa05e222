// DeviceSpec follows TensorFlow's DeviceNameUtils: full and legacy forms,
// wildcards, canonical printing, MergeDevNames and IsSpecification.
#include "test_main.h"
#include <QtTest>

#include "common/error.h"
#include "graph/device_spec.h"

using namespace flowlens;

namespace {
std::string canonical(const char* text) { return DeviceSpec::parse(text).to_string(); }

std::string parse_error(const char* text) {
  try {
    DeviceSpec::parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

class TestDeviceSpec : public QObject {
  Q_OBJECT

 private slots:
  void full_name() {
    DeviceSpec d = DeviceSpec::parse("/job:ps/replica:0/task:1/device:GPU:0");
    QCOMPARE(d.job, std::optional<std::string>("ps"));
    QCOMPARE(d.replica, std::optional<int>(0));
    QCOMPARE(d.task, std::optional<int>(1));
    QCOMPARE(d.type, std::optional<std::string>("GPU"));
    QCOMPARE(d.id, std::optional<int>(0));
    QCOMPARE(d.to_string(), std::string("/job:ps/replica:0/task:1/device:GPU:0"));
  }

  void canonical_forms_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty") << "" << "";
    QTest::newRow("legacy cpu") << "/cpu:0" << "/device:CPU:0";
    QTest::newRow("legacy gpu") << "/gpu:1" << "/device:GPU:1";
    QTest::newRow("legacy upper") << "/GPU:3" << "/device:GPU:3";
    QTest::newRow("legacy wildcard") << "/cpu:*" << "/device:CPU:*";
    QTest::newRow("job task legacy") << "/job:worker/task:0/cpu:0" << "/job:worker/task:0/device:CPU:0";
    QTest::newRow("device wildcard id") << "/device:CPU:*" << "/device:CPU:*";
    QTest::newRow("device no id") << "/device:GPU" << "/device:GPU:*";
    QTest::newRow("lower type") << "/device:gpu:0" << "/device:GPU:0";
    QTest::newRow("custom type") << "/device:XLA_CPU:0" << "/device:XLA_CPU:0";
    QTest::newRow("wildcard task") << "/job:w/replica:*/task:*" << "/job:w";
    QTest::newRow("wildcard job") << "/job:*/task:2" << "/task:2";
    QTest::newRow("wildcard type") << "/device:*:1" << "/device:*:1";
    QTest::newRow("any order") << "/device:CPU:0/job:a" << "/job:a/device:CPU:0";
    QTest::newRow("later wins") << "/task:1/task:2" << "/task:2";
    QTest::newRow("trailing slash") << "/job:localhost/" << "/job:localhost";
    QTest::newRow("underscore job") << "/job:my_job2/replica:12" << "/job:my_job2/replica:12";
  }

  void canonical_forms() {
    QFETCH(QString, input);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(canonical(input.toUtf8().constData())), expected);
    // Canonical output parses back to the same spec.
    DeviceSpec d = DeviceSpec::parse(input.toStdString());
    QCOMPARE(DeviceSpec::parse(d.to_string()), d);
  }

  void errors_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("no slash") << "gpu:0" << "must start with '/'";
    QTest::newRow("no slash job") << "job:ps" << "must start with '/'";
    QTest::newRow("bad component") << "/foo:1" << "'/foo:1'";
    QTest::newRow("bad job") << "/job:1ps" << "bad job name";
    QTest::newRow("empty job") << "/job:/task:0" << "bad job name";
    QTest::newRow("job trailing junk") << "/job:foo-bar" << "'-bar'";
    QTest::newRow("bad replica") << "/replica:x" << "bad replica";
    QTest::newRow("negative task") << "/task:-1" << "bad task";
    QTest::newRow("task junk") << "/task:1x" << "'x'";
    QTest::newRow("bad type") << "/device:0" << "bad device type";
    QTest::newRow("bad id") << "/device:GPU:a" << "bad device id";
    QTest::newRow("legacy bad id") << "/cpu:zero" << "bad device id";
    QTest::newRow("mixed case legacy") << "/Cpu:0" << "unknown component";
    QTest::newRow("double slash") << "/job:a//task:1" << "unknown component";
    QTest::newRow("huge number") << "/task:99999999999" << "bad task";
  }

  void errors() {
    QFETCH(QString, input);
    QFETCH(QString, fragment);
    const std::string message = parse_error(input.toUtf8().constData());
    QVERIFY2(!message.empty(), "expected an Error");
    QVERIFY2(message.find("'" + input.toStdString() + "'") != std::string::npos, message.c_str());
    QVERIFY2(message.find(fragment.toStdString()) != std::string::npos, message.c_str());
    QVERIFY(!DeviceSpec::try_parse(input.toStdString()).has_value());
  }

  void try_parse_ok() {
    QVERIFY(DeviceSpec::try_parse("/cpu:0").has_value());
    QVERIFY(DeviceSpec::try_parse("")->empty());
  }

  void merge_fills_unset_fields() {
    DeviceSpec d = DeviceSpec::parse("/job:worker/device:GPU:*");
    d.merge_from(DeviceSpec::parse("/job:worker/replica:0/task:3/device:GPU:1"));
    QCOMPARE(d.to_string(), std::string("/job:worker/replica:0/task:3/device:GPU:1"));

    DeviceSpec e;
    e.merge_from(DeviceSpec::parse("/cpu:0"));
    QCOMPARE(e.to_string(), std::string("/device:CPU:0"));
    DeviceSpec keep = DeviceSpec::parse("/task:1");
    keep.merge_from(DeviceSpec{});
    QCOMPARE(keep.to_string(), std::string("/task:1"));
  }

  void merge_conflicts() {
    DeviceSpec d = DeviceSpec::parse("/job:foo");
    try {
      d.merge_from(DeviceSpec::parse("/job:bar"));
      QFAIL("expected an Error");
    } catch (const Error& e) {
      QCOMPARE(std::string(e.what()), std::string("Cannot merge devices with incompatible jobs: '/job:foo' and '/job:bar'"));
    }
    QCOMPARE(d.to_string(), std::string("/job:foo"));  // unchanged after a failed merge

    DeviceSpec g = DeviceSpec::parse("/job:a/device:GPU:0");
    QVERIFY_THROWS_EXCEPTION(Error, g.merge_from(DeviceSpec::parse("/job:a/device:CPU:0")));
    QVERIFY_THROWS_EXCEPTION(Error, g.merge_from(DeviceSpec::parse("/device:GPU:1")));
    QVERIFY_THROWS_EXCEPTION(Error, DeviceSpec::parse("/task:0").merge_from(DeviceSpec::parse("/task:1")));
    QVERIFY_THROWS_EXCEPTION(Error, DeviceSpec::parse("/replica:0").merge_from(DeviceSpec::parse("/replica:1")));
    try {
      g.merge_from(DeviceSpec::parse("/device:CPU:0"));
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("incompatible types") != std::string::npos, e.what());
    }
    try {
      g.merge_from(DeviceSpec::parse("/device:GPU:1"));
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("incompatible ids") != std::string::npos, e.what());
    }
    // Equal fields are not a conflict.
    g.merge_from(DeviceSpec::parse("/job:a/gpu:0"));
    QCOMPARE(g.to_string(), std::string("/job:a/device:GPU:0"));
  }

  void merge_override() {
    DeviceSpec d = DeviceSpec::parse("/job:foo/task:1/device:CPU:0");
    d.merge_from(DeviceSpec::parse("/job:bar/device:GPU:2"), /*override_conflicts=*/true);
    QCOMPARE(d.to_string(), std::string("/job:bar/task:1/device:GPU:2"));
  }

  void matches() {
    DeviceSpec full = DeviceSpec::parse("/job:ps/replica:0/task:1/device:GPU:0");
    QVERIFY(full.matches(DeviceSpec{}));
    QVERIFY(full.matches(DeviceSpec::parse("/job:ps")));
    QVERIFY(full.matches(DeviceSpec::parse("/device:GPU:*")));
    QVERIFY(full.matches(DeviceSpec::parse("/gpu:0")));
    QVERIFY(full.matches(full));
    QVERIFY(!full.matches(DeviceSpec::parse("/job:worker")));
    QVERIFY(!full.matches(DeviceSpec::parse("/cpu:0")));
    QVERIFY(!full.matches(DeviceSpec::parse("/task:2")));
    // A field the pattern sets but this spec leaves open does not match.
    QVERIFY(!DeviceSpec::parse("/job:ps").matches(DeviceSpec::parse("/job:ps/task:1")));
    QVERIFY(DeviceSpec{}.matches(DeviceSpec{}));
  }

  void empty_and_equality() {
    QVERIFY(DeviceSpec::parse("").empty());
    QVERIFY(DeviceSpec::parse("/job:*/device:*").empty());
    QVERIFY(!DeviceSpec::parse("/cpu:0").empty());
    QCOMPARE(DeviceSpec::parse("/cpu:0"), DeviceSpec::parse("/device:CPU:0"));
    QVERIFY(!(DeviceSpec::parse("/cpu:0") == DeviceSpec::parse("/gpu:0")));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestDeviceSpec)
#include "test_device_spec.moc"

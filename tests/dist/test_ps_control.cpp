// What operators control on a node, without one: the pause / step / resume
// gate of its updates and the request profile it writes as a Chrome trace.
// No processes, sockets or sleeps.
#include "test_main.h"
#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include "common/error.h"
#include "dist/control/pause_gate.h"
#include "dist/control/request_profile.h"

using namespace flowlens;
using namespace flowlens::dist;

class TestPsControl : public QObject {
  Q_OBJECT
 private slots:
  void running_gate_lets_every_update_through() {
    PauseGate gate;
    for (int i = 0; i < 3; ++i) QVERIFY(gate.admit_update());
    QVERIFY(!gate.paused());
    // A step while running is no credit for a later pause.
    gate.step();
    gate.pause();
    QVERIFY(!gate.admit_update());
  }

  void paused_gate_holds_updates_and_step_lets_one_through() {
    PauseGate gate;
    gate.pause();
    QVERIFY(gate.paused());
    QVERIFY(!gate.admit_update());
    gate.step();
    QVERIFY(gate.admit_update());
    QVERIFY(!gate.admit_update());
    QVERIFY(gate.paused());
    // Stepping twice before an update comes still lets one through.
    gate.step();
    gate.step();
    QVERIFY(gate.admit_update());
    QVERIFY(!gate.admit_update());
  }

  void resume_lets_everything_through_and_forgets_a_pending_step() {
    PauseGate gate;
    gate.pause();
    gate.step();
    gate.resume();
    QVERIFY(!gate.paused());
    for (int i = 0; i < 3; ++i) QVERIFY(gate.admit_update());
    gate.pause();
    QVERIFY(!gate.admit_update());
  }

  void profile_writes_one_track_per_sender() {
    QTemporaryDir dir;
    RequestProfile profile;
    QVERIFY(!profile.active());
    profile.start();
    QVERIFY(profile.active());
    const auto t0 = std::chrono::steady_clock::time_point{} + std::chrono::seconds(100);
    profile.record("PUSH", "worker:0", t0, t0 + std::chrono::microseconds(30));
    profile.record("PULL", "worker:1", t0 + std::chrono::microseconds(50), t0 + std::chrono::microseconds(60));
    profile.record("STATUS", "", t0 + std::chrono::microseconds(70), t0 + std::chrono::microseconds(71));
    const QString path = dir.filePath("trace.json");
    QCOMPARE(profile.write_and_stop(path.toStdString(), "ps 0"), std::size_t{3});
    QVERIFY(!profile.active());

    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
    const QJsonArray events = doc.isArray() ? doc.array() : doc.object().value("traceEvents").toArray();
    QStringList tracks, slices;
    for (const QJsonValue& e : events) {
      const QJsonObject o = e.toObject();
      if (o.value("name") == "thread_name") tracks << o.value("args").toObject().value("name").toString();
      if (o.value("ph") == "X") slices << o.value("name").toString();
    }
    QCOMPARE(tracks, (QStringList{"worker:0", "worker:1", "unnamed client"}));
    QCOMPARE(slices, (QStringList{"PUSH", "PULL", "STATUS"}));
  }

  void a_profile_that_cannot_be_written_keeps_recording() {
    RequestProfile profile;
    profile.start();
    const auto t0 = std::chrono::steady_clock::now();
    profile.record("PUSH", "worker:0", t0, t0);
    QVERIFY_THROWS_EXCEPTION(Error, profile.write_and_stop("/nonexistent-dir/trace.json", "ps 0"));
    QVERIFY(profile.active());
    // A new start forgets the old requests.
    QTemporaryDir dir;
    profile.start();
    QCOMPARE(profile.write_and_stop(dir.filePath("t.json").toStdString(), "ps 0"), std::size_t{0});
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestPsControl)
#include "test_ps_control.moc"

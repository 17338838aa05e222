// ClusterSpec: the JSON forms tf.train.ClusterSpec and TF_CONFIG use, and
// errors that say which file, line:column or JSON path is wrong.
#include "test_main.h"
#include <QtTest>

#include "cluster/cluster_spec.h"
#include "common/error.h"

using namespace flowlens;

namespace {

// The message of the ParseError parsing `text` throws, or "" if it parses.
std::string parse_error(const std::string& text, int* line = nullptr, int* column = nullptr) {
  try {
    parse_cluster_spec(text, "c.json");
  } catch (const ParseError& e) {
    if (line) *line = e.line();
    if (column) *column = e.column();
    return e.what();
  }
  return "";
}

bool contains(const std::string& haystack, const char* needle) { return haystack.find(needle) != std::string::npos; }

}  // namespace

class TestClusterSpec : public QObject {
  Q_OBJECT

 private slots:
  void bare_dict() {
    ClusterSpec c = parse_cluster_spec(R"({"ps": ["ps0:2222", "ps1:2222"],
                                           "worker": ["worker0:2222", "worker1:2222", "worker2:2222"]})",
                                       "c.json");
    QCOMPARE(c.job_names(), (std::vector<std::string>{"ps", "worker"}));
    QCOMPARE(c.num_tasks("ps"), 2);
    QCOMPARE(c.num_tasks("worker"), 3);
    QCOMPARE(c.num_tasks("chief"), 0);
    QCOMPARE(c.task_address("worker", 2), std::string("worker2:2222"));
    QCOMPARE(c.task_indices("ps"), (std::vector<int>{0, 1}));
    QVERIFY(!c.task.has_value());
    QVERIFY_THROWS_EXCEPTION(Error, c.task_address("ps", 2));
    QVERIFY_THROWS_EXCEPTION(Error, c.task_address("chief", 0));
  }

  void tf_config_object() {
    ClusterSpec c = parse_cluster_spec(R"({"cluster": {"ps": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223"]},
                                           "task": {"type": "worker", "index": 0},
                                           "environment": "cloud"})",
                                       "c.json");
    QCOMPARE(c.num_tasks("ps"), 1);
    QVERIFY(c.task.has_value());
    QCOMPARE(*c.task, (TaskId{"worker", 0}));
  }

  void tf_config_without_task() {
    ClusterSpec c = parse_cluster_spec(R"({"cluster": {"worker": ["h:1"]}})", "c.json");
    QCOMPARE(c.num_tasks("worker"), 1);
    QVERIFY(!c.task.has_value());
  }

  void sparse_job() {
    ClusterSpec c = parse_cluster_spec(R"({"ps": ["p:1"], "worker": {"0": "w0:2222", "2": "w2:2222"}})", "c.json");
    QCOMPARE(c.num_tasks("worker"), 2);
    QCOMPARE(c.task_indices("worker"), (std::vector<int>{0, 2}));
    QCOMPARE(c.task_address("worker", 2), std::string("w2:2222"));
    QVERIFY_THROWS_EXCEPTION(Error, c.task_address("worker", 1));
  }

  void empty_job_is_allowed() {
    ClusterSpec c = parse_cluster_spec(R"({"ps": [], "worker": ["w:1"]})", "c.json");
    QVERIFY(c.has_job("ps"));
    QCOMPARE(c.num_tasks("ps"), 0);
  }

  void ipv6_addresses() {
    ClusterSpec c = parse_cluster_spec(R"({"ps": ["[::1]:2222"]})", "c.json");
    QCOMPARE(c.task_address("ps", 0), std::string("[::1]:2222"));
  }

  void to_json_round_trips() {
    for (const char* text : {R"({"ps": ["a:1", "b:2"], "worker": {"0": "c:3", "3": "d:4"}})",
                             R"({"cluster": {"ps": ["a:1"], "worker": ["c:3"]}, "task": {"type": "ps", "index": 0}})"}) {
      ClusterSpec c = parse_cluster_spec(text, "c.json");
      ClusterSpec back = parse_cluster_spec(c.to_json(), "again.json");
      QVERIFY2(back == c, c.to_json().c_str());
    }
    ClusterSpec dense = parse_cluster_spec(R"({"ps": ["a:1", "b:2"]})", "c.json");
    QVERIFY(contains(dense.to_json(), "[") && !contains(dense.to_json(), "\"cluster\""));
  }

  void bad_json_reports_line_and_column() {
    int line = 0, column = 0;
    std::string message = parse_error("{\n  \"ps\": [\"a:1\",]\n}", &line, &column);
    QVERIFY2(contains(message, "c.json:2:"), message.c_str());
    QVERIFY2(contains(message, "invalid JSON"), message.c_str());
    QCOMPARE(line, 2);
    QCOMPARE(column, 16);  // the ']' after the trailing comma
    // The JSON library's own "[json.exception...] parse error at ..." prefix is dropped.
    QVERIFY2(!contains(message, "json.exception"), message.c_str());
    QVERIFY(contains(parse_error(""), "c.json:1:1"));
  }

  void wrong_types() {
    QVERIFY(contains(parse_error("[\"a:1\"]"), "expected a JSON object"));
    QVERIFY(contains(parse_error(R"({"ps": "a:1"})"), "c.json: ps: expected a list"));
    QVERIFY(contains(parse_error(R"({"ps": ["a:1", 7]})"), "ps[1]: expected a \"host:port\" string, got number"));
    QVERIFY(contains(parse_error(R"({"cluster": ["a:1"]})"), "cluster: expected an object"));
    QVERIFY(contains(parse_error(R"({"task": {"type": "ps", "index": 0}})"), "no \"cluster\""));
    QVERIFY(contains(parse_error(R"({"cluster": {"ps": ["a:1"]}, "task": {"type": "ps", "index": "0"}})"),
                     "task.index: expected a non-negative integer"));
    QVERIFY(contains(parse_error(R"({"cluster": {"ps": ["a:1"]}, "task": {"index": 0}})"), "task.type"));
    QVERIFY(contains(parse_error(R"({"ps": {"x": "a:1"}})"), "task index \"x\""));
    QVERIFY(contains(parse_error(R"({"ps": {"-1": "a:1"}})"), "task index \"-1\""));
  }

  void bad_job_names() {
    QVERIFY(contains(parse_error(R"({"": ["a:1"]})"), "empty job name"));
    QVERIFY(contains(parse_error(R"({"ps-0": ["a:1"]})"), "job name 'ps-0'"));
    QVERIFY(contains(parse_error(R"({"0ps": ["a:1"]})"), "job name '0ps'"));
  }

  void bad_addresses() {
    QVERIFY(contains(parse_error(R"({"ps": ["localhost"]})"), "ps[0]: bad address 'localhost': missing ':port'"));
    QVERIFY(contains(parse_error(R"({"ps": [":2222"]})"), "missing host"));
    QVERIFY(contains(parse_error(R"({"ps": ["h:"]})"), "port ''"));
    QVERIFY(contains(parse_error(R"({"ps": ["h:70000"]})"), "port '70000'"));
    QVERIFY(contains(parse_error(R"({"ps": ["h:22x"]})"), "port '22x'"));
    QVERIFY(contains(parse_error(R"({"ps": ["::1:2222"]})"), "[brackets]"));
    QVERIFY(contains(parse_error(R"({"ps": ["my host:1"]})"), "host contains"));
  }

  void duplicate_address() {
    std::string message = parse_error(R"({"ps": ["h:1"], "worker": ["h:2", "h:1"]})");
    QVERIFY2(contains(message, "worker[1]: address 'h:1' is already used by ps[0]"), message.c_str());
  }

  void task_must_be_in_cluster() {
    QVERIFY(contains(parse_error(R"({"cluster": {"ps": ["a:1"]}, "task": {"type": "worker", "index": 0}})"),
                     "job 'worker' is not in the cluster"));
    QVERIFY(contains(parse_error(R"({"cluster": {"ps": ["a:1"]}, "task": {"type": "ps", "index": 1}})"),
                     "job 'ps' has no task 1"));
    // TF runs the evaluator outside the cluster.
    ClusterSpec c = parse_cluster_spec(R"({"cluster": {"ps": ["a:1"]}, "task": {"type": "evaluator", "index": 0}})",
                                       "c.json");
    QCOMPARE(c.task->type, std::string("evaluator"));
  }

  void load_names_the_file() {
    QTemporaryDir dir;
    QString path = dir.filePath("broken.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"ps\": [\"a:1\"");
    f.close();
    try {
      load_cluster_spec(path.toStdString());
      QFAIL("expected ParseError");
    } catch (const ParseError& e) {
      QCOMPARE(e.file(), path.toStdString());
      QVERIFY2(contains(e.what(), "broken.json:1:"), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(ParseError, load_cluster_spec(dir.filePath("missing.json").toStdString()));
  }

  void sample_cluster_local() {
    ClusterSpec c = load_cluster_spec(FLOWLENS_SAMPLES "/cluster_local.json");
    QCOMPARE(c.num_tasks("ps"), 1);
    QCOMPARE(c.num_tasks("worker"), 2);
    QCOMPARE(c.task_address("ps", 0), std::string("127.0.0.1:2222"));
    QCOMPARE(c.task_address("worker", 1), std::string("127.0.0.1:2224"));
    QCOMPARE(*c.task, (TaskId{"worker", 0}));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestClusterSpec)
#include "test_cluster_spec.moc"

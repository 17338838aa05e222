// The bad-input corpus (tests/data/bad_input/, written by make_files.py): every
// file has one defect and is listed in expected_errors.tsv with the location
// and a piece of the message it must produce. Each file is loaded through the
// entry point the command-line tools use (load_graph, load_cluster_spec,
// read_npy); the load must throw flowlens::Error (not crash, not another
// exception type) whose message names the file, the location and the fault.
#include "test_main.h"
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cluster/cluster_spec.h"
#include "common/error.h"
#include "io/graph_io.h"
#include "tensor/npy.h"

using namespace flowlens;

namespace {

const std::string kDir = std::string(FLOWLENS_TEST_DATA) + "/bad_input/";
// Files of the corpus directory that are not inputs.
const std::set<std::string> kNotInputs = {"expected_errors.tsv", "make_files.py"};

struct Expectation {
  std::string where;     // "line:column", or "-" when the error has no location
  std::string fragment;  // a substring of the message
};

// expected_errors.tsv: file <TAB> where <TAB> message fragment; '#' comments.
std::map<std::string, Expectation> read_manifest(std::string* problem) {
  std::map<std::string, Expectation> rows;
  std::ifstream in(kDir + "expected_errors.tsv");
  if (!in) *problem = "cannot open " + kDir + "expected_errors.tsv";
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab1 = line.find('\t'), tab2 = line.find('\t', tab1 + 1);
    if (tab1 == std::string::npos || tab2 == std::string::npos || tab2 + 1 >= line.size()) {
      *problem = "expected_errors.tsv:" + std::to_string(number) + ": expected file<TAB>where<TAB>fragment";
      break;
    }
    rows[line.substr(0, tab1)] = {line.substr(tab1 + 1, tab2 - tab1 - 1), line.substr(tab2 + 1)};
  }
  return rows;
}

// Loads `path` as the CLI would; returns the error message, or why there was
// no flowlens::Error.
std::string load_error(const std::string& path, bool* threw_error) {
  *threw_error = false;
  const std::string ext = std::filesystem::path(path).extension().string();
  try {
    if (ext == ".json")
      load_cluster_spec(path);
    else if (ext == ".npy")
      read_npy(path);
    else
      load_graph(path);
  } catch (const Error& e) {
    *threw_error = true;
    return e.what();
  } catch (const std::exception& e) {
    return std::string("threw a non-flowlens exception: ") + e.what();
  }
  return "loaded without an error";
}

}  // namespace

class TestBadInputCorpus : public QObject {
  Q_OBJECT

 private slots:
  // Every input has an expectation and every expectation an input, so a new
  // file cannot be forgotten; the output shows the message to copy.
  void manifest_matches_directory() {
    std::string problem;
    const auto rows = read_manifest(&problem);
    QVERIFY2(problem.empty(), problem.c_str());
    std::set<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(kDir))
      if (!kNotInputs.count(entry.path().filename().string())) files.insert(entry.path().filename().string());
    QVERIFY2(files.size() >= 50, std::to_string(files.size()).c_str());
    int missing = 0;
    for (const std::string& f : files) {
      if (rows.count(f)) continue;
      bool threw = false;
      qWarning("no row in expected_errors.tsv: %s\t%s", f.c_str(), load_error(kDir + f, &threw).c_str());
      ++missing;
    }
    QVERIFY2(missing == 0, (std::to_string(missing) + " file(s) without a row in expected_errors.tsv").c_str());
    for (const auto& [file, expectation] : rows)
      QVERIFY2(files.count(file), ("expected_errors.tsv lists a missing file: " + file).c_str());
  }

  void rejects_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("where");
    QTest::addColumn<QString>("fragment");
    std::string problem;
    for (const auto& [file, e] : read_manifest(&problem))
      QTest::newRow(file.c_str()) << QString::fromStdString(file) << QString::fromStdString(e.where)
                                  << QString::fromStdString(e.fragment);
  }

  void rejects() {
    QFETCH(QString, file);
    QFETCH(QString, where);
    QFETCH(QString, fragment);
    const std::string path = kDir + file.toStdString();
    bool threw_error = false;
    const std::string message = load_error(path, &threw_error);
    QVERIFY2(threw_error, message.c_str());
    // Errors start with the file (file:line:column: for located ones).
    const std::string prefix = where == "-" ? path + ": " : path + ":" + where.toStdString() + ": ";
    QVERIFY2(message.rfind(prefix, 0) == 0, ("expected to start with '" + prefix + "': " + message).c_str());
    QVERIFY2(message.find(fragment.toStdString()) != std::string::npos,
             ("expected '" + fragment.toStdString() + "' in: " + message).c_str());
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestBadInputCorpus)
#include "test_bad_input_corpus.moc"

// The main() of every grouped test executable (see test_main.h):
//   test_<group> TOPIC [Qt Test options]   runs one topic, as its own test_TOPIC did
//   test_<group> --list                    names the topics it holds
#include "test_main.h"

#include <QCoreApplication>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

namespace flowlens::testing {
namespace {

std::map<std::string, TestEntry>& topics() {
  static std::map<std::string, TestEntry> registry;
  return registry;
}

std::string topic_of(const char* source_file) {
  std::string name = source_file;
  if (const auto slash = name.find_last_of('/'); slash != std::string::npos) name.erase(0, slash + 1);
  if (const auto dot = name.rfind('.'); dot != std::string::npos) name.erase(dot);
  if (name.rfind("test_", 0) == 0) name.erase(0, 5);
  return name;
}

int usage(const char* program, FILE* out) {
  std::fprintf(out, "usage: %s TOPIC [Qt Test options]  (--list names the topics)\ntopics:", program);
  for (const auto& [topic, entry] : topics()) std::fprintf(out, " %s", topic.c_str());
  std::fprintf(out, "\n");
  return out == stdout ? 0 : 2;
}

}  // namespace

bool register_test_topic(const char* source_file, TestEntry entry) {
  const std::string topic = topic_of(source_file);
  if (!topics().emplace(topic, entry).second) {
    std::fprintf(stderr, "test topic '%s' is registered twice (%s)\n", topic.c_str(), source_file);
    std::abort();
  }
  return true;
}

}  // namespace flowlens::testing

int main(int argc, char** argv) {
  using flowlens::testing::topics;
  if (argc < 2 || argv[1][0] == '-') {
    if (argc >= 2 && std::strcmp(argv[1], "--list") == 0) {
      for (const auto& [topic, entry] : topics()) std::printf("%s\n", topic.c_str());
      return 0;
    }
    const bool help = argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0);
    return flowlens::testing::usage(argv[0], help ? stdout : stderr);
  }
  const auto found = topics().find(argv[1]);
  if (found == topics().end()) {
    std::fprintf(stderr, "%s: no test topic '%s'\n", argv[0], argv[1]);
    return flowlens::testing::usage(argv[0], stderr);
  }
  // QSettings and QStandardPaths' test mode key their files on the application
  // name: keep each topic's own, as when it was its own test_TOPIC executable,
  // so topics of one group running in parallel never share settings.
  QCoreApplication::setApplicationName(QString::fromStdString("test_" + found->first));
  // The topic's run function sees argv as its own main did: the program, then
  // the Qt Test options.
  argv[1] = argv[0];
  return found->second(argc - 1, argv + 1);
}

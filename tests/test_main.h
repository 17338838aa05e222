#pragma once
// One executable per test group (engine, cli, dist, ui, bench, cuda) instead of
// one per file: 146 links and moc passes were a large share of a cold build.
// Each test file still owns its class and its Qt application type; it
// registers a run function under its topic (the file name less "test_" and
// ".cpp"), and tests/test_main.cpp runs the topic named by the first argument,
// one topic per process, so every test starts as fresh as it did alone.
// CTest lists each topic as its own test, <group>.<topic>.
//
// In a test file, use FLOWLENS_TEST_MAIN / _GUILESS_MAIN / _APPLESS_MAIN where
// Qt Test has QTEST_MAIN / QTEST_GUILESS_MAIN / QTEST_APPLESS_MAIN: the bodies
// are Qt's (qtest.h's QTEST_MAIN_WRAPPER), only `main` is replaced. A file that
// needs its own set-up registers a function with FLOWLENS_TEST_ENTRY.
#include <QtTest/qtest.h>

namespace flowlens::testing {

using TestEntry = int (*)(int argc, char** argv);

// Registers `entry` under the topic named by `source_file` (__FILE__). Returns
// true so that it can initialise a constant at namespace scope.
bool register_test_topic(const char* source_file, TestEntry entry);

}  // namespace flowlens::testing

#define FLOWLENS_TEST_ENTRY(function)                            \
  [[maybe_unused]] static const bool flowlens_test_registered_ = \
      ::flowlens::testing::register_test_topic(__FILE__, &function);

#define FLOWLENS_TEST_MAIN_WRAPPER(TestObject, ...)                \
  static int flowlens_test_entry_(int argc, char* argv[]) {        \
    QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>(); \
    __VA_ARGS__                                                    \
    TestObject tc;                                                 \
    QTEST_SET_MAIN_SOURCE_PATH                                     \
    return QTest::qExec(&tc, argc, argv);                          \
  }                                                                \
  FLOWLENS_TEST_ENTRY(flowlens_test_entry_)

#define FLOWLENS_TEST_MAIN(TestObject) FLOWLENS_TEST_MAIN_WRAPPER(TestObject, QTEST_MAIN_SETUP())
#define FLOWLENS_TEST_GUILESS_MAIN(TestObject) \
  FLOWLENS_TEST_MAIN_WRAPPER(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
#define FLOWLENS_TEST_APPLESS_MAIN(TestObject) FLOWLENS_TEST_MAIN_WRAPPER(TestObject)

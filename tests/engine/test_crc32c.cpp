// CRC-32C against the published check values (RFC 3720 B.4, also in
// TensorFlow's crc32c_test.cc) and the masking TensorFlow applies on disk.
#include "test_main.h"
#include <QtTest>

#include <string>

#include "common/crc32c.h"

using namespace flowlens;

class TestCrc32c : public QObject {
  Q_OBJECT
 private slots:
  void rfc3720_check_values() {
    QCOMPARE(crc32c("123456789"), 0xe3069283u);
    QCOMPARE(crc32c(std::string(32, '\0')), 0x8a9136aau);
    QCOMPARE(crc32c(std::string(32, '\xff')), 0x62a8ab43u);
    std::string ascending, descending;
    for (int i = 0; i < 32; ++i) {
      ascending.push_back(static_cast<char>(i));
      descending.push_back(static_cast<char>(31 - i));
    }
    QCOMPARE(crc32c(ascending), 0x46dd794eu);
    QCOMPARE(crc32c(descending), 0x113fdb5cu);
    QCOMPARE(crc32c(""), 0u);
  }

  void extend_equals_whole() {
    const std::string text = "hello world, checksummed in pieces";
    for (std::size_t cut = 0; cut <= text.size(); ++cut)
      QCOMPARE(crc32c_extend(crc32c(text.substr(0, cut)), text.substr(cut)), crc32c(text));
  }

  void mask_is_tensorflows_and_round_trips() {
    // TensorFlow's crc32c::Mask: rotate right by 15, add 0xa282ead8.
    const uint32_t crc = crc32c("foo");
    QCOMPARE(crc32c_mask(crc), ((crc >> 15) | (crc << 17)) + 0xa282ead8u);
    QVERIFY(crc32c_mask(crc) != crc);
    QVERIFY(crc32c_mask(crc32c_mask(crc)) != crc);
    QCOMPARE(crc32c_unmask(crc32c_mask(crc)), crc);
    QCOMPARE(crc32c_unmask(crc32c_mask(0u)), 0u);
    QCOMPARE(crc32c_unmask(crc32c_mask(0xffffffffu)), 0xffffffffu);
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestCrc32c)
#include "test_crc32c.moc"

// Cast between the real types and bool (TensorFlow's static_cast rules,
// round-to-nearest-even into the 16-bit floats, the Truncate attr),
// ZerosLike and OnesLike.
#include "test_main.h"
#include <limits>

#include "elementwise_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor cast(const Tensor& x, DType dst, bool truncate = false) {
  AttrMap attrs = {{"SrcT", AttrValue(x.dtype())}, {"DstT", AttrValue(dst)}};
  if (truncate) attrs["Truncate"] = AttrValue(true);
  return run1("Cast", std::move(attrs), {x});
}

}  // namespace

class TestOpsCast : public QObject {
  Q_OBJECT
 private slots:
  void floats_to_integers_truncate_toward_zero() {
    QVERIFY(values_are(cast(F({4}, {1.7f, -1.7f, 0.5f, -0.5f}), DType::Int32), DType::Int32, {4}, {1, -1, 0, 0}));
    QVERIFY(values_are(cast(D({2}, {-3.9, 127.9}), DType::Int8), DType::Int8, {2}, {-3, 127}));
    QVERIFY(values_are(cast(T(DType::Half, {1}, {-300.5}), DType::Int16), DType::Int16, {1}, {-300}));
    QVERIFY(values_are(cast(F({2}, {3.9f, 255.5f}), DType::UInt8), DType::UInt8, {2}, {3, 255}));
    QVERIFY(values_are(cast(T(DType::BFloat16, {1}, {-2.5}), DType::Int64), DType::Int64, {1}, {-2}));
    // NaN into int32: the x86 conversion's "integer indefinite" value.
    QVERIFY(values_are(cast(F({1}, {NAN}), DType::Int32), DType::Int32, {1},
                       {double(std::numeric_limits<int32_t>::min())}));
  }

  void to_and_from_bool() {
    QVERIFY(values_are(cast(F({5}, {0, -0.0f, 0.1f, NAN, -2}), DType::Bool), DType::Bool, {5}, {0, 0, 1, 1, 1}));
    QVERIFY(values_are(cast(I32({2}, {0, 5}), DType::Bool), DType::Bool, {2}, {0, 1}));
    QVERIFY(values_are(cast(T(DType::Half, {2}, {0, 0.5}), DType::Bool), DType::Bool, {2}, {0, 1}));
    const Tensor b = B({2}, {true, false});
    QVERIFY(values_are(cast(b, DType::Half), DType::Half, {2}, {1, 0}));
    QVERIFY(values_are(cast(b, DType::BFloat16), DType::BFloat16, {2}, {1, 0}));
    QVERIFY(values_are(cast(b, DType::UInt64), DType::UInt64, {2}, {1, 0}));
  }

  void into_16_bit_floats_rounds_to_nearest_even() {
    QVERIFY(values_are(cast(F({4}, {0.1f, 65519, 65520, 1e-8f}), DType::Half), DType::Half, {4},
                       {0.0999755859375, 65504, kInf, 0}));
    // 1 + 2^-8 and 1 + 3 * 2^-8 are bfloat16 ties.
    QVERIFY(values_are(cast(F({2}, {1.00390625f, 1.01171875f}), DType::BFloat16), DType::BFloat16, {2},
                       {1.0, 1.015625}));
    QVERIFY(values_are(cast(I32({2}, {2049, 65536}), DType::Half), DType::Half, {2}, {2048, kInf}));
    QVERIFY(values_are(cast(T(DType::Half, {1}, {0.1}), DType::BFloat16), DType::BFloat16, {1}, {0.10009765625}));
    QVERIFY(values_are(cast(T(DType::BFloat16, {1}, {0.1}), DType::Double), DType::Double, {1}, {0.10009765625}));
  }

  void truncate_attr_drops_the_low_bits() {
    QVERIFY(values_are(cast(F({2}, {0.3f, NAN}), DType::Half, true), DType::Half, {2}, {0.2998046875, kNaN}));
    QVERIFY(values_are(cast(F({1}, {0.3f}), DType::Half), DType::Half, {1}, {0.300048828125}));
    QVERIFY(values_are(cast(F({1}, {0.3f}), DType::BFloat16, true), DType::BFloat16, {1}, {0.298828125}));
    QVERIFY(values_are(cast(F({1}, {0.3f}), DType::BFloat16), DType::BFloat16, {1}, {0.30078125}));
    QVERIFY(values_are(cast(D({1}, {0.1}), DType::Float, true), DType::Float, {1}, {0.0999999940395355224609375}));
    QVERIFY(values_are(cast(D({1}, {0.1}), DType::Float), DType::Float, {1}, {0.100000001490116119384765625}));
    // Widening and integer casts are unaffected.
    QVERIFY(values_are(cast(I32({1}, {16777217}), DType::Float, true), DType::Float, {1}, {16777216}));
  }

  void between_integers_wraps() {
    QVERIFY(values_are(cast(I32({2}, {300, -129}), DType::Int8), DType::Int8, {2}, {44, 127}));
    QVERIFY(values_are(cast(T(DType::UInt8, {1}, {200}), DType::Int8), DType::Int8, {1}, {-56}));
    QVERIFY(values_are(cast(I64({1}, {-1}), DType::UInt32), DType::UInt32, {1}, {4294967295.0}));
    QVERIFY(values_are(cast(I32({1}, {-1}), DType::UInt64), DType::UInt64, {1}, {18446744073709551615.0}));
    QVERIFY(values_are(cast(I64({1}, {9007199254740993}), DType::Double), DType::Double, {1}, {9007199254740992.0}));
    QVERIFY(values_are(cast(T(DType::UInt16, {1}, {65535}), DType::Int16), DType::Int16, {1}, {-1}));
  }

  void same_type_forwards_and_errors() {
    const Tensor x = I64({2}, {1, 2});
    QVERIFY(cast(x, DType::Int64).shares_buffer_with(x));
    QVERIFY(values_are(cast(F({0, 2}, {}), DType::Half), DType::Half, {0, 2}, {}));
    EXPECT_ERROR(run1("Cast", {{"SrcT", AttrValue(DType::Int32)}, {"DstT", AttrValue(DType::Float)}}, {F({1}, {1})}),
                 "SrcT");
    EXPECT_ERROR(cast(F({1}, {1}), DType::String), "Cast: unsupported dtype string");
    EXPECT_ERROR(run1("Cast", {{"SrcT", AttrValue(DType::Float)}}, {F({1}, {1})}), "DstT");
    auto info = infer("Cast", {{"SrcT", AttrValue(DType::Float)}, {"DstT", AttrValue(DType::BFloat16)}},
                      {{DType::Float, Shape{-1, 2}}});
    QCOMPARE(info[0].dtype, DType::BFloat16);
    QCOMPARE(qshape(info[0].shape), QString("[?,2]"));
  }

  void zeros_and_ones_like() {
    QVERIFY(values_are(run1("ZerosLike", {}, {T(DType::Half, {2}, {3, -4})}), DType::Half, {2}, {0, 0}));
    QVERIFY(values_are(run1("ZerosLike", {}, {B({2}, {true, true})}), DType::Bool, {2}, {0, 0}));
    QVERIFY(values_are(run1("OnesLike", {}, {T(DType::UInt64, {2, 1}, {3, 4})}), DType::UInt64, {2, 1}, {1, 1}));
    QVERIFY(values_are(run1("OnesLike", {}, {T(DType::BFloat16, {0, 3}, {})}), DType::BFloat16, {0, 3}, {}));
    QVERIFY(values_are(run1("OnesLike", {}, {B({1}, {false})}), DType::Bool, {1}, {1}));
    EXPECT_ERROR(run1("ZerosLike", {}, {Tensor::from_strings({1}, {"a"})}), "ZerosLike: unsupported dtype string");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsCast)
#include "test_ops_cast.moc"

#pragma once
// Element types, numbered exactly like TensorFlow's DataType enum so GraphDef
// values map one to one. Reference types (DT_FLOAT_REF = 101 ...) are the base
// value + kRefOffset; they only appear in attrs and signatures, never in tensors.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace flowlens {

enum class DType : int {
  Invalid = 0, Float = 1, Double = 2, Int32 = 3, UInt8 = 4, Int16 = 5, Int8 = 6,
  String = 7, Complex64 = 8, Int64 = 9, Bool = 10, QInt8 = 11, QUInt8 = 12,
  QInt32 = 13, BFloat16 = 14, QInt16 = 15, QUInt16 = 16, UInt16 = 17,
  Complex128 = 18, Half = 19, Resource = 20, Variant = 21, UInt32 = 22, UInt64 = 23,
};
inline constexpr int kRefOffset = 100;

// Bytes per element; 0 for String, Resource, Variant (no fixed-size layout).
std::size_t dtype_size(DType t);
// Short name for display: "float32", "int64", "bool" ...; "float32_ref" for refs.
std::string dtype_name(DType t);
// TensorFlow enum name: "DT_FLOAT", "DT_FLOAT_REF" ...
std::string dtype_tf_name(DType t);
// Accepts both spellings ("float32", "float", "DT_FLOAT"); nullopt if unknown.
std::optional<DType> dtype_from_name(std::string_view name);

constexpr bool dtype_is_ref(DType t) { return static_cast<int>(t) > kRefOffset; }
constexpr DType dtype_base(DType t) {
  return dtype_is_ref(t) ? static_cast<DType>(static_cast<int>(t) - kRefOffset) : t;
}
constexpr DType dtype_ref(DType t) {
  return dtype_is_ref(t) ? t : static_cast<DType>(static_cast<int>(t) + kRefOffset);
}
// The types kernels compute on: the floating types, the fixed-width
// integers and bool (not complex or quantized types).
constexpr bool dtype_is_computable(DType t) {
  switch (t) {
    case DType::Float: case DType::Double: case DType::Half: case DType::BFloat16:
    case DType::Int8: case DType::Int16: case DType::Int32: case DType::Int64:
    case DType::UInt8: case DType::UInt16: case DType::UInt32: case DType::UInt64:
    case DType::Bool: return true;
    default: return false;
  }
}
constexpr bool dtype_is_floating(DType t) {
  return t == DType::Float || t == DType::Double || t == DType::Half || t == DType::BFloat16;
}

template <class T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::Float; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::Double; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::Int32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::Int64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::Bool; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::UInt8; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::Int8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::Int16; };
template <> struct DTypeOf<uint16_t> { static constexpr DType value = DType::UInt16; };
template <> struct DTypeOf<uint32_t> { static constexpr DType value = DType::UInt32; };
template <> struct DTypeOf<uint64_t> { static constexpr DType value = DType::UInt64; };
// float16 and bfloat16 are Eigen::half and Eigen::bfloat16 (tensor/float16.h),
// as in TensorFlow, so rounding and special values match it bit for bit.

}  // namespace flowlens

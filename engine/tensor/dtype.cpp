#include "tensor/dtype.h"

#include <array>

namespace flowlens {
namespace {

struct DTypeInfo {
  DType type;
  const char* name;     // display name
  const char* tf_name;  // DataType enum name without the DT_ prefix
  std::size_t size;
};

constexpr std::array<DTypeInfo, 24> kTypes = {{
    {DType::Invalid, "invalid", "INVALID", 0},
    {DType::Float, "float32", "FLOAT", 4},
    {DType::Double, "float64", "DOUBLE", 8},
    {DType::Int32, "int32", "INT32", 4},
    {DType::UInt8, "uint8", "UINT8", 1},
    {DType::Int16, "int16", "INT16", 2},
    {DType::Int8, "int8", "INT8", 1},
    {DType::String, "string", "STRING", 0},
    {DType::Complex64, "complex64", "COMPLEX64", 8},
    {DType::Int64, "int64", "INT64", 8},
    {DType::Bool, "bool", "BOOL", 1},
    {DType::QInt8, "qint8", "QINT8", 1},
    {DType::QUInt8, "quint8", "QUINT8", 1},
    {DType::QInt32, "qint32", "QINT32", 4},
    {DType::BFloat16, "bfloat16", "BFLOAT16", 2},
    {DType::QInt16, "qint16", "QINT16", 2},
    {DType::QUInt16, "quint16", "QUINT16", 2},
    {DType::UInt16, "uint16", "UINT16", 2},
    {DType::Complex128, "complex128", "COMPLEX128", 16},
    {DType::Half, "float16", "HALF", 2},
    {DType::Resource, "resource", "RESOURCE", 0},
    {DType::Variant, "variant", "VARIANT", 0},
    {DType::UInt32, "uint32", "UINT32", 4},
    {DType::UInt64, "uint64", "UINT64", 8},
}};

const DTypeInfo* info(DType t) {
  int v = static_cast<int>(dtype_base(t));
  if (v < 0 || v >= static_cast<int>(kTypes.size())) return nullptr;
  return &kTypes[static_cast<size_t>(v)];
}

}  // namespace

std::size_t dtype_size(DType t) {
  const DTypeInfo* i = info(t);
  return i ? i->size : 0;
}

std::string dtype_name(DType t) {
  const DTypeInfo* i = info(t);
  if (!i) return "dtype(" + std::to_string(static_cast<int>(t)) + ")";
  return std::string(i->name) + (dtype_is_ref(t) ? "_ref" : "");
}

std::string dtype_tf_name(DType t) {
  const DTypeInfo* i = info(t);
  if (!i) return std::to_string(static_cast<int>(t));
  return "DT_" + std::string(i->tf_name) + (dtype_is_ref(t) ? "_REF" : "");
}

std::optional<DType> dtype_from_name(std::string_view name) {
  bool ref = false;
  if (name.size() > 4 && (name.ends_with("_REF") || name.ends_with("_ref"))) {
    ref = true;
    name.remove_suffix(4);
  }
  if (name.starts_with("DT_")) {
    name.remove_prefix(3);
    for (const auto& i : kTypes)
      if (name == i.tf_name) return ref ? dtype_ref(i.type) : i.type;
    return std::nullopt;
  }
  if (name == "float") return ref ? dtype_ref(DType::Float) : DType::Float;
  if (name == "double") return ref ? dtype_ref(DType::Double) : DType::Double;
  if (name == "half") return ref ? dtype_ref(DType::Half) : DType::Half;
  for (const auto& i : kTypes)
    if (name == i.name) return ref ? dtype_ref(i.type) : i.type;
  return std::nullopt;
}

}  // namespace flowlens

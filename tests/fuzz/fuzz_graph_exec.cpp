// Small graphs built from the fuzzer's bytes and run: one to four nodes of
// any registered op, attrs drawn within (and just outside) what each OpDef
// declares, inputs from small constants of any dtype or from earlier nodes.
// A graph may be refused by validation or shape inference, or a run may fail
// with flowlens::Error: that is every op's contract. A crash, a sanitizer
// report, an exception of another type, or a run asking for more memory than
// the cap is a finding.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/validate.h"
#include "common/error.h"
#include "exec/session.h"
#include "fuzz_check.h"
#include "ops/framework/op_registry.h"
#include "tensor/allocator.h"

using namespace flowlens;

namespace {

// One tensor may be 16 MiB at most: sizes from hostile values are refused,
// and libFuzzer's -rss_limit_mb stays far away.
const bool kCapped = (HostAllocator::set_max_tensor_bytes(std::size_t{16} << 20), true);

const std::vector<std::string>& fuzzable_ops() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> out;
    for (const std::string& name : OpRegistry::global().op_names()) {
      const OpDef* def = OpRegistry::global().find(name);
      if (def->kernel("CPU") && def->category != "internal") out.push_back(name);
    }
    return out;
  }();
  return ops;
}

const DType kDtypes[] = {DType::Float, DType::Double, DType::Half,  DType::BFloat16, DType::Int8,   DType::Int16,
                         DType::Int32, DType::Int64,  DType::UInt8, DType::UInt16,   DType::UInt32, DType::UInt64,
                         DType::Bool,  DType::String};

Shape small_shape(FuzzedDataProvider& in) {
  const int rank = in.ConsumeIntegralInRange(0, 4);
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) dims.push_back(in.ConsumeIntegralInRange<int64_t>(0, 5));
  return Shape(std::move(dims));
}

// Values: mostly small integers (valid axes, indices, sizes), sometimes any bits.
Tensor small_tensor(FuzzedDataProvider& in, DType dtype, Shape shape) {
  Tensor t(dtype, std::move(shape));
  const int64_t n = t.num_elements();
  if (dtype == DType::String) {
    for (auto& s : t.strings()) s = in.ConsumeRandomLengthString(8);
    return t;
  }
  auto* bytes = static_cast<uint8_t*>(t.raw_data());
  const std::size_t size = dtype_size(dtype);
  for (int64_t i = 0; i < n; ++i) {
    if (in.ConsumeBool()) {
      const int64_t v = in.ConsumeIntegralInRange<int64_t>(-3, 6);
      switch (dtype) {
        case DType::Float: reinterpret_cast<float*>(bytes)[i] = static_cast<float>(v); break;
        case DType::Double: reinterpret_cast<double*>(bytes)[i] = static_cast<double>(v); break;
        case DType::Bool: bytes[i] = v > 0; break;
        default:
          for (std::size_t b = 0; b < size; ++b) bytes[i * size + b] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * b));
      }
    } else {
      for (std::size_t b = 0; b < size; ++b) bytes[i * size + b] = in.ConsumeIntegral<uint8_t>();
      if (dtype == DType::Bool) bytes[i] &= 1;
    }
  }
  return t;
}

AttrValue attr_value(FuzzedDataProvider& in, const AttrDef& a) {
  if (a.default_value && in.ConsumeBool()) return *a.default_value;
  switch (a.kind) {
    case AttrKind::Int: return AttrValue(in.ConsumeBool() ? in.ConsumeIntegralInRange<int64_t>(-2, 6) : in.ConsumeIntegral<int64_t>());
    case AttrKind::Float: return AttrValue(in.ConsumeFloatingPoint<float>());
    case AttrKind::Bool: return AttrValue(in.ConsumeBool());
    case AttrKind::Type:
      if (!a.allowed_types.empty() && in.ConsumeBool())
        return AttrValue(a.allowed_types[in.ConsumeIntegralInRange<std::size_t>(0, a.allowed_types.size() - 1)]);
      return AttrValue(in.PickValueInArray(kDtypes));
    case AttrKind::String:
      if (!a.allowed_strings.empty() && in.ConsumeBool())
        return AttrValue(a.allowed_strings[in.ConsumeIntegralInRange<std::size_t>(0, a.allowed_strings.size() - 1)]);
      return AttrValue(in.ConsumeRandomLengthString(12));
    case AttrKind::Shape: return AttrValue(in.ConsumeBool() ? small_shape(in) : Shape::unknown_rank());
    case AttrKind::Tensor: return AttrValue(small_tensor(in, in.PickValueInArray(kDtypes), small_shape(in)));
    case AttrKind::ListInt: {
      AttrList l;
      for (int i = in.ConsumeIntegralInRange(0, 5); i > 0; --i) l.i.push_back(in.ConsumeIntegralInRange<int64_t>(-2, 6));
      return AttrValue(l);
    }
    case AttrKind::ListType: {
      AttrList l;
      for (int i = in.ConsumeIntegralInRange(0, 3); i > 0; --i) l.type.push_back(in.PickValueInArray(kDtypes));
      return AttrValue(l);
    }
    case AttrKind::ListFloat: {
      AttrList l;
      for (int i = in.ConsumeIntegralInRange(0, 4); i > 0; --i) l.f.push_back(in.ConsumeFloatingPoint<float>());
      return AttrValue(l);
    }
    default: return a.default_value ? *a.default_value : AttrValue(std::string());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)kCapped;
  FuzzedDataProvider in(data, size);
  const auto& ops = fuzzable_ops();
  Graph g;
  std::vector<std::string> outputs;  // tensors later nodes may consume
  int consts = 0;
  const int nodes = in.ConsumeIntegralInRange(1, 4);
  std::string last;
  for (int k = 0; k < nodes && in.remaining_bytes() > 0; ++k) {
    const OpDef& def = *OpRegistry::global().find(ops[in.ConsumeIntegralInRange<std::size_t>(0, ops.size() - 1)]);
    Node n;
    n.name = "n" + std::to_string(k);
    n.op = def.name;
    for (const AttrDef& a : def.attrs)
      if (!a.inferable || in.ConsumeBool()) n.attrs[a.name] = attr_value(in, a);
    int count = 0;
    try {
      count = def.inputs_for(n);
    } catch (const Error&) {
      continue;
    }
    if (count < 0) count = def.min_inputs() + in.ConsumeIntegralInRange(0, 2);
    for (int i = 0; i < count && i < 8; ++i) {
      if (!outputs.empty() && in.ConsumeBool()) {
        n.inputs.push_back(outputs[in.ConsumeIntegralInRange<std::size_t>(0, outputs.size() - 1)]);
        continue;
      }
      // The input's dtype: the one its type attr names, else any.
      DType dtype = in.PickValueInArray(kDtypes);
      if (const ArgDef* arg = def.input_arg(n, i); arg && arg->type != DType::Invalid) dtype = arg->type;
      else if (arg && !arg->type_attr.empty())
        if (const AttrValue* v = n.find_attr(arg->type_attr); v && v->is<DType>()) dtype = dtype_base(*v->get_if<DType>());
      if (!dtype_is_computable(dtype) && dtype != DType::String) dtype = DType::Float;
      Node c;
      c.name = "c" + std::to_string(consts++);
      c.op = "Const";
      c.attrs["dtype"] = AttrValue(dtype);
      c.attrs["value"] = AttrValue(small_tensor(in, dtype, small_shape(in)));
      n.inputs.push_back(c.name);
      g.add_node(std::move(c));
    }
    try {
      for (int p = 0, outs = def.outputs_for(n); p < outs && p < 4; ++p)
        outputs.push_back(p == 0 ? n.name : n.name + ":" + std::to_string(p));
    } catch (const Error&) {
    }
    last = n.name;
    g.add_node(std::move(n));
  }
  if (last.empty()) return 0;
  g.reindex();
  if (has_errors(validate_graph(g, OpRegistry::global()))) return 0;
  try {
    SessionOptions options;
    options.inter_op_threads = 1;
    options.use_gpus = false;
    options.blocking_op_timeout_s = 0.05;  // a dequeue from a queue nothing fills gives up at once
    Session session(std::move(g), options);
    const OpDef& def = *OpRegistry::global().find(session.graph().find(last)->op);
    const int outs = def.outputs_for(*session.graph().find(last));
    std::vector<std::string> fetches;
    for (int p = 0; p < outs && p < 4; ++p) fetches.push_back(p == 0 ? last : last + ":" + std::to_string(p));
    session.run({}, fetches, fetches.empty() ? std::vector<std::string>{last} : std::vector<std::string>{});
  } catch (const Error&) {
  }
  return 0;
}

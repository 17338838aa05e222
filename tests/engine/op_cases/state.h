#pragma once
// Registry-walk cases for resource variables (VarHandleOp, ReadVariableOp,
// Assign*VariableOp, ResourceGather ...), IsVariableInitialized and the
// optimizers beyond the first set, ref and resource forms, in every float type.
#include <memory>

#include "engine/op_cases/op_case.h"

namespace flowlens::testing {

// A scalar DT_RESOURCE tensor whose handle names a fresh variable holding
// `value` (an invalid tensor: a variable that does not exist yet), declared
// with `value`'s dtype and shape unless given.
inline Tensor resource_handle(const Tensor& value, const std::string& name = "v", DType dtype = DType::Invalid,
                              Shape shape = Shape::unknown_rank()) {
  auto storage = std::make_shared<Variable>();
  storage->value = value.valid() ? value.clone() : Tensor();
  storage->name = name;
  ResourceHandle h;
  h.container = "localhost";
  h.name = name;
  h.dtype = dtype != DType::Invalid ? dtype : value.dtype();
  h.shape = shape.rank_known() || !value.valid() ? std::move(shape) : value.shape();
  h.variable = std::move(storage);
  return Tensor::from_handles(Shape{}, {std::move(h)});
}

inline void add_state_cases(OpCases& c) {
  // Checkpoint ops read and write files named by their inputs; a registry walk
  // would litter the working directory. tests/engine/test_saved_model.cpp and
  // test_tensor_bundle.cpp run each against real checkpoint files.
  for (const char* op : {"SaveV2", "RestoreV2", "MergeV2Checkpoints", "Save", "SaveSlices", "Restore", "RestoreSlice"})
    c.skip(op, "reads or writes checkpoint files; run by test_saved_model against fixtures");
  const DType f = DType::Float;
  const AttrValue tf(f);
  const Tensor v23 = gen(f, {2, 3});

  c.add({"VarHandleOp", {{"dtype", tf}, {"shape", Shape{2, 3}}, {"shared_name", AttrValue("v")}}, {}, {}, resource_handle(v23)});
  c.add({"ReadVariableOp", {{"dtype", tf}}, {resource_handle(v23)}});
  c.add({"ReadVariableOp", {{"dtype", AttrValue(DType::Int64)}}, {resource_handle(gen(DType::Int64, {4}))}});
  c.add({"AssignVariableOp", {{"dtype", tf}}, {resource_handle(Tensor(), "v", f, Shape{2, 3}), v23}});
  for (const char* op : {"AssignAddVariableOp", "AssignSubVariableOp"})
    for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int32, DType::UInt8})
      c.add({op, {{"dtype", AttrValue(t)}}, {resource_handle(gen(t, {3}, 0, 4)), gen(t, {3}, 0, 4, 2)}});
  c.add({"VarIsInitializedOp", {}, {resource_handle(v23)}});
  c.add({"VarIsInitializedOp", {}, {resource_handle(Tensor(), "v", f, Shape{2})}});
  c.add({"VariableShape", {}, {resource_handle(v23)}});
  c.add({"VariableShape", {{"out_type", AttrValue(DType::Int64)}}, {resource_handle(v23)}});
  c.add({"DestroyResourceOp", {}, {resource_handle(v23)}});
  c.add({"ResourceGather", {{"dtype", tf}, {"Tindices", AttrValue(DType::Int32)}},
         {resource_handle(gen(f, {4, 3})), I32({2, 2}, {3, 0, 0, 1})}});
  c.add({"ResourceGather", {{"dtype", AttrValue(DType::Int64)}, {"Tindices", AttrValue(DType::Int64)}, {"batch_dims", 1}},
         {resource_handle(gen(DType::Int64, {2, 3})), I64({2, 2}, {2, 0, 1, 1})}});
  // Row scatters: ref and resource forms, row updates (nonzero for Div), a
  // scalar update, int64 indices, integer and string variables.
  for (const char* kind : {"Add", "Sub", "Mul", "Div", "Min", "Max", "Update"}) {
    const std::string ref = std::string("Scatter") + kind, res = "Resource" + ref;
    const AttrValue i32(DType::Int32), i64(DType::Int64);
    c.add({ref, {{"T", tf}, {"Tindices", i32}}, {Tensor(), I32({2}, {2, 0}), gen(f, {2, 3}, 0.5, 2)},
           {gen(f, {3, 3}), std::nullopt, std::nullopt}});
    c.add({ref, {{"T", AttrValue(DType::Int32)}, {"Tindices", i64}}, {Tensor(), I64({2, 2}, {1, 1, 0, 2}), I32({}, {3})},
           {gen(DType::Int32, {3}, -9, 9), std::nullopt, std::nullopt}});
    c.add({res, {{"dtype", tf}, {"Tindices", i32}}, {resource_handle(gen(f, {3, 3})), I32({2}, {2, 0}), gen(f, {2, 3}, 0.5, 2)}});
    c.add({res, {{"dtype", AttrValue(DType::Half)}, {"Tindices", i64}},
           {resource_handle(gen(DType::Half, {4, 2})), I64({}, {3}), gen(DType::Half, {2}, 0.5, 2)}});
  }
  c.add({"ScatterUpdate", {{"T", AttrValue(DType::String)}, {"Tindices", AttrValue(DType::Int32)}},
         {Tensor(), I32({1}, {1}), S({1}, {"x"})}, {S({2}, {"a", "b"}), std::nullopt, std::nullopt}});
  c.add({"ResourceScatterUpdate", {{"dtype", AttrValue(DType::Bool)}, {"Tindices", AttrValue(DType::Int32)}},
         {resource_handle(B({3}, {true, false, true})), I32({2}, {0, 1}), B({}, {false})}});
  c.add({"IsVariableInitialized", {{"dtype", tf}}, {Tensor()}, {v23}});

  for (DType t : {DType::Float, DType::Double, DType::Half, DType::BFloat16}) {
    const AttrValue T(t);
    auto s = [&](double x) { return gen(t, {}, x, x); };  // a scalar of T
    auto var = [&](uint32_t seed, double lo = -1, double hi = 1) { return gen(t, {2, 3}, lo, hi, seed); };
    auto res = [&](const Tensor& v) { return resource_handle(v); };
    const std::nullopt_t none = std::nullopt;
    // Dense ops: (ref form, resource form, vars, then the other inputs).
    struct Dense {
      const char* ref;
      const char* resource;
      std::vector<Tensor> vars;
      std::vector<Tensor> rest;
    };
    const Tensor g = var(9);
    const std::vector<Dense> dense = {
        {"ApplyGradientDescent", "ResourceApplyGradientDescent", {var(1)}, {s(0.1), g}},
        {"ApplyMomentum", "ResourceApplyMomentum", {var(1), var(2)}, {s(0.1), g, s(0.9)}},
        {nullptr, "ResourceApplyKerasMomentum", {var(1), var(2)}, {s(0.1), g, s(0.9)}},
        {"ApplyAdam", "ResourceApplyAdam", {var(1), var(2), var(3, 0, 1)},
         {s(0.9), s(0.99), s(0.01), s(0.9), s(0.999), s(1e-3), g}},
        {"ApplyAdagrad", "ResourceApplyAdagrad", {var(1), var(2, 0.1, 1)}, {s(0.1), g}},
        {"ApplyAdagradV2", "ResourceApplyAdagradV2", {var(1), var(2, 0.1, 1)}, {s(0.1), s(1e-3), g}},
        {"ApplyRMSProp", "ResourceApplyRMSProp", {var(1), var(2, 0.1, 1), var(3)},
         {s(0.01), s(0.9), s(0.5), s(1e-3), g}},
        {"ApplyFtrl", "ResourceApplyFtrl", {var(1), var(2, 0.1, 1), var(3)}, {g, s(0.1), s(0.01), s(0.02), s(-0.5)}},
        {"ApplyFtrlV2", "ResourceApplyFtrlV2", {var(1), var(2, 0.1, 1), var(3)},
         {g, s(0.1), s(0.01), s(0.02), s(0.03), s(-0.6)}},
    };
    for (const Dense& d : dense) {
      if (d.ref) {
        OpCase k{d.ref, {{"T", T}}, {}, {}};
        for (const Tensor& v : d.vars) k.inputs.push_back(Tensor()), k.ref_values.push_back(v);
        for (const Tensor& x : d.rest) k.inputs.push_back(x), k.ref_values.push_back(none);
        c.add(std::move(k));
      }
      OpCase k{d.resource, {{"T", T}}, {}};
      for (const Tensor& v : d.vars) k.inputs.push_back(res(v));
      for (const Tensor& x : d.rest) k.inputs.push_back(x);
      c.add(std::move(k));
    }
    // Sparse ops: var [4,3], rows 3 and 1 (twice) of it.
    const Tensor rows = gen(t, {3, 3}, -1, 1, 7);
    const Tensor idx = I32({3}, {3, 1, 1});
    auto tall = [&](uint32_t seed, double lo = -1, double hi = 1) { return gen(t, {4, 3}, lo, hi, seed); };
    const std::vector<Dense> sparse = {
        {"SparseApplyAdagrad", "ResourceSparseApplyAdagrad", {tall(1), tall(2, 0.1, 1)}, {s(0.1), rows, idx}},
        {"SparseApplyAdagradV2", "ResourceSparseApplyAdagradV2", {tall(1), tall(2, 0.1, 1)},
         {s(0.1), s(1e-3), rows, idx}},
        {"SparseApplyMomentum", "ResourceSparseApplyMomentum", {tall(1), tall(2)}, {s(0.1), rows, idx, s(0.9)}},
        {nullptr, "ResourceSparseApplyKerasMomentum", {tall(1), tall(2)}, {s(0.1), rows, idx, s(0.9)}},
        {"SparseApplyFtrl", "ResourceSparseApplyFtrl", {tall(1), tall(2, 0.1, 1), tall(3)},
         {rows, idx, s(0.1), s(0.01), s(0.02), s(-0.5)}},
        {"SparseApplyFtrlV2", "ResourceSparseApplyFtrlV2", {tall(1), tall(2, 0.1, 1), tall(3)},
         {rows, I64({3}, {0, 2, 0}), s(0.1), s(0.01), s(0.02), s(0.03), s(-0.5)}},
    };
    for (const Dense& d : sparse) {
      DType tindices = DType::Int32;
      for (const Tensor& x : d.rest)
        if (x.dtype() == DType::Int64) tindices = DType::Int64;
      const AttrMap attrs{{"T", T}, {"Tindices", AttrValue(tindices)}};
      if (d.ref) {
        OpCase k{d.ref, attrs, {}, {}};
        for (const Tensor& v : d.vars) k.inputs.push_back(Tensor()), k.ref_values.push_back(v);
        for (const Tensor& x : d.rest) k.inputs.push_back(x), k.ref_values.push_back(none);
        c.add(std::move(k));
      }
      OpCase k{d.resource, attrs, {}};
      for (const Tensor& v : d.vars) k.inputs.push_back(res(v));
      for (const Tensor& x : d.rest) k.inputs.push_back(x);
      c.add(std::move(k));
    }
  }
}

}  // namespace flowlens::testing

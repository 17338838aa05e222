// Hostile inputs for every registered op: starting from each registry-walk
// case, inputs and attrs are replaced by wrong ranks, wrong dtypes, empty and
// huge values (input counts are validation's job: a graph with the wrong
// number of inputs never reaches a kernel). Every kernel and shape function must
// either succeed or refuse with flowlens::Error — never crash, never throw
// anything else (std::bad_alloc from a size nobody checked, std::out_of_range
// from an unchecked index). Run under the asan preset this also catches reads
// past a buffer that happen to "work".
#include "test_main.h"
#include <QtTest/QtTest>

#include <limits>

#include "analysis/validate.h"
#include "tensor/allocator.h"

#include "engine/op_cases/all.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {


// Replacement inputs: each is tried in place of every input of a case.
std::vector<std::pair<std::string, Tensor>> hostile_tensors() {
  const int64_t big = std::numeric_limits<int32_t>::max();
  return {
      {"empty float32[0]", Tensor(DType::Float, Shape{0})},
      {"float32[0,3]", Tensor(DType::Float, Shape{0, 3})},
      {"float32 scalar", F({}, {1.5f})},
      {"float32[1,1,1,1,1,1,1,1,1]", Tensor::from_vector<float>(Shape{1, 1, 1, 1, 1, 1, 1, 1, 1}, {2.0f})},
      {"float32[5] with NaN/Inf", F({5}, {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                         -std::numeric_limits<float>::infinity(), 0.0f, -0.0f})},
      {"int32 scalar -1", I32({}, {-1})},
      {"int32[2] {-5,-1}", I32({2}, {-5, -1})},
      {"int32[3] {int32 max, 2, 1}", I32({3}, {static_cast<int32_t>(big), 2, 1})},
      {"int64[2] {2^62, 4}", I64({2}, {int64_t{1} << 62, 4})},
      {"int64[2] {2^62+1, 2^62+1}", I64({2}, {(int64_t{1} << 62) + 1, (int64_t{1} << 62) + 1})},
      {"int64 scalar int64 min", I64({}, {std::numeric_limits<int64_t>::min()})},
      {"int32[2,2] of 100", I32({2, 2}, {100, 100, 100, 100})},
      {"bool[3]", B({3}, {true, false, true})},
      {"string[2]", Tensor::from_strings(Shape{2}, {"a", ""})},
      {"float16[2]", T(DType::Half, {2}, {1, 2})},
      {"uint8[2]", T(DType::UInt8, {2}, {255, 0})},
  };
}

std::vector<std::pair<std::string, AttrValue>> hostile_attrs(const AttrDef& a) {
  switch (a.kind) {
    case AttrKind::Int:
      return {{"-1", AttrValue(int64_t{-1})}, {"0", AttrValue(int64_t{0})}, {"2^40", AttrValue(int64_t{1} << 40)},
              {"int64 min", AttrValue(std::numeric_limits<int64_t>::min())}};
    case AttrKind::Type:
      return {{"int32", AttrValue(DType::Int32)}, {"string", AttrValue(DType::String)}, {"bool", AttrValue(DType::Bool)},
              {"complex64", AttrValue(DType::Complex64)}, {"resource", AttrValue(DType::Resource)}};
    case AttrKind::Float:
      return {{"NaN", AttrValue(std::numeric_limits<float>::quiet_NaN())}, {"-1e30", AttrValue(-1e30f)}};
    case AttrKind::String: return {{"'bogus'", AttrValue(std::string("bogus"))}, {"''", AttrValue(std::string())}};
    case AttrKind::Bool: return {{"true", AttrValue(true)}, {"false", AttrValue(false)}};
    case AttrKind::Shape: return {{"[-5]", AttrValue(Shape{-5})}, {"[2^40,2^40]", AttrValue(Shape{int64_t{1} << 40, int64_t{1} << 40})}};
    case AttrKind::ListInt: {
      AttrList empty, negative, huge;
      negative.i = {-1, -7};
      huge.i = {int64_t{1} << 40, 3, 3, 3};
      return {{"[]", AttrValue(empty)}, {"[-1,-7]", AttrValue(negative)}, {"[2^40,3,3,3]", AttrValue(huge)}};
    }
    case AttrKind::Tensor: return {{"int32[0]", AttrValue(Tensor(DType::Int32, Shape{0}))}};
    default: return {{"a string", AttrValue(std::string("x"))}};
  }
}

// Whether validation refuses the node with these attrs and inputs (wrong
// attr kinds, values below a minimum, list sizes that disagree with the
// inputs): such a node never reaches a kernel, which is a clean outcome.
bool validation_refuses(const OpCase& c) {
  Graph g;
  Node n = make_node(c.op, c.attrs, "op");
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    Node in;
    in.name = "in" + std::to_string(i);
    const bool is_ref = i < c.ref_values.size() && c.ref_values[i];
    const Tensor& t = is_ref ? *c.ref_values[i] : c.inputs[i];
    if (is_ref) {
      in.op = "VariableV2";
      in.attrs = {{"dtype", AttrValue(t.dtype())}, {"shape", AttrValue(t.shape())}};
    } else {
      in.op = "Const";
      in.attrs = {{"dtype", AttrValue(t.dtype())}, {"value", AttrValue(t)}};
    }
    n.inputs.push_back(in.name);
    g.add_node(std::move(in));
  }
  g.add_node(std::move(n));
  g.reindex();
  return has_errors(validate_graph(g, OpRegistry::global()));
}

struct Outcome {
  bool ok = true;
  std::string problem;
};

// Runs the kernel and both shape-function forms; only flowlens::Error may escape.
Outcome run_guarded(const OpCase& c) {
  Outcome out;
  auto guard = [&](const char* what, auto&& fn) {
    try {
      fn();
    } catch (const Error&) {
    } catch (const std::exception& e) {
      out.ok = false;
      out.problem = std::string(what) + " threw " + typeid(e).name() + ": " + e.what();
    }
  };
  std::vector<std::unique_ptr<Variable>> vars;
  std::vector<Variable*> refs(c.inputs.size(), nullptr);
  std::vector<TensorInfo> infos;
  std::vector<const Tensor*> constants;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const bool is_ref = i < c.ref_values.size() && c.ref_values[i];
    if (is_ref) {
      vars.push_back(std::make_unique<Variable>());
      vars.back()->value = c.ref_values[i]->clone();
      refs[i] = vars.back().get();
    }
    const Tensor& t = is_ref ? *c.ref_values[i] : c.inputs[i];
    infos.push_back(t.valid() ? TensorInfo{t.dtype(), t.shape()} : TensorInfo{});
    constants.push_back(is_ref || !t.valid() ? nullptr : &c.inputs[i]);
  }
  Variable own;
  if (c.own_value) own.value = c.own_value->clone();
  guard("kernel", [&] { run_op(c.op, c.attrs, c.inputs, refs, &own); });
  guard("shape function (constant inputs)", [&] { infer(c.op, c.attrs, infos, constants); });
  guard("shape function", [&] { infer(c.op, c.attrs, infos); });
  return out;
}

}  // namespace

class TestOpRobustness : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // Sizes from hostile values (2^31 elements) must be refused, not paged in.
    HostAllocator::set_max_tensor_bytes(std::size_t{256} << 20);
  }

  void hostile_inputs_are_refused_cleanly() {
    const OpCases all = all_op_cases();
    const auto tensors = hostile_tensors();
    QStringList problems;
    int runs = 0;
    for (const OpCase& base : all.cases) {
      const OpDef* def = OpRegistry::global().find(base.op);
      if (!def) continue;
      auto check = [&](const OpCase& c, const std::string& what) {
        if (validation_refuses(c)) return;
        ++runs;
        const Outcome o = run_guarded(c);
        if (!o.ok) problems << QString::fromStdString(base.op + " with " + what + ": " + o.problem);
      };
      // Each input replaced (a ref input's variable value too).
      for (size_t i = 0; i < base.inputs.size(); ++i)
        for (const auto& [name, t] : tensors) {
          OpCase c = base;
          if (i < c.ref_values.size() && c.ref_values[i]) c.ref_values[i] = t;
          else c.inputs[i] = t;
          check(c, "input " + std::to_string(i) + " = " + name);
        }
      // Each declared attr replaced.
      for (const AttrDef& a : def->attrs)
        for (const auto& [name, v] : hostile_attrs(a)) {
          OpCase c = base;
          c.attrs[a.name] = v;
          check(c, "attr " + a.name + " = " + name);
        }
    }
    qInfo("%d hostile runs over %zu cases", runs, all.cases.size());
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestOpRobustness)
#include "test_op_robustness.moc"

// The registry walk, in the spirit of ggml's test-backend-ops: every
// registered op is fully described by its OpDef (shape function, CPU kernel or
// a reason, gradient or a reason, category, doc, GPU kernel or a reason in a
// CUDA build), and every op runs on a generated case whose result its shape
// function predicts, with and without constant inputs.
#include "test_main.h"
#include <QtTest/QtTest>

#include <algorithm>
#include <map>

#include "engine/op_cases/all.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {


std::string describe(const OpCase& c) {
  std::string s = c.op + "(";
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const Tensor& t = c.inputs[i].valid() ? c.inputs[i] : *c.ref_values[i];
    s += (i ? ", " : "") + dtype_name(t.dtype()) + t.shape().to_string();
  }
  s += ")";
  for (const auto& [k, v] : c.attrs) s += " " + k + "=" + v.to_string();
  return s;
}

// A partial shape `inferred` that the produced shape fits.
bool compatible(const Shape& inferred, const Shape& produced) {
  if (!inferred.rank_known()) return true;
  if (inferred.rank() != produced.rank()) return false;
  for (int i = 0; i < inferred.rank(); ++i)
    if (inferred.dim(i) >= 0 && inferred.dim(i) != produced.dim(i)) return false;
  return true;
}

}  // namespace

class TestOpRegistry : public QObject {
  Q_OBJECT

 private slots:
  void every_op_is_fully_described() {
    const OpRegistry& r = OpRegistry::global();
    const auto& categories = op_categories();
    QStringList problems;
    for (const std::string& name : r.op_names()) {
      const OpDef& def = *r.find(name);
      auto problem = [&](const std::string& what) { problems << QString::fromStdString(name + ": " + what); };
      if (std::find(categories.begin(), categories.end(), def.category) == categories.end())
        problem("category '" + def.category + "' is not one of the palette categories");
      if (def.summary.empty()) problem("no one-line doc");
      if (!def.shape_fn) problem("no shape function");
      if (!def.kernel("CPU") && def.no_kernel_reason.empty()) problem("no CPU kernel and no reason given");
      switch (def.gradient_kind) {
        case GradientKind::Missing: problem("neither a gradient nor a stated reason for none"); break;
        case GradientKind::Function: if (!def.gradient) problem("gradient kind Function without a function"); break;
        case GradientKind::None: if (def.gradient_note.empty()) problem("no gradient and no reason given"); break;
        case GradientKind::NotDifferentiable: break;
      }
#ifdef FLOWLENS_WITH_CUDA
      const bool gpu = std::any_of(def.kernels.begin(), def.kernels.end(),
                                   [](const KernelDef& k) { return k.device == "GPU" && !k.host_memory_only; });
      if (!gpu && def.kernel("CPU") && def.no_gpu_reason.empty())
        problem("no GPU kernel for device data and no soft-placement reason given");
      if (gpu && !def.no_gpu_reason.empty()) problem("a GPU kernel for device data and a reason for none");
#endif
      for (const AttrDef& a : def.attrs)
        if (a.default_value && !a.allowed_types.empty())
          if (const DType* t = a.default_value->get_if<DType>())
            if (std::find(a.allowed_types.begin(), a.allowed_types.end(), *t) == a.allowed_types.end())
              problem("attr " + a.name + "'s default is not among its allowed types");
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
  }

  void every_op_has_a_generated_case() {
    const OpCases c = all_op_cases();
    QStringList missing;
    for (const std::string& name : OpRegistry::global().op_names()) {
      const bool has = std::any_of(c.cases.begin(), c.cases.end(), [&](const OpCase& k) { return k.op == name; }) ||
                       std::any_of(c.skipped.begin(), c.skipped.end(), [&](const OpSkip& k) { return k.op == name; });
      if (!has) missing << QString::fromStdString(name);
    }
    QVERIFY2(missing.isEmpty(), qPrintable("no case for: " + missing.join(QStringLiteral(", "))));
    for (const OpSkip& s : c.skipped) QVERIFY2(!s.why.empty(), s.op.c_str());
  }

  void every_case_runs_and_its_shape_function_predicts_it() {
    const OpCases all = all_op_cases();
    QStringList problems;
    for (const OpCase& c : all.cases) {
      const std::string what = describe(c);
      if (!OpRegistry::global().find(c.op)) {
        problems << QString::fromStdString(what + ": op not registered");
        continue;
      }
      std::vector<std::unique_ptr<Variable>> vars;
      std::vector<Variable*> refs(c.inputs.size(), nullptr);
      std::vector<TensorInfo> infos;
      std::vector<const Tensor*> constants;
      for (size_t i = 0; i < c.inputs.size(); ++i) {
        const bool is_ref = i < c.ref_values.size() && c.ref_values[i];
        if (is_ref) {
          vars.push_back(std::make_unique<Variable>());
          vars.back()->value = c.ref_values[i]->clone();
          vars.back()->name = "var" + std::to_string(i);
          refs[i] = vars.back().get();
        }
        const Tensor& t = is_ref ? *c.ref_values[i] : c.inputs[i];
        infos.push_back({t.dtype(), t.shape()});
        constants.push_back(is_ref ? nullptr : &c.inputs[i]);
      }
      Variable own;
      own.name = "own";
      if (c.own_value) own.value = c.own_value->clone();
      std::vector<Tensor> out;
      try {
        out = run_op(c.op, c.attrs, c.inputs, refs, &own);
      } catch (const std::exception& e) {
        problems << QString::fromStdString(what + ": kernel failed: " + e.what());
        continue;
      }
      for (bool with_constants : {true, false}) {
        std::vector<TensorInfo> inferred;
        try {
          inferred = infer(c.op, c.attrs, infos, with_constants ? constants : std::vector<const Tensor*>{});
        } catch (const std::exception& e) {
          problems << QString::fromStdString(what + ": shape function failed: " + e.what());
          continue;
        }
        if (inferred.size() != out.size()) {
          problems << QString::fromStdString(what + ": shape function gives " + std::to_string(inferred.size()) +
                                             " outputs, the kernel " + std::to_string(out.size()));
          continue;
        }
        for (size_t k = 0; k < out.size(); ++k) {
          const std::string port = what + " output " + std::to_string(k) + (with_constants ? "" : " (no constants)");
          if (!out[k].valid()) {
            if (std::find(c.dead_outputs.begin(), c.dead_outputs.end(), static_cast<int>(k)) != c.dead_outputs.end())
              continue;
            problems << QString::fromStdString(port + ": the kernel produced no value");
            continue;
          }
          if (inferred[k].dtype != out[k].dtype())
            problems << QString::fromStdString(port + ": inferred dtype " + dtype_name(inferred[k].dtype) +
                                               ", produced " + dtype_name(out[k].dtype()));
          if (!compatible(inferred[k].shape, out[k].shape()))
            problems << QString::fromStdString(port + ": inferred shape " + inferred[k].shape.to_string() +
                                               ", produced " + out[k].shape().to_string());
          if (with_constants && !inferred[k].shape.fully_defined())
            problems << QString::fromStdString(port + ": with every input constant the shape " +
                                               inferred[k].shape.to_string() + " should be fully known");
        }
      }
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestOpRegistry)
#include "test_op_registry.moc"

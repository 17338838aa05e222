#pragma once
// The gradient checker of the gradient tests: a forward graph of float64
// placeholders, and add_gradients' symbolic gradient compared with a
// central-difference numerical one (loss = sum(y * w), w fixed and uneven).
#include <QtTest>

#include <cmath>

#include "exec/session.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"
#include "transform/graph_builder.h"

namespace flowlens::testing {

// A forward graph with float64 placeholders (the xs) fed with fixed values.
struct Model {
  Graph g;
  GraphBuilder b{g};
  FeedList feeds;
  bool static_shapes = true;  // false: placeholders of unknown shape (dynamic gradient paths)

  std::string x(const std::string& name, Tensor value) {
    Node n;
    n.name = name;
    n.op = "Placeholder";
    n.attrs["dtype"] = AttrValue(value.dtype());
    n.attrs["shape"] = AttrValue(static_shapes ? value.shape() : Shape::unknown_rank());
    g.add_node(std::move(n));
    feeds.emplace_back(name, std::move(value));
    return name;
  }
  std::string c(const std::string& name, Tensor value) { return b.constant(name, std::move(value)); }
  std::string op(const std::string& op, std::vector<std::string> in, AttrMap attrs = {}) {
    attrs.try_emplace("T", AttrValue(DType::Double));
    return b.add(op, op, std::move(in), std::move(attrs));
  }
};

inline double scalar_of(const Tensor& t) { return t.dtype() == DType::Float ? t.data<float>()[0] : t.data<double>()[0]; }

// loss = sum(y * w) with fixed, non-uniform w; checks d loss / d x for every fed x.
inline void check_gradients(Model& m, const std::string& y, double eps = 1e-6, double tol = 1e-5) {
  Tensor yv = Session(m.g).run(m.feeds, {y})[0];
  const DType t = yv.dtype();
  Tensor w(t, yv.shape());
  for (int64_t i = 0; i < w.num_elements(); ++i) {
    const double v = 0.5 + 0.25 * static_cast<double>(i % 5) - (i % 2 ? 1.1 : 0.0);
    if (t == DType::Float) w.data<float>()[i] = static_cast<float>(v);
    else w.data<double>()[i] = v;
  }
  GraphBuilder b(m.g, "check");
  const std::string prod = b.binary("Mul", y, b.constant("w", w), t);
  const std::string flat = b.reshape(prod, b.int32_vector("flat", {-1}), t);
  const std::string loss = b.sum(flat, b.int32_vector("axis", {0}), t);
  std::vector<std::string> xs;
  for (const auto& [name, value] : m.feeds) xs.push_back(name);
  const std::vector<std::string> grads = add_gradients(m.g, {loss}, xs, OpRegistry::global());
  Session s(m.g);
  for (size_t k = 0; k < xs.size(); ++k) {
    QVERIFY2(!grads[k].empty(), ("no gradient for " + xs[k]).c_str());
    Tensor symbolic = s.run(m.feeds, {grads[k]})[0];
    const Tensor& x0 = m.feeds[k].second;
    QVERIFY2(symbolic.shape() == x0.shape(),
             (xs[k] + ": gradient shape " + symbolic.shape().to_string() + " vs " + x0.shape().to_string()).c_str());
    QCOMPARE(symbolic.dtype(), x0.dtype());
    for (int64_t i = 0; i < x0.num_elements(); ++i) {
      FeedList f = m.feeds;
      auto perturbed = [&](double d) {
        Tensor xp = x0.clone();
        xp.data<double>()[i] += d;
        f[k].second = xp;
        return scalar_of(s.run(f, {loss})[0]);
      };
      const double numeric = (perturbed(eps) - perturbed(-eps)) / (2 * eps);
      const double got = symbolic.data<double>()[i];
      if (std::fabs(got - numeric) > tol * (1.0 + std::fabs(numeric)))
        QFAIL(qPrintable(QString("%1[%2]: symbolic %3, numeric %4 (y = %5)")
                             .arg(QString::fromStdString(xs[k]))
                             .arg(i)
                             .arg(got, 0, 'g', 10)
                             .arg(numeric, 0, 'g', 10)
                             .arg(QString::fromStdString(y))));
    }
  }
}

}  // namespace flowlens::testing

#include "ui/graphview/graphviz_layout.h"

#include <QCollator>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <tuple>
#include <mutex>
#include <string>

// The dot layout and the core renderers are linked in and registered through
// this table, so layout works without Graphviz's plugin config file
// (config6a) and without `dot -c` having been run on the machine.
extern "C" {
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;
lt_symlist_t lt_preloaded_symbols[] = {
    {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
    {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
    {nullptr, nullptr},
};
}

namespace flowlens::ui {
namespace {


struct ContextDeleter {
  void operator()(GVC_t* gvc) const { gvFreeContext(gvc); }
};
using ContextHandle = std::unique_ptr<GVC_t, ContextDeleter>;

// Frees the layout (when one was made) before the graph itself.
class GraphHandle {
 public:
  GraphHandle(GVC_t* gvc, Agraph_t* g) : gvc_(gvc), g_(g) {}
  ~GraphHandle() {
    if (laid_out_) gvFreeLayout(gvc_, g_);
    if (g_) agclose(g_);
  }
  GraphHandle(const GraphHandle&) = delete;
  GraphHandle& operator=(const GraphHandle&) = delete;
  Agraph_t* get() const { return g_; }
  void mark_laid_out() { laid_out_ = true; }

 private:
  GVC_t* gvc_;
  Agraph_t* g_;
  bool laid_out_ = false;
};

// cgraph takes char* for names and values it never modifies.
char* c(const std::string& s) { return const_cast<char*>(s.c_str()); }

void set(void* obj, const char* name, const std::string& value) {
  agsafeset(obj, const_cast<char*>(name), c(value), const_cast<char*>(""));
}

std::string inches(double points) { return std::to_string(points / 72.0); }

QPointF parse_point(const QString& text, double height) {
  const QStringList xy = text.split(QLatin1Char(','));
  if (xy.size() < 2) return {};
  return {xy[0].toDouble(), height - xy[1].toDouble()};
}

// "llx,lly,urx,ury" with y up → a rectangle with y down.
QRectF parse_bb(const char* bb, double height) {
  if (!bb || !*bb) return {};
  const QStringList v = QString::fromLatin1(bb).split(QLatin1Char(','));
  if (v.size() != 4) return {};
  const QPointF a(v[0].toDouble(), height - v[3].toDouble());
  const QPointF b(v[2].toDouble(), height - v[1].toDouble());
  return QRectF(a, b).normalized();
}

const char* get(void* obj, const char* name) { return agget(obj, const_cast<char*>(name)); }

// "tower_2" before "tower_10": Qt's collator in numeric mode, as the node
// table sorts names. One per thread: layouts run on worker threads.
bool natural_less(const QString& a, const QString& b) {
  thread_local const QCollator collator = [] {
    QCollator c;
    c.setNumericMode(true);
    return c;
  }();
  return collator.compare(a, b) < 0;
}

// The order Graphviz is given clusters and boxes in. dot starts its crossing
// minimisation from the order of creation and keeps it where crossings tie,
// so sibling frames go in natural name order ("tower_0" left of "tower_1",
// as the replica map and the user read them) and each frame's boxes after
// its frame's parents', in file order. Returns cluster and box indices.
std::pair<std::vector<int>, std::vector<int>> creation_order(const LayoutInput& input) {
  const int clusters = static_cast<int>(input.clusters.size());
  std::vector<std::vector<int>> children(static_cast<std::size_t>(clusters) + 1);  // index parent + 1
  for (int c = 0; c < clusters; ++c) {
    const int parent = input.clusters[static_cast<std::size_t>(c)].parent;
    children[static_cast<std::size_t>(parent >= 0 && parent < c ? parent + 1 : 0)].push_back(c);
  }
  for (auto& list : children)
    std::stable_sort(list.begin(), list.end(), [&](int a, int b) {
      return natural_less(input.clusters[static_cast<std::size_t>(a)].label, input.clusters[static_cast<std::size_t>(b)].label);
    });
  std::vector<int> order;
  std::vector<int> rank(static_cast<std::size_t>(clusters), 0);
  auto visit = [&](int parent, auto&& self) -> void {
    for (int c : children[static_cast<std::size_t>(parent + 1)]) {
      rank[static_cast<std::size_t>(c)] = static_cast<int>(order.size()) + 1;
      order.push_back(c);
      self(c, self);
    }
  };
  visit(-1, visit);
  std::vector<int> boxes(input.boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) boxes[i] = static_cast<int>(i);
  std::stable_sort(boxes.begin(), boxes.end(), [&](int a, int b) {
    auto rank_of = [&](int box) {
      const int c = input.boxes[static_cast<std::size_t>(box)].cluster;
      return c >= 0 && c < clusters ? rank[static_cast<std::size_t>(c)] : 0;
    };
    return rank_of(a) < rank_of(b);
  });
  return {order, boxes};
}

// dot may still put tower_1 left of tower_0 when crossings tie. Sibling
// frames of one size on one level (parallel copies) are put back in natural
// name order: each takes the place of the one that should be there, with
// its contents; edges into or out of a moved frame are redrawn as curves.
void order_sibling_frames(const LayoutInput& input, LayoutResult& r) {
  const int clusters = static_cast<int>(input.clusters.size());
  if (clusters < 2 || r.cluster_rects.size() != input.clusters.size()) return;
  std::map<std::tuple<int, long long, long long, long long>, std::vector<int>> alike;  // (parent, w, h, top)
  for (int c = 0; c < clusters; ++c) {
    const QRectF& rect = r.cluster_rects[static_cast<std::size_t>(c)];
    if (rect.isNull()) continue;
    alike[{input.clusters[static_cast<std::size_t>(c)].parent, std::llround(rect.width()), std::llround(rect.height()),
           std::llround(rect.top())}]
        .push_back(c);
  }
  std::vector<double> shift(static_cast<std::size_t>(clusters), 0);
  bool any = false;
  for (auto& [key, members] : alike) {
    if (members.size() < 2) continue;
    std::vector<double> lefts;
    for (int c : members) lefts.push_back(r.cluster_rects[static_cast<std::size_t>(c)].left());
    std::sort(lefts.begin(), lefts.end());
    std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
      return natural_less(input.clusters[static_cast<std::size_t>(a)].label, input.clusters[static_cast<std::size_t>(b)].label);
    });
    for (std::size_t k = 0; k < members.size(); ++k) {
      const double dx = lefts[k] - r.cluster_rects[static_cast<std::size_t>(members[k])].left();
      shift[static_cast<std::size_t>(members[k])] = dx;
      any |= dx != 0;
    }
  }
  if (!any) return;
  // A cluster moves with the nearest moved frame around it.
  auto shift_of_cluster = [&](int c) {
    for (int depth = 0; c >= 0 && depth <= clusters; c = input.clusters[static_cast<std::size_t>(c)].parent, ++depth)
      if (shift[static_cast<std::size_t>(c)] != 0) return shift[static_cast<std::size_t>(c)];
    return 0.0;
  };
  std::vector<double> box_shift(input.boxes.size(), 0);
  for (std::size_t i = 0; i < input.boxes.size() && i < r.box_centers.size(); ++i) {
    box_shift[i] = shift_of_cluster(input.boxes[i].cluster);
    r.box_centers[i].rx() += box_shift[i];
  }
  for (int c = 0; c < clusters; ++c) r.cluster_rects[static_cast<std::size_t>(c)].translate(shift_of_cluster(c), 0);
  for (std::size_t e = 0; e < input.edges.size() && e < r.edges.size(); ++e) {
    const auto& edge = input.edges[e];
    const double from = box_shift[static_cast<std::size_t>(edge.from)], to = box_shift[static_cast<std::size_t>(edge.to)];
    auto& g = r.edges[e];
    if (from == to) {
      if (from != 0) {
        g.path.translate(from, 0);
        g.tip.rx() += from;
      }
      continue;
    }
    const auto& a = input.boxes[static_cast<std::size_t>(edge.from)];
    const auto& b = input.boxes[static_cast<std::size_t>(edge.to)];
    const QPointF start = r.box_centers[static_cast<std::size_t>(edge.from)] + QPointF(0, a.height / 2);
    const QPointF tip = r.box_centers[static_cast<std::size_t>(edge.to)] - QPointF(0, b.height / 2);
    g = vertical_curve(start, tip, std::max(20.0, std::abs(tip.y() - start.y()) / 2));
  }
}

}  // namespace

LayoutResult::EdgeGeometry vertical_curve(QPointF start, QPointF tip, double bend) {
  constexpr double kArrow = 8;
  const QPointF end = tip - QPointF(0, kArrow);
  QPainterPath path(start);
  path.cubicTo(start + QPointF(0, bend), end - QPointF(0, bend), end);
  return {path, tip, true};
}

LayoutResult::EdgeGeometry parse_edge_pos(const QString& pos, double height) {
  LayoutResult::EdgeGeometry geometry;
  // Several splines (";"-separated) only occur for concentrated edges; the
  // first one is the whole edge otherwise.
  const QStringList tokens = pos.section(QLatin1Char(';'), 0, 0).split(QLatin1Char(' '), Qt::SkipEmptyParts);
  std::vector<QPointF> points;
  for (const QString& token : tokens) {
    if (token.startsWith(QLatin1String("e,"))) {
      geometry.tip = parse_point(token.mid(2), height);
      geometry.has_tip = true;
    } else if (!token.startsWith(QLatin1String("s,"))) {
      points.push_back(parse_point(token, height));
    }
  }
  if (points.empty()) return geometry;
  geometry.path.moveTo(points[0]);
  for (std::size_t i = 1; i + 2 < points.size(); i += 3)
    geometry.path.cubicTo(points[i], points[i + 1], points[i + 2]);
  if (!geometry.has_tip) geometry.tip = geometry.path.currentPosition();
  return geometry;
}

LayoutResult run_graphviz_layout(const LayoutInput& input) {
  std::lock_guard lock(graphviz_mutex());

  ContextHandle gvc(gvContextPlugins(lt_preloaded_symbols, 0));
  if (!gvc) throw LayoutError("Graphviz: cannot create a context");
  GraphHandle graph(gvc.get(), agopen(const_cast<char*>("flowlens"), Agdirected, nullptr));
  Agraph_t* g = graph.get();
  if (!g) throw LayoutError("Graphviz: cannot create a graph");

  set(g, "rankdir", "TB");
  set(g, "nodesep", "0.3");
  set(g, "ranksep", "0.45");
  set(g, "fontsize", "11");
  set(g, "fontname", "Helvetica");
  set(g, "labeljust", "l");

  const auto [cluster_order, box_order] = creation_order(input);
  std::vector<Agraph_t*> clusters(input.clusters.size(), nullptr);
  for (const int i : cluster_order) {
    const auto& spec = input.clusters[static_cast<std::size_t>(i)];
    Agraph_t* parent = spec.parent >= 0 && spec.parent < i ? clusters[static_cast<std::size_t>(spec.parent)] : g;
    Agraph_t* sg = agsubg(parent, c("cluster_" + std::to_string(i)), 1);
    // The label only reserves room at the top; the scene draws its own text.
    set(sg, "label", spec.label.toStdString());
    set(sg, "margin", "10");
    clusters[static_cast<std::size_t>(i)] = sg;
  }

  std::vector<Agnode_t*> nodes(input.boxes.size(), nullptr);
  for (const int i : box_order) {
    const auto& box = input.boxes[static_cast<std::size_t>(i)];
    Agraph_t* owner = box.cluster >= 0 && box.cluster < static_cast<int>(clusters.size()) ? clusters[static_cast<std::size_t>(box.cluster)] : g;
    Agnode_t* n = agnode(owner, c("n" + std::to_string(i)), 1);
    set(n, "shape", "box");
    set(n, "fixedsize", "true");
    set(n, "label", "");
    set(n, "width", inches(box.width));
    set(n, "height", inches(box.height));
    nodes[static_cast<std::size_t>(i)] = n;
  }

  std::vector<Agedge_t*> edges;
  edges.reserve(input.edges.size());
  const int box_count = static_cast<int>(nodes.size());
  for (std::size_t i = 0; i < input.edges.size(); ++i) {
    const auto& spec = input.edges[i];
    if (spec.from < 0 || spec.to < 0 || spec.from >= box_count || spec.to >= box_count)
      throw LayoutError("Graphviz: edge refers to a missing node");
    Agedge_t* e = agedge(g, nodes[spec.from], nodes[spec.to], c("e" + std::to_string(i)), 1);
    set(e, "arrowsize", "0.7");
    if (!spec.constraint) set(e, "constraint", "false");
    edges.push_back(e);
  }

  if (gvLayout(gvc.get(), g, "dot") != 0) throw LayoutError("Graphviz: dot layout failed");
  graph.mark_laid_out();
  // Rendering to the "dot" format is what writes pos/bb attributes back onto
  // the objects; the text itself is not needed.
  char* text = nullptr;
  unsigned int length = 0;
  if (gvRenderData(gvc.get(), g, "dot", &text, &length) != 0) {
    gvFreeRenderData(text);
    throw LayoutError("Graphviz: cannot read the layout back");
  }
  gvFreeRenderData(text);

  LayoutResult result;
  const QRectF raw = parse_bb(get(g, "bb"), 0);  // y still up (negated)
  const double height = raw.height();
  result.bounds = parse_bb(get(g, "bb"), height);
  result.box_centers.reserve(nodes.size());
  for (Agnode_t* n : nodes) result.box_centers.push_back(parse_point(QString::fromLatin1(get(n, "pos")), height));
  result.edges.reserve(edges.size());
  for (Agedge_t* e : edges) result.edges.push_back(parse_edge_pos(QString::fromLatin1(get(e, "pos")), height));
  result.cluster_rects.reserve(clusters.size());
  for (Agraph_t* sg : clusters) result.cluster_rects.push_back(parse_bb(get(sg, "bb"), height));
  order_sibling_frames(input, result);
  return result;
}

}  // namespace flowlens::ui

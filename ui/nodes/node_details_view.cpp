#include "ui/nodes/node_details_view.h"

#include <QPalette>
#include <QUrl>

#include "graph/edge_index.h"
#include "graph/node.h"
#include "ui/document/graph_document.h"

namespace flowlens::ui {
namespace {

constexpr char kNodeScheme[] = "node";

QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

QString node_link(const std::string& name, const QString& label) {
  QUrl url;
  url.setScheme(QLatin1String(kNodeScheme));
  url.setPath(QString::fromStdString(name));
  return QStringLiteral("<a href=\"%1\">%2</a>").arg(url.toString(QUrl::FullyEncoded).toHtmlEscaped(), label);
}

QString section(const QString& title, int count) {
  return QStringLiteral("<h4>%1 <span class=\"count\">(%2)</span></h4>").arg(title).arg(count);
}

QString muted(const QString& text) { return QStringLiteral("<p class=\"muted\">%1</p>").arg(text); }

}  // namespace

NodeDetailsView::NodeDetailsView(QWidget* parent) : QTextBrowser(parent) {
  setOpenLinks(false);
  setOpenExternalLinks(false);
  setFrameShape(QFrame::NoFrame);
  document()->setDocumentMargin(10);
  const QColor mid = palette().color(QPalette::PlaceholderText);
  document()->setDefaultStyleSheet(QStringLiteral(
      "h3 { margin-top: 0px; margin-bottom: 6px; }"
      "h4 { margin-top: 12px; margin-bottom: 4px; }"
      "p { margin-top: 1px; margin-bottom: 1px; }"
      ".muted, .count { color: %1; }"
      ".key { font-weight: 600; }"
      ".error { color: #c62828; }"
      ".warning { color: #9a6200; }"
      "a { text-decoration: none; }")
                                       .arg(mid.name()));
  connect(this, &QTextBrowser::anchorClicked, this, &NodeDetailsView::on_anchor);
  clear_node();
}

void NodeDetailsView::clear_node() {
  doc_.reset();
  index_ = -1;
  setHtml(muted(QStringLiteral("Select a node to see its details.")));
}

void NodeDetailsView::show_node(std::shared_ptr<const GraphDocument> doc, int index) {
  if (!doc || !doc->graph || index < 0 || index >= doc->node_count()) {
    clear_node();
    return;
  }
  doc_ = std::move(doc);
  index_ = index;
  const auto& nodes = doc_->graph->nodes();
  const Node& n = nodes[static_cast<std::size_t>(index)];

  QString html;
  html += QStringLiteral("<h3>%1</h3>").arg(esc(n.name));
  html += QStringLiteral("<p><span class=\"key\">Op:</span> %1</p>").arg(esc(n.op));
  html += QStringLiteral("<p><span class=\"key\">Device:</span> %1</p>")
              .arg(n.device.empty() ? QStringLiteral("<span class=\"muted\">(none requested)</span>") : esc(n.device));

  if (facts_doc_ != doc_) {
    facts_doc_ = doc_;
    facts_ = std::make_unique<NodeFacts>(*doc_);
  }
  const QString actual = facts_->actual_device(index);
  const QString reason = facts_->placement_reason(index);
  html += QStringLiteral("<p><span class=\"key\">Device (actual):</span> %1%2</p>")
              .arg(actual.isEmpty() ? QStringLiteral("<span class=\"muted\">(not placed)</span>") : actual.toHtmlEscaped(),
                   reason.isEmpty() ? QString()
                                    : QStringLiteral(" <span class=\"warning\">(soft placement: %1)</span>")
                                          .arg(reason.toHtmlEscaped()));

  const QStringList outputs = facts_->outputs(index);
  html += section(QStringLiteral("Outputs"), static_cast<int>(outputs.size()));
  if (outputs.isEmpty()) html += muted(QStringLiteral("Unknown"));
  for (int i = 0; i < outputs.size(); ++i)
    html += QStringLiteral("<p><span class=\"key\">%1:</span> %2</p>").arg(i).arg(outputs[i].toHtmlEscaped());

  html += section(QStringLiteral("Inputs"), static_cast<int>(n.inputs.size()));
  if (n.inputs.empty()) html += muted(QStringLiteral("None"));
  const std::span<const InputEdge> inputs = doc_->graph->edges().inputs(index);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::string& input = n.inputs[k];
    const InputEdge& edge = inputs[k];
    if (edge.producer == InputEdge::kMalformed) {
      html += QStringLiteral("<p class=\"error\">%1 (malformed)</p>").arg(esc(input));
      continue;
    }
    const std::string producer = edge.resolved() ? nodes[static_cast<std::size_t>(edge.producer)].name
                                                 : std::string(TensorIdView::parse(input)->node);
    const QString label =
        edge.is_control() ? esc(producer) + QStringLiteral(" <span class=\"muted\">(control)</span>") : esc(input);
    html += QStringLiteral("<p>%1</p>").arg(edge.resolved() ? node_link(producer, label)
                                                            : label + QStringLiteral(" <span class=\"error\">(missing)</span>"));
  }

  const std::vector<int> users = doc_->consumers(index);
  html += section(QStringLiteral("Used by"), static_cast<int>(users.size()));
  if (users.empty()) html += muted(QStringLiteral("None"));
  for (int u : users) {
    const std::string& name = nodes[static_cast<std::size_t>(u)].name;
    html += QStringLiteral("<p>%1</p>").arg(node_link(name, esc(name)));
  }

  html += section(QStringLiteral("Attributes"), static_cast<int>(n.attrs.size()));
  if (n.attrs.empty()) html += muted(QStringLiteral("None"));
  for (const auto& [key, value] : n.attrs)
    html += QStringLiteral("<p><span class=\"key\">%1:</span> %2</p>").arg(esc(key), esc(value.to_string()));

  QString diags;
  int count = 0;
  for (const auto& d : doc_->diagnostics()) {
    if (d.node != n.name) continue;
    ++count;
    diags += QStringLiteral("<p class=\"%1\">%2: %3</p>")
                 .arg(d.is_error() ? QStringLiteral("error") : QStringLiteral("warning"),
                      d.is_error() ? QStringLiteral("Error") : QStringLiteral("Warning"), esc(d.message));
  }
  if (count) html += section(QStringLiteral("Diagnostics"), count) + diags;

  setHtml(html);
}

void NodeDetailsView::on_anchor(const QUrl& url) {
  if (url.scheme() == QLatin1String(kNodeScheme)) emit node_activated(url.path());
}

}  // namespace flowlens::ui

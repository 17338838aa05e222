#include "ui/nodes/node_table_model.h"

#include <QStringList>

namespace flowlens::ui {

NodeTableModel::NodeTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void NodeTableModel::set_graph(std::shared_ptr<const flowlens::Graph> graph) {
  beginResetModel();
  graph_ = std::move(graph);
  rows_.clear();
  if (graph_) {
    rows_.reserve(graph_->size());
    for (const Node& n : graph_->nodes()) {
      QStringList inputs;
      inputs.reserve(static_cast<qsizetype>(n.inputs.size()));
      for (const std::string& in : n.inputs) inputs << QString::fromStdString(in);
      rows_.push_back({QString::fromStdString(n.name), QString::fromStdString(n.op),
                       QString::fromStdString(n.device), inputs.join(QStringLiteral(", "))});
    }
  }
  endResetModel();
}

const flowlens::Node* NodeTableModel::node_at(int row) const {
  if (!graph_ || row < 0 || row >= static_cast<int>(graph_->size())) return nullptr;
  return &graph_->nodes()[static_cast<std::size_t>(row)];
}

int NodeTableModel::row_of(const QString& name) const {
  return graph_ ? graph_->index_of(name.toStdString()) : -1;
}

int NodeTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int NodeTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant NodeTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const Row& row = rows_[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case NameColumn: return row.name;
        case OpColumn: return row.op;
        case DeviceColumn: return row.device;
        case InputsColumn: return row.inputs;
      }
      return {};
    case Qt::ToolTipRole:
      switch (index.column()) {
        case NameColumn: return row.name;
        case OpColumn: return row.op;
        case DeviceColumn: return row.device.isEmpty() ? QStringLiteral("No device requested") : row.device;
        case InputsColumn: {
          const Node& n = graph_->nodes()[static_cast<std::size_t>(index.row())];
          if (n.inputs.empty()) return QStringLiteral("No inputs");
          QStringList lines;
          for (const std::string& in : n.inputs) lines << QString::fromStdString(in);
          return lines.join(QLatin1Char('\n'));
        }
      }
      return {};
    case NodeIndexRole:
      return index.row();
  }
  return {};
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  if (orientation == Qt::Vertical) return section + 1;
  switch (section) {
    case NameColumn: return QStringLiteral("Name");
    case OpColumn: return QStringLiteral("Op");
    case DeviceColumn: return QStringLiteral("Device");
    case InputsColumn: return QStringLiteral("Inputs");
  }
  return {};
}

}  // namespace flowlens::ui

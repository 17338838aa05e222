#pragma once
// The nodes of a graph as a read-only table: Name, Op, Device, Inputs, one row
// per node in file order (row == index into Graph::nodes()).
#include <QAbstractTableModel>
#include <QString>
#include <memory>
#include <vector>

#include "graph/graph.h"

namespace flowlens::ui {

class NodeTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { NameColumn, OpColumn, DeviceColumn, InputsColumn, ColumnCount };
  enum Role {
    NodeIndexRole = Qt::UserRole + 1,  // int: index into Graph::nodes()
  };

  explicit NodeTableModel(QObject* parent = nullptr);

  // Replaces the graph (nullptr clears the table); resets the model.
  void set_graph(std::shared_ptr<const flowlens::Graph> graph);
  const std::shared_ptr<const flowlens::Graph>& graph() const { return graph_; }

  const flowlens::Node* node_at(int row) const;
  // Row of the first node with this name, or -1.
  int row_of(const QString& name) const;

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  // Qt strings are built once per load: sorting and filtering then never
  // convert from std::string.
  struct Row {
    QString name, op, device, inputs;
  };
  std::shared_ptr<const flowlens::Graph> graph_;
  std::vector<Row> rows_;
};

}  // namespace flowlens::ui

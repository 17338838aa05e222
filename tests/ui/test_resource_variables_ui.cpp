// Resource variables in the GUI: the editor's Run initializes them and shows
// a fetched VarHandleOp by its variable's value (as a ref variable is
// shown), inferred output texts name the variable, and the tensor viewer
// takes a tensor of handles without trouble.
#include "test_main.h"
#include <QtTest>

#include "io/graph_io.h"
#include "ui/editor/editor_run.h"
#include "ui/editor/graph_check.h"
#include "ui/tensor/tensor_catalog.h"
#include "ui/tensor/tensor_viewer.h"

using namespace flowlens;

namespace {

const char* kGraph = R"(
node { name: 'v' op: 'VarHandleOp' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { dim { size: 2 } } } } attr { key: 'shared_name' value { s: 'v' } } }
node { name: 'v/Initializer/initial_value' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }
node { name: 'v/Assign' op: 'AssignVariableOp' input: 'v' input: 'v/Initializer/initial_value'
  attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'v/Read/ReadVariableOp' op: 'ReadVariableOp' input: 'v' attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'doubled' op: 'AddV2' input: 'v/Read/ReadVariableOp' input: 'v/Read/ReadVariableOp'
  attr { key: 'T' value { type: DT_FLOAT } } }
)";

}  // namespace

class ResourceVariablesUiTest : public QObject {
  Q_OBJECT
 private slots:
  void editor_run_shows_the_variables_value() {
    const Graph g = parse_graph_text(kGraph, "resource.pbtxt");
    const ui::EditorRunResult r = ui::run_graph_once(g, QStringLiteral("v, doubled"));
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(r.lines, (QStringList{QStringLiteral("v = [1,2]"), QStringLiteral("doubled = [2,4]")}));
    QCOMPARE(r.values[0].dtype(), DType::Float);
  }

  void inferred_texts_name_the_variable() {
    const TensorInfo handle{DType::Resource, Shape{}, DType::Float, Shape{2, 3}};
    QCOMPARE(ui::describe_tensor_info(handle), QStringLiteral("resource variable float32[2,3]"));
    QCOMPARE(ui::describe_tensor_info({DType::Resource, Shape{}}), QStringLiteral("resource[]"));
  }

  void the_viewer_takes_a_tensor_of_handles() {
    ResourceHandle h;
    h.container = "localhost";
    h.name = "v";
    ui::TensorCatalog catalog;
    ui::TensorViewer viewer(&catalog);
    viewer.set_tensor(QStringLiteral("handles"), Tensor::from_handles(Shape{2}, {h, h}));
    QCOMPARE(viewer.label(), QStringLiteral("handles"));
  }
};

FLOWLENS_TEST_MAIN(ResourceVariablesUiTest)
#include "test_resource_variables_ui.moc"

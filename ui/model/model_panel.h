#pragma once
// The Model dock: what an opened SavedModel or .meta file offers. At the top
// the model's kind, tags and TensorFlow version; a tree of its SignatureDefs
// (key and method, each input and output with dtype, shape and graph tensor);
// below, "Run signature": pick a signature, type each input (a value as
// flowlens-run --input takes it, read as the input's dtype and fitted to its
// shape, or the path of a .npy file) and run it off the UI thread
// (SignatureRunner). Outputs are listed by key; double-clicking one opens it
// in the tensor viewer.
#include <QString>
#include <QWidget>
#include <map>
#include <memory>
#include <string>

#include "io/meta_graph.h"
#include "tensor/tensor.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
class QTreeWidget;

namespace flowlens::ui {

struct ModelSource;
struct SignatureOutcome;
class SignatureRunner;

// A signature input typed by the user: a ".npy" path (relative ones against
// `base_dir`) is read, anything else parsed with parse_tensor_text as the
// input's dtype ("1, 2, 3" reads as "[1, 2, 3]"). When the input's rank is
// known and the value's differs, it is reshaped to the input's shape if the
// element count fits (one unknown dimension takes what is left): "1,2,3" for
// a [?,1] input becomes [[1],[2],[3]]. Throws Error naming the input.
Tensor parse_signature_input(const QString& text, const SignatureTensor& input, const QString& base_dir = {});

class ModelPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ModelPanel(QWidget* parent = nullptr);
  ~ModelPanel() override;

  // Null: "No model open". Waits for a run of the previous model.
  void set_model(std::shared_ptr<const ModelSource> model);
  const std::shared_ptr<const ModelSource>& model() const { return model_; }

  // For tests and scripts.
  QStringList signature_keys() const;  // as the tree lists them
  bool select_signature(const QString& key);
  QString current_signature() const;
  QLineEdit* input_edit(const QString& key) const;  // null if the signature has no such input
  // Parses the inputs and starts the run; false with `error` (also shown) when it cannot start.
  bool run(QString* error = nullptr);
  bool wait_for_run(int timeout_ms);
  const std::map<std::string, Tensor>& outputs() const { return outputs_; }
  QString status_text() const;

  QTreeWidget* signature_tree() const { return tree_; }
  QTableWidget* output_table() const { return output_table_; }
  SignatureRunner* runner() const { return runner_; }

 signals:
  // An output double-clicked ("serving_default:y").
  void tensor_activated(const QString& label, const flowlens::Tensor& tensor);
  // A run finished with these outputs, labelled as above.
  void outputs_ready(const QList<QPair<QString, flowlens::Tensor>>& outputs);

 private:
  void fill_tree();
  void rebuild_inputs();
  void on_finished(const SignatureOutcome& outcome);
  void set_status(const QString& text, bool error);
  void choose_npy(QLineEdit* edit);
  const Signature* signature(const QString& key) const;

  std::shared_ptr<const ModelSource> model_;
  SignatureRunner* runner_ = nullptr;
  QLabel* info_ = nullptr;
  QTreeWidget* tree_ = nullptr;
  QComboBox* signature_combo_ = nullptr;
  QWidget* inputs_box_ = nullptr;
  QFormLayout* inputs_form_ = nullptr;
  std::map<QString, QLineEdit*> input_edits_;
  QPushButton* run_button_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* output_table_ = nullptr;
  std::map<std::string, Tensor> outputs_;
  QString outputs_signature_;
};

}  // namespace flowlens::ui

// SavedModels and meta graphs: reading them, restoring variables the way
// TensorFlow's loader does, running signatures, and the errors a user gets.
// The fixtures in tests/data/saved_model/ are written by make_fixtures.py in
// TensorFlow's text format, with checkpoint bytes assembled by hand.
#include "test_main.h"
#include <QTemporaryDir>
#include <QtTest>
#include <google/protobuf/text_format.h>

#include <filesystem>
#include <fstream>

#include "exec/loaded_model.h"
#include "exec/variable_checkpoint.h"
#include "io/example_json.h"
#include "io/file_formats.h"
#include "io/graph_io.h"
#include "io/meta_graph.h"
#include "io/meta_graph.pb.h"
#include "io/checkpoint_reader.h"
#include "io/tensor_bundle.h"
#include "io/tensor_slice_checkpoint.h"
#include "ops/framework/kernel_context.h"
#include "transform/freeze_graph.h"

using namespace flowlens;
namespace fs = std::filesystem;

namespace {

std::string fixture(const char* name) { return std::string(FLOWLENS_TEST_DATA) + "/saved_model/" + name; }

std::string copy_fixture(const QTemporaryDir& dir, const char* name) {
  const std::string to = dir.filePath(name).toStdString();
  fs::copy(fixture(name), to, fs::copy_options::recursive);
  return to;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

Tensor column(std::vector<float> values) {
  const auto n = static_cast<int64_t>(values.size());
  return Tensor::from_vector<float>(Shape{n, 1}, values);
}

std::vector<float> floats(const Tensor& t) { return {t.data<float>(), t.data<float>() + t.num_elements()}; }

template <class F>
QString error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

// The text fixture as a binary SavedModel, and its one meta graph as a .meta.
std::string binary_saved_model(const std::string& dir) {
  proto::SavedModel model;
  google::protobuf::TextFormat::ParseFromString(read_text(dir + "/saved_model.pbtxt"), &model);
  return model.SerializeAsString();
}

}  // namespace

class TestSavedModel : public QObject {
  Q_OBJECT
 private slots:
  void reads_signatures_saver_collections_and_assets() {
    const SavedModel model = load_saved_model(fixture("half_plus_two_resource"));
    QCOMPARE(model.schema_version, int64_t{1});
    QCOMPARE(model.meta_graphs.size(), std::size_t{1});
    const MetaGraph& meta = model.default_meta_graph();
    QCOMPARE(meta.tags, std::vector<std::string>{"serve"});
    QCOMPARE(meta.tensorflow_version, std::string("1.15.5"));
    QVERIFY(meta.graph.find("save/RestoreV2"));
    QVERIFY(meta.saver);
    QCOMPARE(meta.saver->restore_op, std::string("save/restore_all"));
    QCOMPARE(meta.saver->filename_tensor, std::string("save/Const:0"));
    QCOMPARE(meta.saver->version, 2);
    QCOMPARE(meta.signatures.size(), std::size_t{2});
    const Signature* sig = meta.find_signature("serving_default");
    QVERIFY(sig);
    QCOMPARE(sig->method_name, std::string("tensorflow/serving/predict"));
    QCOMPARE(sig->inputs.size(), std::size_t{1});
    QCOMPARE(sig->inputs[0].key, std::string("x"));
    QCOMPARE(sig->inputs[0].tensor_name, std::string("x:0"));
    QCOMPARE(sig->inputs[0].dtype, DType::Float);
    QCOMPARE(sig->inputs[0].shape, (Shape{-1, 1}));
    QCOMPARE(sig->output("y")->tensor_name, std::string("y:0"));
    const Collection* variables = meta.find_collection("variables");
    QVERIFY(variables);
    QCOMPARE(variables->kind, std::string("bytes_list"));
    QCOMPARE(variables->values, (std::vector<std::string>{"a", "b", "c"}));
    QCOMPARE(meta.find_collection("legacy_init_op")->values, std::vector<std::string>{"group_deps"});
    QCOMPARE(meta.assets.size(), std::size_t{1});
    QCOMPARE(meta.assets[0].filename, std::string("foo.txt"));
    QVERIFY(!meta.has_object_graph);
    QCOMPARE(model.variables_prefix(), fixture("half_plus_two_resource") + "/variables/variables");
  }

  void binary_and_text_read_alike_and_sniff() {
    QTemporaryDir dir;
    const std::string text_dir = fixture("half_plus_two_resource");
    const std::string bytes = binary_saved_model(text_dir);
    QVERIFY(looks_like_saved_model(bytes));
    QVERIFY(!looks_like_meta_graph(bytes));
    QVERIFY(looks_like_saved_model(read_text(text_dir + "/saved_model.pbtxt")));
    const SavedModel from_binary = parse_saved_model(bytes, false, "memory");
    const SavedModel from_text = load_saved_model(text_dir + "/saved_model.pbtxt");
    QCOMPARE(from_binary.meta_graphs[0].graph.size(), from_text.meta_graphs[0].graph.size());
    QCOMPARE(from_binary.meta_graphs[0].signatures.size(), from_text.meta_graphs[0].signatures.size());
    // A .pb holding a SavedModel or a MetaGraphDef opens as one, whatever its name.
    proto::SavedModel model;
    model.ParseFromString(bytes);
    const std::string meta_bytes = model.meta_graphs(0).SerializeAsString();
    QVERIFY(looks_like_meta_graph(meta_bytes));
    QVERIFY(!looks_like_saved_model(meta_bytes));
    const std::string as_pb = dir.filePath("exported.pb").toStdString();
    write_text(as_pb, bytes);
    QCOMPARE(detect_file_format(as_pb), FileFormat::SavedModel);
    write_text(as_pb, meta_bytes);
    QCOMPARE(detect_file_format(as_pb), FileFormat::MetaGraph);
    QCOMPARE(load_graph(as_pb).size(), from_text.meta_graphs[0].graph.size());
    // A plain GraphDef stays one.
    const std::string graph_pb = dir.filePath("graph.pb").toStdString();
    write_text(graph_pb, graph_to_binary(from_text.meta_graphs[0].graph));
    QCOMPARE(detect_file_format(graph_pb), FileFormat::GraphDefBinary);
    QCOMPARE(detect_file_format(text_dir), FileFormat::SavedModel);
    QCOMPARE(load_graph(text_dir).size(), from_text.meta_graphs[0].graph.size());
  }

  void unknown_fields_are_skipped_and_tf2_is_recognised() {
    proto::SavedModel model;
    google::protobuf::TextFormat::ParseFromString(
        read_text(fixture("half_plus_two_resource") + "/saved_model.pbtxt"), &model);
    std::string meta = model.meta_graphs(0).SerializeAsString();
    // object_graph_def (7) as TF2 writes it, and a field from the future (99).
    meta += std::string("\x3a\x02\x0a\x00", 4) + std::string("\x9a\x06\x01\x41", 4);
    const MetaGraph parsed = parse_meta_graph(meta, false, "tf2.meta");
    QVERIFY(parsed.has_object_graph);
    QCOMPARE(parsed.signatures.size(), std::size_t{2});
    // Text with a field FlowLens does not know.
    const std::string text = "meta_info_def { tags: \"serve\" future_field: 3 }\ngraph_def { }\n";
    QCOMPARE(parse_meta_graph(text, true, "t.meta").tags, std::vector<std::string>{"serve"});
  }

  void tf2_saved_model_opens_restores_and_serves() {
    const SavedModel model = load_saved_model(fixture("tf2_module"));
    const MetaGraph& meta = model.default_meta_graph();
    QVERIFY(meta.has_object_graph);
    QCOMPARE(meta.graph.function_names,
             (std::vector<std::string>{"__inference_signature_wrapper_21", "__inference__traced_save_40",
                                       "__inference__traced_restore_50"}));
    const Signature* sig = meta.find_signature("serving_default");
    QVERIFY(sig);
    QCOMPARE(sig->input("x")->tensor_name, std::string("serving_default_x:0"));
    QCOMPARE(sig->output("output_0")->tensor_name, std::string("StatefulPartitionedCall:0"));
    QCOMPARE(load_graph(fixture("tf2_module")).size(), meta.graph.size());
    // The restore runs __inference__traced_restore_50 (RestoreV2 + AssignVariableOp on the
    // resource argument); the signature multiplies by the restored w.
    LoadedModel loaded = LoadedModel::load(fixture("tf2_module"));
    Session& session = loaded.session();
    const std::vector<Tensor> out = session.run({{"serving_default_x:0", Tensor::from_vector<float>(Shape{2, 1}, {1.f, 4.f})}},
                                                {"StatefulPartitionedCall:0"});
    const Variable* w = session.find_variable("w");
    QVERIFY(w && w->value.valid());
    const float wv = w->value.data<float>()[0];
    QVERIFY(wv != 0.f);
    QCOMPARE(out[0].data<float>()[0], wv * 1.f);
    QCOMPARE(out[0].data<float>()[1], wv * 4.f);
  }

  void bad_files_name_themselves() {
    QString message = error_of([] { parse_saved_model("saved_model_schema_version: 1\nmeta_graphs { graph_def { node { name: 3 } } }", true, "bad.pbtxt"); });
    QVERIFY2(message.startsWith("bad.pbtxt:2:"), qPrintable(message));
    message = error_of([] { parse_saved_model(std::string("\x08\x01\x12\x05\x0a\x03\x0a", 7), false, "cut.pb"); });
    QVERIFY2(message.contains("cut.pb") && message.contains("not a valid binary SavedModel"), qPrintable(message));
    message = error_of([] { parse_saved_model("saved_model_schema_version: 1\n", true, "empty.pbtxt"); });
    QVERIFY2(message.contains("no meta graphs"), qPrintable(message));
    QTemporaryDir dir;
    message = error_of([&] { load_saved_model(dir.path().toStdString()); });
    QVERIFY2(message.contains("holds no saved_model.pb"), qPrintable(message));
  }

  void runs_signatures_with_restored_variables_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("resource variables, unsharded saver") << "half_plus_two_resource";
  }
  void runs_signatures_with_restored_variables() {
    QFETCH(QString, model);
    QTemporaryDir dir;
    const std::string path = copy_fixture(dir, model.toStdString().c_str());
    LoadedModel loaded = LoadedModel::load(path);
    QCOMPARE(loaded.restored_from(), path + "/variables/variables");
    const auto y = loaded.run_signature("serving_default", {{"x", column({1, 2, 3})}});
    QCOMPARE(y.size(), std::size_t{1});
    QCOMPARE(floats(y.at("y")), (std::vector<float>{2.5f, 3.0f, 3.5f}));
    const auto y2 = loaded.run_signature("regress_x_to_y2", {{"x", column({4})}});
    QCOMPARE(floats(y2.at("y2")), std::vector<float>{5.0f});
    // The asset's path was fed to its tensor and the legacy init op stored it.
    Variable* asset = loaded.session().find_variable("filename_tensor");
    QVERIFY(asset && asset->value.valid());
    QCOMPARE(asset->value.strings()[0], path + "/assets/foo.txt");
  }

  void tf_example_signatures_and_the_sharded_saver() {
    // half_plus_two's shape: serving_default and regress_x_to_y take
    // serialized tf.Examples through ParseExample; the Saver is sharded.
    QTemporaryDir dir;
    const std::string path = copy_fixture(dir, "half_plus_two_v1");
    LoadedModel loaded = LoadedModel::load(path);
    const std::vector<std::string> examples = examples_from_json(R"([{"x": [1.0]}, {"x": [3.0]}])");
    const Tensor batch = Tensor::from_strings(Shape{2}, examples);
    QCOMPARE(floats(loaded.run_signature("regress_x_to_y", {{"inputs", batch}}).at("outputs")),
             (std::vector<float>{2.5f, 3.5f}));
    QCOMPARE(floats(loaded.run_signature("serving_default", {{"inputs", batch}}).at("scores")),
             (std::vector<float>{2.5f, 3.5f}));
    QCOMPARE(floats(loaded.run_signature("regress_x_to_y2", {{"x", column({2})}}).at("y2")), std::vector<float>{4.0f});
    // A required feature missing from an example fails naming it.
    const Tensor missing = Tensor::from_strings(Shape{1}, examples_from_json(R"([{"z": [1.0]}])"));
    const QString message = error_of([&] { loaded.run_signature("regress_x_to_y", {{"inputs", missing}}); });
    QVERIFY2(message.contains("x"), qPrintable(message));
    // The sharded save: StringJoin -> ShardedFilename -> SaveV2 -> MergeV2Checkpoints.
    const std::string prefix = dir.filePath("out/model.ckpt-1").toStdString();
    const auto saved = loaded.session().run({{"save/Const:0", Tensor::from_strings(Shape{}, {prefix})}},
                                            {"save/Identity:0"});
    QCOMPARE(saved[0].strings()[0], prefix);
    BundleReader reader(prefix);
    QCOMPARE(reader.read("b").data<float>()[0], 2.0f);
    for (const auto& f : fs::directory_iterator(dir.filePath("out").toStdString()))
      QVERIFY2(f.path().filename().string().find("_temp_") == std::string::npos, f.path().c_str());
  }

  void signature_errors_list_what_exists() {
    LoadedModel loaded = LoadedModel::load(fixture("half_plus_two_resource"));
    QString message = error_of([&] { loaded.run_signature("predict", {}); });
    QVERIFY2(message.contains("no signature 'predict'") && message.contains("serving_default") &&
                 message.contains("regress_x_to_y2"),
             qPrintable(message));
    message = error_of([&] { loaded.run_signature("serving_default", {}); });
    QVERIFY2(message.contains("needs input 'x'"), qPrintable(message));
    message = error_of([&] { loaded.run_signature("serving_default", {{"x", column({1})}, {"z", column({1})}}); });
    QVERIFY2(message.contains("no input 'z'"), qPrintable(message));
    message = error_of([&] {
      loaded.run_signature("serving_default", {{"x", Tensor::from_vector<int32_t>(Shape{1, 1}, {1})}});
    });
    QVERIFY2(message.contains("expects float32"), qPrintable(message));
    message = error_of([&] { loaded.run_signature("serving_default", {{"x", column({1})}}, {"nope"}); });
    QVERIFY2(message.contains("no output 'nope'"), qPrintable(message));
  }

  void restores_from_another_checkpoint_and_saves_round_trip() {
    QTemporaryDir dir;
    const std::string other = dir.filePath("trained/model.ckpt-9").toStdString();
    write_bundle(other, {{"a", Tensor::scalar<float>(2.0f)}, {"b", Tensor::scalar<float>(-1.0f)},
                         {"c", Tensor::scalar<float>(0.0f)}});
    ModelLoadOptions options;
    options.checkpoint = other;
    LoadedModel loaded = LoadedModel::load(fixture("half_plus_two_resource"), options);
    QCOMPARE(floats(loaded.run_signature("serving_default", {{"x", column({3})}}).at("y")), std::vector<float>{5.0f});
    // The graph's own SaveV2 writes a checkpoint TensorFlow's layout reads back.
    const std::string saved = dir.filePath("saved/ckpt").toStdString();
    loaded.session().run({{"save/Const:0", Tensor::from_strings(Shape{}, {saved})}}, {"save/control_dependency:0"});
    BundleReader reader(saved);
    QCOMPARE(reader.entries().size(), std::size_t{3});
    QCOMPARE(reader.read("a").data<float>()[0], 2.0f);
    QCOMPARE(reader.read("b").data<float>()[0], -1.0f);
    // And save_variables (--save-checkpoint) names them as the Saver does.
    const std::string ours = dir.filePath("ours/ckpt").toStdString();
    const SavedVariables result = save_variables(loaded.session(), ours);
    QVERIFY(std::find(result.saved.begin(), result.saved.end(), "a") != result.saved.end());
    QCOMPARE(BundleReader(ours).read("a").data<float>()[0], 2.0f);
  }

  // A graph with no Saver of its own (flowlens-run run --checkpoint): its
  // variables take the checkpoint's values by node name, as
  // tf.train.Saver().restore does; a key of another dtype or shape is refused
  // before anything changes, and a variable the checkpoint lacks is reported.
  void plain_graph_variables_restore_by_name() {
    QTemporaryDir dir;
    Session session(load_graph(std::string(FLOWLENS_SAMPLES) + "/mlp_train.pbtxt"));
    session.initialize_variables();
    const std::string saved = dir.filePath("trained/model.ckpt-5").toStdString();
    {
      Variable* w = session.find_variable("layer1/weights");
      std::lock_guard lock(w->mu);
      w->value.data<float>()[0] = 42.0f;
    }
    QCOMPARE(save_variables(session, saved).saved.size(), std::size_t{4});

    Session fresh(load_graph(std::string(FLOWLENS_SAMPLES) + "/mlp_train.pbtxt"));
    fresh.initialize_variables();
    const RestoredVariables restored = restore_variables(fresh, saved);
    QCOMPARE(restored.restored.size(), std::size_t{4});
    QCOMPARE(fresh.find_variable("layer1/weights")->value.data<float>()[0], 42.0f);

    // Only some keys: Saver.restore's NotFoundError, naming what is missing;
    // nothing changes, not even the variable whose key is there.
    const std::string partial = dir.filePath("partial").toStdString();
    Tensor changed = session.find_variable("layer1/weights")->value.clone();
    changed.data<float>()[0] = -7.0f;
    write_bundle(partial, {{"layer1/weights", changed}});
    Session third(load_graph(std::string(FLOWLENS_SAMPLES) + "/mlp_train.pbtxt"));
    third.initialize_variables();
    const float initial = third.find_variable("layer1/weights")->value.data<float>()[0];
    QString message = error_of([&] { restore_variables(third, partial); });
    QVERIFY2(message.contains("no value for the graph's variable(s) 'layer1/biases'"), qPrintable(message));
    QCOMPARE(third.find_variable("layer1/weights")->value.data<float>()[0], initial);

    // Another graph's checkpoint: wrong shape, then wrong dtype; nothing changes.
    const std::string wrong_shape = dir.filePath("shape").toStdString();
    write_bundle(wrong_shape, {{"layer1/biases", Tensor(DType::Float, Shape{3})},
                               {"layer1/weights", session.find_variable("layer1/weights")->value}});
    Session fourth(load_graph(std::string(FLOWLENS_SAMPLES) + "/mlp_train.pbtxt"));
    fourth.initialize_variables();
    const float before = fourth.find_variable("layer1/weights")->value.data<float>()[0];
    message = error_of([&] { restore_variables(fourth, wrong_shape); });
    QVERIFY2(message.contains("key 'layer1/biases' holds float32 [3]") && message.contains(wrong_shape.c_str()),
             qPrintable(message));
    QCOMPARE(fourth.find_variable("layer1/weights")->value.data<float>()[0], before);
    const std::string wrong_dtype = dir.filePath("dtype").toStdString();
    write_bundle(wrong_dtype, {{"layer1/weights", Tensor::scalar<double>(1.0)}});
    message = error_of([&] { restore_variables(fourth, wrong_dtype); });
    QVERIFY2(message.contains("holds float64") && message.contains("variable is float32"), qPrintable(message));
    // Not a checkpoint at all.
    message = error_of([&] { restore_variables(fourth, dir.filePath("nothing").toStdString()); });
    QVERIFY2(message.contains("nothing"), qPrintable(message));
  }

  void checkpoint_mismatches_name_the_tensor() {
    QTemporaryDir dir;
    const std::string wrong_dtype = dir.filePath("dtype").toStdString();
    write_bundle(wrong_dtype, {{"a", Tensor::scalar<double>(2.0)}, {"b", Tensor::scalar<float>(1)},
                               {"c", Tensor::scalar<float>(1)}});
    ModelLoadOptions options;
    options.checkpoint = wrong_dtype;
    QString message = error_of([&] { LoadedModel::load(fixture("half_plus_two_resource"), options); });
    QVERIFY2(message.contains("tensor_name = a") && message.contains("expected dtype float32") &&
                 message.contains("float64"),
             qPrintable(message));
    const std::string missing = dir.filePath("missing").toStdString();
    write_bundle(missing, {{"a", Tensor::scalar<float>(2)}, {"b", Tensor::scalar<float>(1)}});
    options.checkpoint = missing;
    message = error_of([&] { LoadedModel::load(fixture("half_plus_two_resource"), options); });
    QVERIFY2(message.contains("key c not found"), qPrintable(message));
    // A SavedModel copied without its variables folder.
    const std::string copy = copy_fixture(dir, "half_plus_two_resource");
    fs::remove_all(copy + "/variables");
    message = error_of([&] { LoadedModel::load(copy); });
    QVERIFY2(message.contains("variables/variables.index") && message.contains("does not exist"),
             qPrintable(message));
    // Tags that do not exist.
    ModelLoadOptions tagged;
    tagged.tags = {"train"};
    message = error_of([&] { LoadedModel::load(fixture("half_plus_two_resource"), tagged); });
    QVERIFY2(message.contains("no meta graph tagged {train}") && message.contains("{serve}"), qPrintable(message));
  }

  void meta_file_restores_the_checkpoint_beside_it() {
    // What tf.train.Saver leaves in a training directory.
    QTemporaryDir dir;
    proto::SavedModel model;
    google::protobuf::TextFormat::ParseFromString(
        read_text(fixture("half_plus_two_resource") + "/saved_model.pbtxt"), &model);
    const std::string meta = dir.filePath("model.ckpt-100.meta").toStdString();
    write_text(meta, model.meta_graphs(0).SerializeAsString());
    write_bundle(dir.filePath("model.ckpt-100").toStdString(),
                 {{"a", Tensor::scalar<float>(3)}, {"b", Tensor::scalar<float>(1)}, {"c", Tensor::scalar<float>(0)}});
    write_text(dir.filePath("checkpoint").toStdString(), "model_checkpoint_path: \"model.ckpt-100\"\n");
    QCOMPARE(detect_file_format(meta), FileFormat::MetaGraph);
    QCOMPARE(detect_file_format(dir.path().toStdString()), FileFormat::MetaGraph);
    for (const std::string& path : {meta, dir.path().toStdString()}) {
      LoadedModel loaded = LoadedModel::load(path);
      QCOMPARE(loaded.restored_from(), dir.filePath("model.ckpt-100").toStdString());
      QCOMPARE(floats(loaded.run_signature("serving_default", {{"x", column({2})}}).at("y")),
               std::vector<float>{7.0f});
    }
    fs::remove(dir.filePath("model.ckpt-100.index").toStdString());
    fs::remove(dir.filePath("checkpoint").toStdString());
    const QString message = error_of([&] { LoadedModel::load(meta); });
    QVERIFY2(message.contains("no checkpoint for") && message.contains("--checkpoint"), qPrintable(message));
  }

  void reads_a_v1_checkpoint_written_by_hand() {
    const std::string file = fixture("session_bundle/00000123/export-00000-of-00001");
    QVERIFY(is_tensor_slice_file(file));
    QCOMPARE(detect_file_format(file), FileFormat::Checkpoint);
    const auto reader = open_checkpoint(fixture("session_bundle/00000123/export-?????" "-of-00001"));
    QCOMPARE(reader->format_name(), std::string("V1 checkpoint"));
    QCOMPARE(reader->entries().size(), std::size_t{3});
    QCOMPARE(reader->entries()[1].name, std::string("b"));
    QCOMPARE(reader->entries()[1].num_slices, 0);  // one full slice: a whole tensor
    QCOMPARE(reader->read("b").data<float>()[0], 2.0f);
    QCOMPARE(reader->read("c").shape(), Shape{});
  }

  void v1_writer_round_trips_and_keys_match_tensorflow() {
    // EncodeTensorNameSlice("w", full slice of rank 2): NumIncreasing(0),
    // String("w"), NumIncreasing(2), then SignedNumIncreasing(0), (-1) per dim.
    QCOMPARE(encode_full_slice_key("w", 2), std::string("\x00w\x00\x01\x01\x02\x80\x7f\x80\x7f", 10));
    QTemporaryDir dir;
    const std::string path = dir.filePath("model.ckpt").toStdString();
    write_tensor_slice_checkpoint(path, {{"w", Tensor::from_vector<float>(Shape{2, 3}, {1, 2, 3, 4, 5, 6})},
                                         {"step", Tensor::scalar<int64_t>(7)},
                                         {"names", Tensor::from_strings(Shape{2}, {"x", std::string("\0y", 2)})}});
    const auto reader = open_checkpoint(path);
    QCOMPARE(floats(reader->read("w")), (std::vector<float>{1, 2, 3, 4, 5, 6}));
    QCOMPARE(reader->read("w").shape(), (Shape{2, 3}));
    QCOMPARE(reader->read("step").data<int64_t>()[0], int64_t{7});
    QCOMPARE(reader->read("names").strings()[1], std::string("\0y", 2));
    QVERIFY(error_of([&] { open_checkpoint(dir.filePath("nothing-*").toStdString()); }).contains("nothing-*"));
  }

  void session_bundle_restores_its_v1_checkpoint() {
    const std::string meta = fixture("session_bundle/00000123/export.meta");
    QCOMPARE(detect_file_format(meta), FileFormat::MetaGraph);
    LoadedModel loaded = LoadedModel::load(meta);
    QVERIFY2(loaded.restored_from().ends_with("export-?????" "-of-?????"), loaded.restored_from().c_str());
    // The bundle's default regression signature and its generic pair.
    const auto y = loaded.run_signature("serving_default", {{"inputs", column({2})}});
    QCOMPARE(floats(y.at("outputs")), std::vector<float>{3.0f});
    const auto y2 = loaded.run_signature("predict", {{"x", column({2})}});
    QCOMPARE(floats(y2.at("y2")), std::vector<float>{4.0f});
    // Its own SaveSlices writes a V1 file RestoreSlice reads back.
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("again").toStdString();
    loaded.session().run({{"save/Const:0", Tensor::from_strings(Shape{}, {prefix})}}, {"save/control_dependency:0"});
    const auto reader = open_checkpoint(prefix + "-?????" "-of-00001");
    QCOMPARE(reader->read("a").data<float>()[0], 0.5f);
  }

  void freezing_folds_restored_variables_into_constants() {
    LoadedModel loaded = LoadedModel::load(fixture("half_plus_two_resource"));
    const FrozenGraph frozen = freeze_graph(loaded.session(), {"y:0"});
    QCOMPARE(frozen.frozen, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(frozen.graph.find("a")->op, std::string("Const"));
    QCOMPARE(frozen.graph.find("a/Read/ReadVariableOp")->op, std::string("Identity"));
    QVERIFY(!frozen.graph.find("c"));               // not on y's path
    QVERIFY(!frozen.graph.find("save/RestoreV2"));  // nor is the saver
    Session session(frozen.graph);
    const auto y = session.run({{"x", column({1, 2})}}, {"y"});
    QCOMPARE(floats(y[0]), (std::vector<float>{2.5f, 3.0f}));
    // Through text and back: what `convert --freeze -o frozen.pbtxt` writes runs alike.
    Session reread(parse_graph_text(graph_to_text(frozen.graph), "frozen.pbtxt"));
    QCOMPARE(floats(reread.run({{"x", column({4})}}, {"y"})[0]), std::vector<float>{4.0f});
  }

  void freezing_refuses_mismatched_values() {
    const Graph graph = load_saved_model(fixture("half_plus_two_resource")).default_meta_graph().graph;
    QString message = error_of([&] {
      freeze_graph(graph, {"y"}, [](const Node& n) {
        return n.name == "a" ? Tensor::scalar<double>(1) : Tensor::scalar<float>(1);
      });
    });
    QVERIFY2(message.contains("'a' is float32 in the graph but its value is float64"), qPrintable(message));
    message = error_of([&] {
      freeze_graph(graph, {"y"}, [](const Node& n) {
        return n.name == "b" ? Tensor::from_vector<float>(Shape{2}, {1, 2}) : Tensor::scalar<float>(1);
      });
    });
    QVERIFY2(message.contains("'b' has shape [] in the graph but its value has shape [2]"), qPrintable(message));
    message = error_of([&] { freeze_graph(graph, {"y"}, [](const Node&) { return Tensor(); }); });
    QVERIFY2(message.contains("has no value"), qPrintable(message));
    message = error_of([&] { freeze_graph(graph, {"nope:0"}, [](const Node&) { return Tensor(); }); });
    QVERIFY2(message.contains("no node named 'nope'"), qPrintable(message));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestSavedModel)
#include "test_saved_model.moc"

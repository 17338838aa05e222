// GraphDef text/binary conversion: lossless round trips, TensorProto decoding
// rules (tensor_content, typed *_val fields, repeat-last-value), attr kinds,
// versions and library pass-through, DOT export and file-level load/save.
#include "test_main.h"
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "exec/session.h"
#include "io/file_formats.h"
#include "io/graph_io.h"
#include "tensor/tensor_format.h"

using namespace flowlens;

namespace {

const char* kSmall = R"(
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "Const" attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
       tensor_content: "\000\000\200?\000\000\000@" } } } }
node { name: "c" op: "Add" input: "a" input: "b:0" input: "^b" device: "/device:CPU:0" }
)";

const char* kAllAttrKinds = R"(
node {
  name: "n" op: "Custom"
  attr { key: "s" value { s: "bytes\000\377" } }
  attr { key: "i" value { i: -7 } }
  attr { key: "f" value { f: 0.1 } }
  attr { key: "b" value { b: true } }
  attr { key: "type" value { type: DT_HALF_REF } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } }
  attr { key: "unknown_shape" value { shape { unknown_rank: true } } }
  attr { key: "tensor" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 4 } } }
  attr { key: "list" value { list { s: "x" s: "y" i: 1 i: 2 f: 1.5 b: false type: DT_INT64 shape { } shape { dim { size: 2 } }
                                   tensor { dtype: DT_STRING string_val: "t" } func { name: "g" } } } }
  attr { key: "empty_list" value { list { } } }
  attr { key: "func" value { func { name: "fn" attr { key: "T" value { type: DT_FLOAT } } attr { key: "n" value { i: 3 } } } } }
  attr { key: "placeholder" value { placeholder: "T" } }
  attr { key: "none" value { } }
}
versions { producer: 27 min_consumer: 12 bad_consumers: 3 }
version: 9
library {
  function { signature { name: "fn" input_arg { name: "x" type_attr: "T" } output_arg { name: "y" type_attr: "T" } }
             node_def { name: "id" op: "Identity" input: "x" attr { key: "T" value { placeholder: "T" } } }
             ret { key: "y" value: "id:output:0" } }
  gradient { function_name: "fn" gradient_func: "fn_grad" }
}
)";

const char* kWideTypes = R"(
node { name: "h" op: "Const" attr { key: "value" value { tensor { dtype: DT_HALF tensor_shape { dim { size: 3 } } half_val: 15360 half_val: 48128 } } } }
node { name: "i8" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT8 tensor_shape { dim { size: 2 } } int_val: -5 int_val: 100 } } } }
node { name: "u64" op: "Const" attr { key: "value" value { tensor { dtype: DT_UINT64 tensor_shape { dim { size: 2 } } uint64_val: 18446744073709551615 } } } }
node { name: "c128" op: "Const" attr { key: "value" value { tensor { dtype: DT_COMPLEX128 tensor_shape { } dcomplex_val: 1.5 dcomplex_val: -2 } } } }
node { name: "str" op: "Const" attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 3 } } string_val: "p" string_val: "q" } } } }
)";

Tensor tensor_attr(const Graph& g, const char* node, const char* attr = "value") {
  const Node* n = g.find(node);
  if (!n) throw Error(std::string("no node ") + node);
  const Tensor* t = n->attr(attr).get_if<Tensor>();
  if (!t) throw Error(std::string("attr is not a tensor on ") + node);
  return *t;
}

Graph parse(const std::string& text) { return parse_graph_text(text, "<test>"); }

}  // namespace

class TestGraphDefIo : public QObject {
  Q_OBJECT

 private slots:
  void round_trip_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("small") << QString(kSmall);
    QTest::newRow("all attr kinds") << QString(kAllAttrKinds);
    QTest::newRow("wide types") << QString::fromUtf8(kWideTypes);
    QTest::newRow("empty graph") << QString("");
    for (const auto& entry : std::filesystem::directory_iterator(std::string(FLOWLENS_TEST_DATA) + "/tf")) {
      if (entry.path().extension() != ".pbtxt") continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), {});
      QTest::newRow(entry.path().filename().c_str()) << QString::fromStdString(text);
    }
  }

  // text -> Graph -> binary -> Graph -> text equals text -> Graph -> text.
  void round_trip() {
    QFETCH(QString, text);
    const std::string src = text.toStdString();
    const std::string once = graph_to_text(parse(src));
    const Graph via_binary = parse_graph_binary(graph_to_binary(parse(src)), "<bin>");
    QCOMPARE(QString::fromStdString(graph_to_text(via_binary)), QString::fromStdString(once));
    // Printing is a fixed point, and binary output is deterministic.
    QCOMPARE(QString::fromStdString(graph_to_text(parse(once))), QString::fromStdString(once));
    QVERIFY(graph_to_binary(parse(src)) == graph_to_binary(parse(once)));
  }

  void tensor_content_decoding() {
    Graph g = parse(kSmall);
    Tensor b = tensor_attr(g, "b");
    QCOMPARE(b.dtype(), DType::Float);
    QCOMPARE(b.shape(), Shape({2}));
    QCOMPARE(b.values<float>()[0], 1.0f);
    QCOMPARE(b.values<float>()[1], 2.0f);
  }

  void repeated_last_value() {
    Graph g = parse(R"(
      node { name: "zeros" op: "Const" attr { key: "value" value { tensor { dtype: DT_FLOAT
             tensor_shape { dim { size: 784 } dim { size: 10 } } float_val: 0 } } } }
      node { name: "fill" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32
             tensor_shape { dim { size: 5 } } int_val: 1 int_val: 2 int_val: 3 } } } }
      node { name: "none" op: "Const" attr { key: "value" value { tensor { dtype: DT_DOUBLE
             tensor_shape { dim { size: 3 } } } } } }
      node { name: "sevens" op: "Const" attr { key: "value" value { tensor { dtype: DT_FLOAT
             tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 7 } } } }
      node { name: "strs" op: "Const" attr { key: "value" value { tensor { dtype: DT_STRING
             tensor_shape { dim { size: 3 } } string_val: "a" string_val: "b" } } } }
    )");
    Tensor zeros = tensor_attr(g, "zeros");
    QCOMPARE(zeros.num_elements(), int64_t{7840});
    for (float v : zeros.values<float>()) QCOMPARE(v, 0.0f);
    Tensor fill = tensor_attr(g, "fill");
    QCOMPARE(std::vector<int32_t>(fill.values<int32_t>().begin(), fill.values<int32_t>().end()),
             (std::vector<int32_t>{1, 2, 3, 3, 3}));
    for (double v : tensor_attr(g, "none").values<double>()) QCOMPARE(v, 0.0);
    for (float v : tensor_attr(g, "sevens").values<float>()) QCOMPARE(v, 7.0f);
    QCOMPARE(tensor_attr(g, "strs").strings(), (std::vector<std::string>{"a", "b", "b"}));
  }

  void typed_value_fields() {
    Graph g = parse(kWideTypes);
    Tensor h = tensor_attr(g, "h");
    QCOMPARE(h.dtype(), DType::Half);
    uint16_t bits[3];
    std::memcpy(bits, h.raw_data(), sizeof bits);
    QCOMPARE(bits[0], uint16_t{0x3C00});  // 1.0
    QCOMPARE(bits[1], uint16_t{0xBC00});  // -1.0
    QCOMPARE(bits[2], uint16_t{0xBC00});  // repeated
    Tensor i8 = tensor_attr(g, "i8");
    QCOMPARE(static_cast<const int8_t*>(i8.raw_data())[0], int8_t{-5});
    QCOMPARE(static_cast<const int8_t*>(i8.raw_data())[1], int8_t{100});
    Tensor u64 = tensor_attr(g, "u64");
    QCOMPARE(static_cast<const uint64_t*>(u64.raw_data())[1], UINT64_MAX);
    Tensor c = tensor_attr(g, "c128");
    const double* parts = static_cast<const double*>(c.raw_data());
    QCOMPARE(parts[0], 1.5);
    QCOMPARE(parts[1], -2.0);
    QCOMPARE(tensor_attr(g, "str").strings(), (std::vector<std::string>{"p", "q", "q"}));

    // Raw bool bytes other than 0/1 are normalised to true.
    Graph b = parse(R"(node { name: "b" op: "Const" attr { key: "value" value { tensor { dtype: DT_BOOL
                       tensor_shape { dim { size: 3 } } tensor_content: "\000\002\001" } } } })");
    const auto flags = tensor_attr(b, "b").values<bool>();
    QCOMPARE(std::vector<bool>(flags.begin(), flags.end()), (std::vector<bool>{false, true, true}));
  }

  // The dtypes beyond float/int32/int64: each round trips through text and
  // binary both as a single element (its typed *_val field, as TensorFlow
  // writes scalars) and as tensor_content.
  void new_dtypes_round_trip_in_both_encodings() {
    struct Case {
      DType dtype;
      const char* field;  // the typed field a single element is written to
    };
    for (Case c : {Case{DType::Half, "half_val"}, {DType::BFloat16, "half_val"}, {DType::Int8, "int_val"},
                   {DType::Int16, "int_val"}, {DType::UInt8, "int_val"}, {DType::UInt16, "int_val"},
                   {DType::UInt32, "uint32_val"}, {DType::UInt64, "uint64_val"}}) {
      const std::string name = dtype_name(c.dtype);
      Tensor one(c.dtype, Shape{});
      Tensor many(c.dtype, Shape{2, 3});
      // Bytes with the high bit set: sign extension and NaN payloads must survive.
      auto* b1 = static_cast<unsigned char*>(one.raw_data());
      for (std::size_t k = 0; k < one.byte_size(); ++k) b1[k] = static_cast<unsigned char>(0xF1 - k);
      auto* bm = static_cast<unsigned char*>(many.raw_data());
      for (std::size_t k = 0; k < many.byte_size(); ++k) bm[k] = static_cast<unsigned char>(37 * k + 0x80);
      Graph g;
      Node n{"k", "Const", {}, "", {}};
      n.attrs["one"] = one;
      n.attrs["many"] = many;
      g.add_node(n);
      const std::string text = graph_to_text(g);
      QVERIFY2(text.find(std::string(c.field) + ":") != std::string::npos, (name + ":\n" + text).c_str());
      QVERIFY2(text.find("tensor_content:") != std::string::npos, (name + ":\n" + text).c_str());
      for (const Graph& back : {parse(text), parse_graph_binary(graph_to_binary(g), "<bin>")}) {
        QVERIFY2(tensor_attr(back, "k", "one").equals(one), name.c_str());
        QVERIFY2(tensor_attr(back, "k", "many").equals(many), name.c_str());
      }
    }
    Graph g;
    Node n{"k", "Const", {}, "", {}};
    n.attrs["s"] = Tensor::from_strings(Shape{2, 2}, {"", std::string("\0\xff", 2), "\xc3\xa9", "x"});
    g.add_node(n);
    for (const Graph& back : {parse(graph_to_text(g)), parse_graph_binary(graph_to_binary(g), "<bin>")})
      QVERIFY(tensor_attr(back, "k", "s").equals(n.attrs["s"].get_if<Tensor>()[0]));
  }

  // Constants as TensorFlow's text writer spells them: bfloat16 bit patterns
  // in half_val, small integers in int_val, octal-escaped string bytes,
  // float16 as tensor_content. (\173 is '{' and \042 is '"': moc reads raw
  // strings as plain ones and must see balanced quotes and braces.)
  void tensorflow_written_text() {
    Graph g = parse(R"(
      node { name: "bf" op: "Const" attr { key: "value" value { tensor { dtype: DT_BFLOAT16
             tensor_shape { dim { size: 2 } } half_val: 16256 half_val: 49216 } } } }
      node { name: "i16" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT16
             tensor_shape { dim { size: 2 } } int_val: -32768 int_val: 7 } } } }
      node { name: "u8" op: "Const" attr { key: "value" value { tensor { dtype: DT_UINT8
             tensor_shape { } int_val: 255 } } } }
      node { name: "u32" op: "Const" attr { key: "value" value { tensor { dtype: DT_UINT32
             tensor_shape { dim { size: 2 } } uint32_val: 4294967295 uint32_val: 1 } } } }
      node { name: "h" op: "Const" attr { key: "value" value { tensor { dtype: DT_HALF
             tensor_shape { dim { size: 2 } } tensor_content: "\000<\377\173" } } } }
      node { name: "s" op: "Const" attr { key: "value" value { tensor { dtype: DT_STRING
             tensor_shape { dim { size: 2 } } string_val: "caf\303\251" string_val: "\001\042" } } } }
    )");
    QCOMPARE(QString::fromStdString(format_tensor(tensor_attr(g, "bf"))), QString("[1,-3]"));
    QCOMPARE(QString::fromStdString(format_tensor(tensor_attr(g, "i16"))), QString("[-32768,7]"));
    QCOMPARE(QString::fromStdString(format_tensor(tensor_attr(g, "u8"))), QString("255"));
    QCOMPARE(QString::fromStdString(format_tensor(tensor_attr(g, "u32"))), QString("[4294967295,1]"));
    QCOMPARE(QString::fromStdString(format_tensor(tensor_attr(g, "h"))), QString("[1,65500]"));
    QCOMPARE(tensor_attr(g, "s").strings(), (std::vector<std::string>{"caf\xc3\xa9", "\x01\""}));
  }

  // Constants of every dtype flow through a session to the fetch unchanged.
  void new_dtypes_flow_through_a_session() {
    Graph g = parse(R"(
      node { name: "h" op: "Const" attr { key: "dtype" value { type: DT_HALF } }
             attr { key: "value" value { tensor { dtype: DT_HALF tensor_shape { dim { size: 2 } } half_val: 11878 half_val: 15360 } } } }
      node { name: "hi" op: "Identity" input: "h" attr { key: "T" value { type: DT_HALF } } }
      node { name: "i8" op: "Const" attr { key: "dtype" value { type: DT_INT8 } }
             attr { key: "value" value { tensor { dtype: DT_INT8 tensor_shape { } int_val: -7 } } } }
      node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
             attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } } string_val: "a\042b" } } } }
      node { name: "si" op: "Identity" input: "s" attr { key: "T" value { type: DT_STRING } } }
    )");
    SessionOptions options;
    options.use_gpus = false;
    Session session(std::move(g), options);
    const std::vector<Tensor> out = session.run({}, {"hi", "i8", "si"});
    QCOMPARE(QString::fromStdString(format_tensor(out[0])), QString("[0.1,1]"));
    QCOMPARE(QString::fromStdString(format_tensor(out[1])), QString("-7"));
    QCOMPARE(QString::fromStdString(format_tensor(out[2])), QString("[\"a\\\"b\",\"a\\\"b\"]"));
  }

  // Single elements keep TF's *_val form; larger tensors use tensor_content.
  void writer_encoding() {
    Graph g;
    Node n{"k", "Const", {}, "", {}};
    n.attrs["scalar"] = Tensor::scalar<float>(2.5f);
    n.attrs["vector"] = Tensor::from_vector<int32_t>(Shape{3}, {1, 2, 3});
    n.attrs["strings"] = Tensor::from_strings(Shape{2}, {"x", "y\n"});
    g.add_node(n);
    const std::string text = graph_to_text(g);
    QVERIFY2(text.find("float_val: 2.5") != std::string::npos, text.c_str());
    QVERIFY2(text.find(R"(tensor_content: "\001\000\000\000\002\000\000\000\003\000\000\000")") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find(R"(string_val: "y\n")") != std::string::npos, text.c_str());
    Graph back = parse(text);
    QVERIFY(tensor_attr(back, "k", "vector").equals(n.attrs["vector"].get_if<Tensor>()[0]));
  }

  void attr_kinds_decoded() {
    Graph g = parse(kAllAttrKinds);
    const Node& n = *g.find("n");
    QCOMPARE(n.attr_string("s", ""), std::string("bytes\0\377", 7));
    QCOMPARE(n.attr_int("i", 0), int64_t{-7});
    QCOMPARE(n.attr_float("f", 0), 0.1f);
    QCOMPARE(n.attr_bool("b", false), true);
    QCOMPARE(n.attr_type("type", DType::Invalid), dtype_ref(DType::Half));
    QCOMPARE(*n.attr("shape").get_if<Shape>(), Shape({-1, 3}));
    QVERIFY(!n.attr("unknown_shape").get_if<Shape>()->rank_known());
    const AttrList& l = *n.attr("list").get_if<AttrList>();
    QCOMPARE(l.s, (std::vector<std::string>{"x", "y"}));
    QCOMPARE(l.i, (std::vector<int64_t>{1, 2}));
    QCOMPARE(l.f.size(), size_t{1});
    QCOMPARE(l.b, std::vector<bool>{false});
    QCOMPARE(l.type, std::vector<DType>{DType::Int64});
    QCOMPARE(l.shape.size(), size_t{2});
    QCOMPARE(l.tensor.at(0).strings(), std::vector<std::string>{"t"});  // no shape = scalar
    QCOMPARE(l.func.at(0).name, std::string("g"));
    QVERIFY(n.attr("empty_list").get_if<AttrList>()->empty());
    const auto& f = *n.attr("func").get_if<std::shared_ptr<FuncRef>>();
    QCOMPARE(f->name, std::string("fn"));
    QCOMPARE(f->attrs.at("n").to_string(), std::string("3"));
    QCOMPARE(n.attr("placeholder").get_if<AttrPlaceholder>()->name, std::string("T"));
    QVERIFY(n.attr("none").is<std::monostate>());
  }

  void versions_and_library() {
    Graph g = parse(kAllAttrKinds);
    QVERIFY(g.versions.present);
    QCOMPARE(g.versions.producer, 27);
    QCOMPARE(g.versions.min_consumer, 12);
    QCOMPARE(g.versions.bad_consumers, std::vector<int>{3});
    QCOMPARE(g.legacy_version, 9);
    QCOMPARE(g.function_names, std::vector<std::string>{"fn"});
    QVERIFY(!g.library_bytes.empty());
    const std::string text = graph_to_text(g);
    QVERIFY(text.find("gradient_func: \"fn_grad\"") != std::string::npos);
    QVERIFY(text.find("ret {") != std::string::npos);
    QVERIFY(parse(kSmall).library_bytes.empty());
    QVERIFY(!parse(kSmall).versions.present);
  }

  void node_order_and_inputs_kept() {
    Graph g = parse("node { name: \"z\" op: \"NoOp\" } node { name: \"a\" op: \"NoOp\" input: \"^z\" } "
                    "node { name: \"m\" op: \"X\" input: \"a:3\" input: \"z\" }");
    QCOMPARE(g.size(), size_t{3});
    QCOMPARE(g.nodes()[0].name, std::string("z"));
    QCOMPARE(g.nodes()[1].name, std::string("a"));
    QCOMPARE(g.nodes()[2].inputs, (std::vector<std::string>{"a:3", "z"}));
    QCOMPARE(g.find("c"), nullptr);
  }

  void dot_output() {
    Graph g = parse(kSmall);
    g.add_node(Node{"say \"hi\"", "Identity", {"c"}, "", {}});
    const std::string dot = graph_to_dot(g);
    QVERIFY2(dot.starts_with("digraph"), dot.c_str());
    QVERIFY2(dot.find("\"a\" [label=\"a\\nPlaceholder\"]") != std::string::npos, dot.c_str());
    QVERIFY2(dot.find("\"a\" -> \"c\";") != std::string::npos, dot.c_str());
    QVERIFY2(dot.find("\"b\" -> \"c\" [style=dashed];") != std::string::npos, dot.c_str());
    QVERIFY2(dot.find("subgraph \"cluster_0\"") != std::string::npos, dot.c_str());
    QVERIFY2(dot.find("label=\"/device:CPU:0\"") != std::string::npos, dot.c_str());
    QVERIFY2(dot.find("\"say \\\"hi\\\"\"") != std::string::npos, dot.c_str());
  }

  // The name decides only where the bytes cannot: text is GraphDef text under
  // any name but a binary one, binary bytes are a binary GraphDef unless named
  // as text (each reader then explains what the bytes really are).
  void format_by_name_and_content() {
    const Graph g = parse(kAllAttrKinds);
    const std::string text = graph_to_text(g), binary = graph_to_binary(g);
    for (const char* name : {"a/b.pbtxt", "x.PBTXT", "x.prototxt", "x.txt", "model", "model.graph"})
      QCOMPARE(detect_file_format(text, name), FileFormat::GraphDefText);
    for (const char* name : {"frozen.pb", "x.GRAPHDEF", "model", "model.graph"})
      QCOMPARE(detect_file_format(binary, name), FileFormat::GraphDefBinary);
    QCOMPARE(detect_file_format(text, "frozen.pb"), FileFormat::GraphDefBinary);
    QCOMPARE(detect_file_format(binary, "x.pbtxt"), FileFormat::GraphDefText);
    QCOMPARE(detect_file_format(text, "g.dot"), FileFormat::Dot);
  }

  void save_and_load_files() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string base = dir.path().toStdString() + "/g";
    Graph g = parse(kAllAttrKinds);
    const std::string expected = graph_to_text(g);
    for (const char* ext : {".pbtxt", ".pb"}) {
      save_graph(g, base + ext);
      Graph back = load_graph(base + ext);
      QCOMPARE(back.source_path, base + ext);
      QCOMPARE(QString::fromStdString(graph_to_text(back)), QString::fromStdString(expected));
    }
    // Unknown extensions are sniffed: text and binary both load.
    std::filesystem::copy_file(base + ".pbtxt", base + "_text.graph");
    std::filesystem::copy_file(base + ".pb", base + "_bin.graph");
    QCOMPARE(graph_to_text(load_graph(base + "_text.graph")), expected);
    QCOMPARE(graph_to_text(load_graph(base + "_bin.graph")), expected);
    save_graph(g, base + ".dot");
    std::ifstream dot(base + ".dot");
    std::string first;
    std::getline(dot, first);
    QCOMPARE(first, std::string("digraph G {"));
  }

  void semantic_error_location() {
    try {
      parse("node { name: \"ok\" op: \"NoOp\" }\n\n  node { name: \"bad\" op: \"Const\"\n"
            "  attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } "
            "tensor_content: \"\\001\\000\" } } } }");
      QFAIL("expected a ParseError");
    } catch (const ParseError& e) {
      QCOMPARE(e.line(), 3);
      QCOMPARE(e.column(), 3);
      QVERIFY2(std::string(e.what()).find("node 'bad'") != std::string::npos, e.what());
      QVERIFY2(std::string(e.what()).find("attr 'value'") != std::string::npos, e.what());
    }
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestGraphDefIo)
#include "test_graphdef_io.moc"

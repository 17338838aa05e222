// The wire format: round trips, zero-copy sends, and every kind of malformed
// message, decoded in process and thrown at a real ps process.
#include "test_main.h"
#include <QtTest>

#include <zmq_addon.hpp>

#include "dist/node_runner.h"
#include "dist/wire/wire_codec.h"

using namespace flowlens;
using namespace flowlens::dist;
using namespace flowlens::testing;

namespace {

std::vector<zmq::message_t> frames_of(const wire::Header& h, std::vector<std::string> payloads) {
  std::vector<zmq::message_t> f;
  f.emplace_back(h.SerializeAsString());
  for (const std::string& p : payloads) f.emplace_back(p.data(), p.size());
  return f;
}

wire::Header push_header(int64_t elements, uint64_t byte_size) {
  wire::Header h;
  h.set_version(kWireVersion);
  h.set_kind(wire::PUSH);
  h.set_request_id(7);
  auto* m = h.add_tensors();
  m->set_name("w");
  m->set_dtype(static_cast<int>(DType::Float));
  m->add_dims(elements);
  m->set_byte_size(byte_size);
  return h;
}

QString decode_error(std::vector<zmq::message_t> frames) {
  DecodeResult r = decode_message(std::move(frames), false);
  return r.message ? QString("(decoded)") : QString::fromStdString(r.error);
}

}  // namespace

class TestWireCodec : public QObject {
  Q_OBJECT
 private slots:
  void round_trip_without_copying_on_send() {
    std::vector<float> values(2048);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
    Tensor f = Tensor::from_vector<float>(Shape{2, 1024}, values);  // large enough to go zero-copy
    Tensor l = Tensor::from_vector<int64_t>(Shape{2}, {-1, 1ll << 40});
    wire::Header h;
    h.set_kind(wire::PUSH);
    h.set_request_id(42);
    std::vector<zmq::message_t> frames = encode_message(h, {{"f", f}, {"l", l}});
    QCOMPARE(frames.size(), size_t{3});
    QCOMPARE(frames[1].data(), f.raw_data());  // the frame is the tensor's own buffer
    QVERIFY(frames[2].data() != l.raw_data());  // 16 bytes: copied, stored inline by ZeroMQ
    DecodeResult r = decode_message(std::move(frames), false);
    QVERIFY2(r.message, r.error.c_str());
    QCOMPARE(r.message->header.request_id(), uint64_t{42});
    QCOMPARE(r.message->name(1), std::string("l"));
    QVERIFY(r.message->tensor(0).equals(f));
    QVERIFY(r.message->tensor(1).equals(l));
  }

  void malformed_messages_are_named() {
    QVERIFY(decode_error({}).contains("no header frame"));
    std::vector<zmq::message_t> junk;
    junk.emplace_back(std::string("\xff\xff\xff\xff not protobuf"));
    QVERIFY(decode_error(std::move(junk)).contains("not a valid wire.Header"));

    wire::Header old = push_header(2, 8);
    old.set_version(99);
    QVERIFY(decode_error(frames_of(old, {std::string(8, '\0')})).contains("protocol version 99"));
    wire::Header kind = push_header(2, 8);
    kind.set_kind(static_cast<wire::Kind>(77));
    QVERIFY(decode_error(frames_of(kind, {std::string(8, '\0')})).contains("unknown message kind 77"));
    QVERIFY(decode_error(frames_of(push_header(2, 8), {std::string(5, '\0')})).contains("frame has 5 bytes"));
    QVERIFY(decode_error(frames_of(push_header(2, 12), {std::string(12, '\0')})).contains("does not match 2 elements"));
    QVERIFY(decode_error(frames_of(push_header(-3, 0), {""})).contains("negative dimension"));
    QVERIFY(decode_error(frames_of(push_header(int64_t{1} << 40, 0), {""})).contains("larger than the limit"));
    QVERIFY(decode_error(frames_of(push_header(2, 8), {})).contains("1 tensors but 0 data frames"));
    wire::Header dtype = push_header(2, 8);
    dtype.mutable_tensors(0)->set_dtype(static_cast<int>(DType::String));
    QVERIFY(decode_error(frames_of(dtype, {std::string(8, '\0')})).contains("not a fixed-size element type"));
    wire::Header unnamed = push_header(2, 8);
    unnamed.mutable_tensors(0)->set_name("");
    QVERIFY(decode_error(frames_of(unnamed, {std::string(8, '\0')})).contains("name is empty"));
    wire::Header rank = push_header(1, 4);
    for (int i = 0; i < 20; ++i) rank.mutable_tensors(0)->add_dims(1);
    QVERIFY(decode_error(frames_of(rank, {std::string(4, '\0')})).contains("rank 21"));
  }

  // A live ps answers bad requests it can attribute, drops the rest, and keeps serving.
  void ps_survives_malformed_frames() {
    LocalCluster c(1, 1);
    NodeProcess ps(c.ps_args(0));
    QVERIFY(ps.wait_for_stderr("serving on"));
    zmq::context_t ctx;
    zmq::socket_t s(ctx, zmq::socket_type::dealer);
    s.set(zmq::sockopt::linger, 0);
    s.connect(("tcp://" + c.ps_address(0)).toStdString());
    auto exchange = [&](std::vector<zmq::message_t> frames) -> std::optional<wire::Header> {
      zmq::send_multipart(s, frames);
      auto reply = receive_frames(s, 1000);
      if (!reply) return std::nullopt;
      DecodeResult r = decode_message(std::move(*reply), false);
      if (!r.message) return std::nullopt;
      return r.message->header;
    };
    std::vector<zmq::message_t> junk;
    junk.emplace_back(std::string("garbage that is no header"));
    QVERIFY(!exchange(std::move(junk)));  // dropped: nothing to answer to
    auto bad_size = exchange(frames_of(push_header(4, 16), {std::string(3, 'x')}));
    QVERIFY(bad_size && bad_size->code() == wire::BAD_REQUEST);
    QVERIFY(QString::fromStdString(bad_size->text()).contains("frame has 3 bytes"));
    wire::Header old = push_header(4, 16);
    old.set_version(0);
    auto version = exchange(frames_of(old, {std::string(16, 'x')}));
    QVERIFY(version && QString::fromStdString(version->text()).contains("protocol version 0"));
    auto huge = exchange(frames_of(push_header(int64_t{1} << 62, 0), {""}));
    QVERIFY(huge && huge->code() == wire::BAD_REQUEST);
    auto unknown = exchange(frames_of(push_header(4, 16), {std::string(16, '\0')}));
    // No worker registered a partition yet: nothing to push to.
    QVERIFY(unknown && unknown->code() == wire::UNREGISTERED);
    QVERIFY(QString::fromStdString(unknown->text()).contains("runs no partition yet"));
    // A partition that is no GraphDef is refused, naming what it is.
    wire::Header reg;
    reg.set_version(kWireVersion);
    reg.set_kind(wire::REGISTER);
    reg.set_request_id(8);
    reg.set_sender("worker:0");
    auto* meta = reg.add_tensors();
    meta->set_name("partition");
    meta->set_dtype(static_cast<int>(DType::UInt8));
    meta->add_dims(5);
    meta->set_byte_size(5);
    auto garbage = exchange(frames_of(reg, {std::string("\xff\xff\xff\xff\xff", 5)}));
    QVERIFY(garbage && garbage->code() == wire::BAD_REQUEST);
    QVERIFY2(QString::fromStdString(garbage->text()).contains("the partition registered with ps 0"), garbage->text().c_str());
    reg.set_sender("");
    auto anonymous = exchange(frames_of(reg, {std::string(5, 'x')}));
    QVERIFY(anonymous && QString::fromStdString(anonymous->text()).contains("not a worker"));
    std::vector<zmq::message_t> empty_frames;
    empty_frames.emplace_back();
    QVERIFY(!exchange(std::move(empty_frames)));

    wire::Header status;
    status.set_version(kWireVersion);
    status.set_kind(wire::STATUS);
    status.set_request_id(9);
    auto alive = exchange(frames_of(status, {}));
    QVERIFY(alive && alive->code() == wire::OK);
    QVERIFY(QString::fromStdString(alive->text()).contains("\"role\":\"ps\""));
    QVERIFY(ps.running());
    QVERIFY(ps.wait_for_stderr("dropped a malformed message"));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestWireCodec)
#include "test_wire_codec.moc"

#pragma once
// TensorProto / TensorShapeProto <-> Tensor / Shape, with TensorFlow's decoding
// rules. Internal to engine/io: callers outside io use graph_io.h.
//
// Failures throw flowlens::Error with a message that says what is wrong with
// the tensor but not where it is; the GraphDef converter adds the file, node
// and attr because only it knows them.
#include "io/graph.pb.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"

namespace flowlens::io_detail {

// True for the values TensorFlow's DataType enum defines (0..23, 101..123).
// Proto3 enums are open, so a binary file (or a numeric value in text) can
// carry anything; this is checked at load time.
bool is_known_dtype_value(int value);

// Attr shapes may be partial: dims of -1 and unknown rank are allowed; dims
// below -1 are rejected.
Shape shape_from_proto(const proto::TensorShapeProto& p);
void shape_to_proto(const Shape& s, proto::TensorShapeProto* p);

// Decodes tensor_content (raw little-endian) or the typed *_val fields, where
// fewer values than elements repeat the last one and no values means zeros.
Tensor tensor_from_proto(const proto::TensorProto& p);
// Encodes single elements in the typed *_val field (as TensorFlow prints
// scalars) and everything larger as tensor_content; strings use string_val.
void tensor_to_proto(const Tensor& t, proto::TensorProto* p);

}  // namespace flowlens::io_detail

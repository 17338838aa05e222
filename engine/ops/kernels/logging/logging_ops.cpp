// Logging and checking ops: CheckNumerics, Assert, Print and PrintV2.
// Messages are TensorFlow's, values summarized by TensorFlow's
// SummarizeValue (tensor_format.h). Print and PrintV2 write into the run log
// (ops/framework/run_log.h) through KernelContext::log(): the CLI prints it,
// the GUI shows it in its Run Log; outside a session it goes to stderr.
#include <cmath>
#include <fstream>
#include <mutex>

#include "ops/framework/dtype_dispatch.h"
#include "tensor/tensor_format.h"

namespace flowlens::ops {
namespace {

void no_outputs_shape(ShapeContext&) {}

// ---- CheckNumerics -------------------------------------------------------------

void check_numerics_kernel(KernelContext& ctx) {
  const std::string& message = ctx.attrs().string("message");  // required, even when all is well
  const Tensor& in = input(ctx, 0);
  ctx.set_output(0, in);  // the input passes through unchanged, as in TF
  bool has_inf = false, has_nan = false;
  dispatch<FloatTypes>(in.dtype(), "CheckNumerics", [&](auto tag) {
    using T = decltype(tag);
    for (T v : in.values<T>()) {
      const double d = static_cast<double>(v);
      if (std::isinf(d)) has_inf = true;
      else if (std::isnan(d)) has_nan = true;
    }
  });
  if (!has_inf && !has_nan) return;
  const std::string status = has_inf && has_nan ? "Inf and NaN" : has_inf ? "Inf" : "NaN";
  fail(message + " : Tensor had " + status + " values");
}

// ---- Assert --------------------------------------------------------------------

void assert_kernel(KernelContext& ctx) {
  const Tensor& cond = input(ctx, 0);
  if (cond.shape().rank() != 0 || cond.dtype() != DType::Bool)
    fail("In[0] should be a scalar: " + shape_str(cond.shape()));
  if (cond.data<bool>()[0]) return;
  const int64_t summarize = ctx.attrs().integer("summarize");
  std::string message = "assertion failed: ";
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    message += "[" + summarize_value(input(ctx, i), summarize) + "]";
    if (i < ctx.num_inputs() - 1) message += ' ';
  }
  fail(message);
}

// ---- Print ---------------------------------------------------------------------

// first_n counts executions per node and session: the node's own storage
// holds the count. False once first_n executions have printed.
bool take_print_turn(KernelContext& ctx, int64_t first_n) {
  if (first_n < 0) return true;
  Variable* counter = ctx.own_variable();
  if (!counter) return first_n > 0;  // a kernel run outside a session is its first execution
  std::lock_guard lock(counter->mu);
  const int64_t done = counter->value.valid() ? counter->value.data<int64_t>()[0] : 0;
  if (done >= first_n) return false;
  counter->value = Tensor::scalar<int64_t>(done + 1);
  return true;
}

void print_kernel(KernelContext& ctx) {
  ctx.set_output(0, input(ctx, 0));
  const AttrReader attrs = ctx.attrs();
  if (!take_print_turn(ctx, attrs.integer("first_n"))) return;
  const int64_t summarize = attrs.integer("summarize");
  std::string line = attrs.string("message");
  for (int i = 1; i < ctx.num_inputs(); ++i) line += "[" + summarize_value(input(ctx, i), summarize) + "]";
  ctx.log(LogStream::Stderr, line + "\n");
}

// ---- PrintV2 -------------------------------------------------------------------

constexpr std::string_view kFileStreamPrefix = "file://";

void print_v2_shape(ShapeContext& ctx) {
  const Shape& s = ctx.input(0).shape;
  if (s.rank_known() && s.rank() != 0)
    fail("input must be a scalar, but has rank: " + std::to_string(s.rank()));
}

LogStream stream_named(const std::string& name) {
  if (name == "stdout") return LogStream::Stdout;
  if (name == "stderr") return LogStream::Stderr;
  if (name == "log(info)") return LogStream::Info;
  if (name == "log(warning)") return LogStream::Warning;
  if (name == "log(error)") return LogStream::Error;
  fail("Unknown output stream: " + name + ", Valid streams are: stdout stderr log(info) log(warning) log(error)");
}

void print_v2_kernel(KernelContext& ctx) {
  const AttrReader attrs = ctx.attrs();
  const std::string& stream = attrs.string("output_stream");
  const bool to_file = std::string_view(stream).starts_with(kFileStreamPrefix);
  const LogStream log_stream = to_file ? LogStream::Stderr : stream_named(stream);
  const Tensor& in = input(ctx, 0);
  if (in.shape().rank() != 0 || in.dtype() != DType::String)
    fail("Input is expected to be scalar, but got " + shape_str(in.shape()));
  const std::string text = in.strings()[0] + attrs.string("end");
  if (!to_file) {
    ctx.log(log_stream, text);
    return;
  }
  // tf.print(output_stream="file://path") appends to that file.
  const std::string path = stream.substr(kFileStreamPrefix.size());
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << text;
  if (!out.flush()) fail("PrintV2: cannot append to '" + path + "'");
}

}  // namespace

void register_logging_ops(OpRegistry& r) {
  r.add(OpBuilder("CheckNumerics")
            .input("tensor: T")
            .output("output: T")
            .attr("T: {bfloat16, half, float, double}")
            .attr("message: string")
            .stateful()
            .shape(unchanged_shape)
            .cpu(check_numerics_kernel, dtypes_of<FloatTypes>())
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("control")
            .doc("Passes its input through; fails when it holds a NaN or an infinity."));
  r.add(OpBuilder("Assert")
            .input("condition: bool")
            .input("data: T")
            .attr("T: list(type)")
            .attr("summarize: int = 3")
            .stateful()
            .shape(no_outputs_shape)
            .cpu(assert_kernel)
            .not_differentiable("no outputs: nothing flows through an assertion")
            .no_gpu("TensorFlow keeps condition and data in host memory")
            .category("control")
            .doc("Fails listing its data when the condition is false."));
  r.add(OpBuilder("Print")
            .input("input: T")
            .input("data: U")
            .output("output: T")
            .attr("T: type")
            .attr("U: list(type) >= 0")
            .attr("message: string = ''")
            .attr("first_n: int = -1")
            .attr("summarize: int = 3")
            .stateful()
            .keeps_state()  // the first_n counter
            .shape(unchanged_shape)
            .cpu(print_kernel)
            .no_gpu("writes to the run log from host memory; TensorFlow registers a CPU kernel only")
            .category("control")
            .doc("Passes its input through and logs the message and data."));
  r.add(OpBuilder("PrintV2")
            .input("input: string")
            .attr("output_stream: string = 'stderr'")
            .attr("end: string = '\n'")
            .stateful()
            .shape(print_v2_shape)
            .cpu(print_v2_kernel)
            .not_differentiable("no outputs")
            .no_gpu("strings live in host memory; TensorFlow registers a CPU kernel only")
            .category("control")
            .doc("Writes a string to the run log (tf.print)."));
}

}  // namespace flowlens::ops

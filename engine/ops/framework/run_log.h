#pragma once
// The run log: where ops that print (Print, PrintV2) send their text. A
// Session hands its sink to every device, and the executor hands the
// device's sink to each kernel: kernels write with KernelContext::log(),
// which keeps ops free of exec/. Without a sink (a kernel run outside a session,
// a distributed worker) the text goes to the process's stdout or stderr, as
// TensorFlow writes it.
#include <functional>
#include <string_view>

namespace flowlens {

// The streams PrintV2's output_stream names; Print writes to Stderr.
enum class LogStream { Stdout, Stderr, Info, Warning, Error };

// Called from kernel threads, possibly several at once: it must be thread-safe.
// `text` is exactly what TensorFlow would write, newline included.
using LogSink = std::function<void(LogStream stream, std::string_view text)>;

// Stdout to std::cout, the rest to std::cerr, one whole text at a time.
void write_to_process_streams(LogStream stream, std::string_view text);

}  // namespace flowlens

#pragma once
// Errors raised by the engine. Everything user-facing throws flowlens::Error
// (or a subclass) with a message that names the file, node or field at fault.
#include <stdexcept>
#include <string>

namespace flowlens {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// TensorFlow's status codes that callers act on, as Error subclasses. The
// executor keeps the class when it adds the failing node to the message
// (rethrow_as), so a caller can tell them apart:
// OUT_OF_RANGE: a closed queue ran dry, an input is exhausted (a queue runner
// closes its queue, a training loop stops cleanly; tf.data's end of sequence
// uses it too).
class OutOfRangeError : public Error {
 public:
  using Error::Error;
};
// CANCELLED: a pending enqueue or dequeue was cancelled (its queue closed
// with cancel_pending_enqueues, or the run was abandoned).
class CancelledError : public Error {
 public:
  using Error::Error;
};
// DEADLINE_EXCEEDED: a blocking op gave up waiting (the session's
// blocking_op_timeout_s).
class DeadlineExceededError : public Error {
 public:
  using Error::Error;
};

// Throws an error of the same class as `original` (one of the above, else
// Error) with `message`.
[[noreturn]] inline void rethrow_as(const std::exception& original, const std::string& message) {
  if (dynamic_cast<const OutOfRangeError*>(&original)) throw OutOfRangeError(message);
  if (dynamic_cast<const CancelledError*>(&original)) throw CancelledError(message);
  if (dynamic_cast<const DeadlineExceededError*>(&original)) throw DeadlineExceededError(message);
  throw Error(message);
}

// A problem in an input file, located as file:line:column (1-based; 0 = unknown).
class ParseError : public Error {
 public:
  ParseError(std::string file, int line, int column, const std::string& message)
      : Error(format(file, line, column, message)),
        file_(std::move(file)), line_(line), column_(column) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  static std::string format(const std::string& file, int line, int column, const std::string& message) {
    std::string where = file;
    if (line > 0) where += ":" + std::to_string(line);
    if (line > 0 && column > 0) where += ":" + std::to_string(column);
    return where + ": " + message;
  }
  std::string file_;
  int line_;
  int column_;
};

}  // namespace flowlens

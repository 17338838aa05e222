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

// TensorFlow's OutOfRange status: a sequence ended (IteratorGetNext past a
// dataset's last element: "End of sequence", a closed queue). Training loops
// catch it to stop cleanly at the end of their input.
class OutOfRangeError : public Error {
 public:
  using Error::Error;
};

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

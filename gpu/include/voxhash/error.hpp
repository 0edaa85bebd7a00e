// Exceptions thrown by the library. The library never calls exit(): front ends catch at main(),
// print one line and decide. CUDA failures carry file, line and the CUDA error name.
#pragma once

#include <stdexcept>
#include <string>

namespace voxhash {

/// Base of every voxhash error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Caller passed something the library cannot accept (a sentinel key, a size mismatch, ...).
class InvalidInput : public Error {
 public:
  using Error::Error;
};

/// A table could not be built within its retry budget (too small, chain limit too low).
class BuildFailed : public Error {
 public:
  using Error::Error;
};

/// A CUDA runtime call failed. what() reads "file:line: cudaErrorName: description (call)".
class CudaError : public Error {
 public:
  CudaError(const std::string& message, int code) : Error(message), m_code(code) {}
  [[nodiscard]] int code() const noexcept { return m_code; }

 private:
  int m_code;
};

/// Device memory (or host memory for the CPU backend) could not be allocated.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

}  // namespace voxhash

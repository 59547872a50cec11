// The exceptions gemmlab throws. Every failure is one of these, with a message a user can act on.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "gemmlab/export.hpp"

namespace gemmlab {

// Anything that went wrong: a CUDA error, a missing GPU, an unreadable file, ...
class GEMMLAB_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A call was refused before anything ran: an argument is out of range or inconsistent with another.
// argument() names it as in the API ("lda", "b.batch_stride", "offsets", "epilogue.bias", ...).
// Nothing has been written to D.
class GEMMLAB_API InvalidArgument : public Error {
 public:
  InvalidArgument(std::string argument, const std::string& message)
      : Error(argument + ": " + message), argument_(std::move(argument)) {}
  const std::string& argument() const noexcept { return argument_; }

 private:
  std::string argument_;
};

// A valid request that gemmlab does not offer (a type combination, FP8 before it is added, a GPU
// too old for any kernel). Nothing has been written to D.
class GEMMLAB_API Unsupported : public Error {
 public:
  using Error::Error;
};

}  // namespace gemmlab

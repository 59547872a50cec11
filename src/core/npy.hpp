// NumPy .npy files: the format users bring matrices in and take results out with.
//
// Supported: format versions 1.0-3.0, little-endian, C order, two dimensions; element types
// '<f4' (f32), '<f8' (f64), '<f2' (f16) and bfloat16 (descr 'bfloat16' or '<V2', which is what
// numpy writes for ml_dtypes.bfloat16). Anything else is rejected with a message naming the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace gemmlab {

struct HostMatrix {
  std::int64_t rows = 0, cols = 0;
  DType dtype = DType::f32;
  std::vector<std::uint8_t> bytes;  // rows * cols * dtype_size(dtype), row-major

  std::int64_t elements() const { return rows * cols; }
  template <class T> const T* as() const { return reinterpret_cast<const T*>(bytes.data()); }
  template <class T> T* as() { return reinterpret_cast<T*>(bytes.data()); }
};

HostMatrix read_npy(const std::string& path);          // throws gemmlab::Error
void write_npy(const std::string& path, const HostMatrix& m);

// Exposed for tests: parse the header dictionary of a .npy file.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};
NpyHeader parse_npy_header(const std::string& dict, const std::string& path_for_messages);

// Every element as double, whatever the stored type (for the CPU reference and tests).
std::vector<double> to_double(const HostMatrix& m);

}  // namespace gemmlab

#include "core/npy.hpp"

#include <cstring>
#include <fstream>
#include <limits>
#include <regex>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/half.hpp"

namespace gemmlab {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::string descr_for(DType t) {
  switch (t) {
    case DType::f32: return "<f4";
    case DType::f64: return "<f8";
    case DType::f16: return "<f2";
    case DType::bf16: return "<V2";  // numpy's own spelling for ml_dtypes.bfloat16
  }
  return "";
}

DType dtype_from_descr(const std::string& d, const std::string& path) {
  if (d == "<f4") return DType::f32;
  if (d == "<f8") return DType::f64;
  if (d == "<f2") return DType::f16;
  if (d == "bfloat16" || d == "<V2") return DType::bf16;
  throw Error(fmt::format("{}: unsupported element type '{}' (gemmlab reads <f4, <f8, <f2 and bfloat16)",
                          path, d));
}

}  // namespace

NpyHeader parse_npy_header(const std::string& dict, const std::string& path) {
  NpyHeader h;
  std::smatch m;
  static const std::regex descr_re(R"('descr'\s*:\s*'([^']*)')");
  static const std::regex fortran_re(R"('fortran_order'\s*:\s*(True|False))");
  static const std::regex shape_re(R"('shape'\s*:\s*\(([^)]*)\))");
  if (!std::regex_search(dict, m, descr_re))
    throw Error(fmt::format("{}: malformed .npy header (no 'descr')", path));
  h.descr = m[1];
  if (!std::regex_search(dict, m, fortran_re))
    throw Error(fmt::format("{}: malformed .npy header (no 'fortran_order')", path));
  h.fortran_order = (m[1] == "True");
  if (!std::regex_search(dict, m, shape_re))
    throw Error(fmt::format("{}: malformed .npy header (no 'shape')", path));
  const std::string dims = m[1];
  static const std::regex int_re(R"(\s*(\d+)\s*(,|$))");
  std::size_t pos = 0;
  while (pos < dims.size()) {
    std::smatch dm;
    std::string rest = dims.substr(pos);
    if (rest.find_first_not_of(" \t") == std::string::npos) break;
    if (!std::regex_search(rest, dm, int_re, std::regex_constants::match_continuous))
      throw Error(fmt::format("{}: malformed .npy header (bad shape '({})')", path, dims));
    const std::string digits = dm[1];
    if (digits.size() > 15) throw Error(fmt::format("{}: .npy dimension {} is too large", path, digits));
    h.shape.push_back(std::stoll(digits));
    pos += dm.length(0);
  }
  return h;
}

HostMatrix read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open file ({})", path, std::strerror(errno)));
  char magic[6];
  if (!in.read(magic, 6) || std::memcmp(magic, kMagic, 6) != 0)
    throw Error(fmt::format("{}: not a .npy file (bad magic)", path));
  unsigned char ver[2];
  if (!in.read(reinterpret_cast<char*>(ver), 2)) throw Error(fmt::format("{}: truncated .npy header", path));
  std::uint32_t header_len = 0;
  if (ver[0] == 1) {
    unsigned char l[2];
    if (!in.read(reinterpret_cast<char*>(l), 2)) throw Error(fmt::format("{}: truncated .npy header", path));
    header_len = l[0] | (l[1] << 8);
  } else if (ver[0] == 2 || ver[0] == 3) {
    unsigned char l[4];
    if (!in.read(reinterpret_cast<char*>(l), 4)) throw Error(fmt::format("{}: truncated .npy header", path));
    header_len = l[0] | (l[1] << 8) | (l[2] << 16) | (std::uint32_t(l[3]) << 24);
  } else {
    throw Error(fmt::format("{}: unsupported .npy format version {}.{}", path, ver[0], ver[1]));
  }
  if (header_len > (1u << 20)) throw Error(fmt::format("{}: malformed .npy header (length {})", path, header_len));
  std::string dict(header_len, '\0');
  if (!in.read(dict.data(), header_len)) throw Error(fmt::format("{}: truncated .npy header", path));
  const NpyHeader h = parse_npy_header(dict, path);
  if (h.fortran_order)
    throw Error(fmt::format("{}: Fortran-ordered arrays are not supported (save np.ascontiguousarray(x))", path));
  if (h.shape.size() != 2)
    throw Error(fmt::format("{}: expected a 2-D matrix, the file holds {} dimension(s)", path, h.shape.size()));
  HostMatrix mat;
  mat.rows = h.shape[0];
  mat.cols = h.shape[1];
  mat.dtype = dtype_from_descr(h.descr, path);
  if (mat.rows <= 0 || mat.cols <= 0)
    throw Error(fmt::format("{}: empty matrix ({} x {})", path, mat.rows, mat.cols));
  const std::size_t esz = dtype_size(mat.dtype);
  if (double(mat.rows) * double(mat.cols) * double(esz) > double(std::numeric_limits<std::int64_t>::max() / 2))
    throw Error(fmt::format("{}: matrix of {} x {} is too large", path, mat.rows, mat.cols));
  const std::size_t nbytes = std::size_t(mat.rows) * std::size_t(mat.cols) * esz;
  // Check the file really holds that many bytes before allocating them.
  const auto data_start = in.tellg();
  in.seekg(0, std::ios::end);
  const auto file_end = in.tellg();
  if (file_end - data_start < std::streamoff(nbytes))
    throw Error(fmt::format("{}: truncated data ({} bytes present, {} x {} {} needs {})", path,
                            std::int64_t(file_end - data_start), mat.rows, mat.cols,
                            dtype_name(mat.dtype), nbytes));
  in.seekg(data_start);
  mat.bytes.resize(nbytes);
  if (!in.read(reinterpret_cast<char*>(mat.bytes.data()), std::streamsize(nbytes)))
    throw Error(fmt::format("{}: read error", path));
  return mat;
}

void write_npy(const std::string& path, const HostMatrix& m) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}, {}), }}",
                                 descr_for(m.dtype), m.rows, m.cols);
  // Pad so that magic + version + length + dict + '\n' is a multiple of 64 bytes.
  const std::size_t prefix = 6 + 2 + 2;
  std::size_t total = prefix + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(fmt::format("{}: cannot open for writing ({})", path, std::strerror(errno)));
  out.write(kMagic, 6);
  const char ver[2] = {1, 0};
  out.write(ver, 2);
  const std::uint16_t len = static_cast<std::uint16_t>(dict.size());
  const char l[2] = {char(len & 0xff), char(len >> 8)};
  out.write(l, 2);
  out.write(dict.data(), std::streamsize(dict.size()));
  out.write(reinterpret_cast<const char*>(m.bytes.data()), std::streamsize(m.bytes.size()));
  if (!out) throw Error(fmt::format("{}: write error", path));
}

std::vector<double> to_double(const HostMatrix& m) {
  std::vector<double> out(std::size_t(m.elements()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    switch (m.dtype) {
      case DType::f32: out[i] = m.as<float>()[i]; break;
      case DType::f64: out[i] = m.as<double>()[i]; break;
      case DType::f16: out[i] = half_bits_to_float(m.as<std::uint16_t>()[i]); break;
      case DType::bf16: out[i] = bf16_bits_to_float(m.as<std::uint16_t>()[i]); break;
    }
  }
  return out;
}

}  // namespace gemmlab

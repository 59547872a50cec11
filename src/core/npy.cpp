#include "core/npy.hpp"

#include <cstring>
#include <fstream>
#include <limits>

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
                          path, d.size() > 40 ? d.substr(0, 40) + "..." : d));
}

}  // namespace

// The header is a Python dict literal, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }".
// Read by a linear scan: std::regex (libstdc++) recursed once per character matched and overflowed
// the stack on a long value (a header of a million characters, which the length check admits).
NpyHeader parse_npy_header(const std::string& dict, const std::string& path) {
  auto malformed = [&](const std::string& why) { return Error(fmt::format("{}: malformed .npy header ({})", path, why)); };
  // The position just past "'key'", spaces and a colon, then spaces.
  auto value_of = [&](const char* key) {
    const std::string quoted = fmt::format("'{}'", key);
    std::size_t at = dict.find(quoted);
    if (at == std::string::npos) throw malformed(fmt::format("no '{}'", key));
    at = dict.find_first_not_of(" \t\r\n", at + quoted.size());
    if (at == std::string::npos || dict[at] != ':') throw malformed(fmt::format("no ':' after '{}'", key));
    at = dict.find_first_not_of(" \t\r\n", at + 1);
    if (at == std::string::npos) throw malformed(fmt::format("no value for '{}'", key));
    return at;
  };
  NpyHeader h;
  std::size_t at = value_of("descr");
  const std::size_t close = dict[at] == '\'' ? dict.find('\'', at + 1) : std::string::npos;
  if (close == std::string::npos) throw malformed("'descr' is not a quoted string");
  h.descr = dict.substr(at + 1, close - at - 1);
  at = value_of("fortran_order");
  if (dict.compare(at, 4, "True") == 0) h.fortran_order = true;
  else if (dict.compare(at, 5, "False") == 0) h.fortran_order = false;
  else throw malformed("'fortran_order' is not True or False");
  at = value_of("shape");
  const std::size_t end = dict[at] == '(' ? dict.find(')', at) : std::string::npos;
  if (end == std::string::npos) throw malformed("'shape' is not a tuple");
  const std::string dims = dict.substr(at + 1, end - at - 1);
  // Integers separated by commas, a trailing comma allowed ("(3,)"), spaces anywhere between.
  std::size_t pos = dims.find_first_not_of(" \t\r\n");
  while (pos != std::string::npos) {
    const std::size_t digits_end = dims.find_first_not_of("0123456789", pos);
    const std::string digits = dims.substr(pos, digits_end == std::string::npos ? std::string::npos : digits_end - pos);
    if (digits.empty()) throw malformed(fmt::format("bad shape '({})'", dims.size() > 40 ? dims.substr(0, 40) + "..." : dims));
    if (digits.size() > 15) throw Error(fmt::format("{}: .npy dimension {} is too large", path, digits));
    h.shape.push_back(std::stoll(digits));
    pos = digits_end == std::string::npos ? digits_end : dims.find_first_not_of(" \t\r\n", digits_end);
    if (pos == std::string::npos) break;
    if (dims[pos] != ',') throw malformed(fmt::format("bad shape '({})'", dims.size() > 40 ? dims.substr(0, 40) + "..." : dims));
    pos = dims.find_first_not_of(" \t\r\n", pos + 1);
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

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/half.hpp"
#include "core/npy.hpp"

using namespace gemmlab;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gemmlab_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

void write_raw(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// A version-1.0 .npy file with the given header dictionary and payload.
std::string npy_bytes(const std::string& dict, const std::string& payload) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64) h.push_back(' ');
  h.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  out.push_back(char(h.size() & 0xff));
  out.push_back(char(h.size() >> 8));
  return out + h + payload;
}

void expect_error_containing(const std::string& path, const std::string& needle) {
  try {
    read_npy(path);
    FAIL() << "expected an error for " << path;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Npy, RoundTripF32) {
  HostMatrix m;
  m.rows = 3;
  m.cols = 5;
  m.dtype = DType::f32;
  m.bytes.resize(15 * 4);
  for (int i = 0; i < 15; ++i) m.as<float>()[i] = 0.5f * float(i) - 3.0f;
  const std::string p = temp_path("rt.npy");
  write_npy(p, m);
  const HostMatrix r = read_npy(p);
  EXPECT_EQ(r.rows, 3);
  EXPECT_EQ(r.cols, 5);
  EXPECT_EQ(r.dtype, DType::f32);
  EXPECT_EQ(r.bytes, m.bytes);
  // The header is padded to a multiple of 64 bytes as numpy does.
  EXPECT_EQ((std::filesystem::file_size(p) - 60u) % 64u, 0u);
  std::remove(p.c_str());
}

TEST(Npy, RoundTripHalfAndBfloat16Values) {
  for (DType t : {DType::f16, DType::bf16}) {
    HostMatrix m;
    m.rows = 2;
    m.cols = 2;
    m.dtype = t;
    m.bytes.resize(8);
    const float vals[4] = {1.0f, -2.5f, 0.125f, 3.0f};
    for (int i = 0; i < 4; ++i)
      m.as<std::uint16_t>()[i] = t == DType::bf16 ? float_to_bf16_bits(vals[i])
                                                   : std::uint16_t(i == 0 ? 0x3C00 : i == 1 ? 0xC100 : i == 2 ? 0x3000 : 0x4200);
    const std::string p = temp_path("half.npy");
    write_npy(p, m);
    const std::vector<double> d = to_double(read_npy(p));
    for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(d[i], vals[i]) << dtype_name(t) << " element " << i;
    std::remove(p.c_str());
  }
}

TEST(Npy, HalfConversionHandlesSubnormalsAndInfinity) {
  EXPECT_FLOAT_EQ(half_bits_to_float(0x0001), 5.960464477539063e-08f);
  EXPECT_TRUE(std::isinf(half_bits_to_float(0x7C00)));
  EXPECT_FLOAT_EQ(bf16_bits_to_float(float_to_bf16_bits(1.00390625f)), 1.0f);  // ties to even
}

TEST(Npy, ReadsNumpyWrittenHeaderWithVersion2) {
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1), }";
  std::string h = dict;
  while ((12 + h.size() + 1) % 64) h.push_back(' ');
  h.push_back('\n');
  std::string bytes = "\x93NUMPY";
  bytes.push_back(2);
  bytes.push_back(0);
  const std::uint32_t len = std::uint32_t(h.size());
  for (int i = 0; i < 4; ++i) bytes.push_back(char((len >> (8 * i)) & 0xff));
  double payload[2] = {1.5, -4.0};
  bytes += h + std::string(reinterpret_cast<const char*>(payload), 16);
  const std::string p = temp_path("v2.npy");
  write_raw(p, bytes);
  const HostMatrix m = read_npy(p);
  EXPECT_EQ(m.dtype, DType::f64);
  EXPECT_EQ(to_double(m)[1], -4.0);
  std::remove(p.c_str());
}

TEST(Npy, MissingFile) { expect_error_containing("/nonexistent/dir/x.npy", "cannot open"); }

TEST(Npy, BadMagic) {
  const std::string p = temp_path("magic.npy");
  write_raw(p, "PK\x03\x04 this is a zip, not npy");
  expect_error_containing(p, "not a .npy file");
  std::remove(p.c_str());
}

TEST(Npy, TruncatedHeader) {
  const std::string p = temp_path("trunc_header.npy");
  write_raw(p, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", "").substr(0, 30));
  expect_error_containing(p, "truncated");
  std::remove(p.c_str());
}

TEST(Npy, TruncatedData) {
  const std::string p = temp_path("trunc_data.npy");
  write_raw(p, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }", std::string(20, '\0')));
  expect_error_containing(p, "truncated data");
  std::remove(p.c_str());
}

TEST(Npy, UnsupportedDtype) {
  const std::string p = temp_path("int.npy");
  write_raw(p, npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1), }", std::string(4, '\0')));
  expect_error_containing(p, "unsupported element type '<i4'");
  std::remove(p.c_str());
}

// Headers of a million characters (the reader admits headers up to 1 MiB, through format 2.0's
// 4-byte length): a long descr, a shape padded with spaces, a shape of 300,000 dimensions. Each is
// read or refused with a message; none may crash (the std::regex reader overflowed its stack).
TEST(Npy, LongHeadersAreReadOrRefusedWithoutCrashing) {
  auto v2 = [](const std::string& dict) {
    std::string out = "\x93NUMPY";
    out.push_back(2), out.push_back(0);
    for (int i = 0; i < 4; ++i) out.push_back(char((dict.size() >> (8 * i)) & 0xff));
    return out + dict;
  };
  const std::string path = temp_path("long_header.npy");
  write_raw(path, v2("{'descr': '" + std::string(1000000, 'a') + "', 'fortran_order': False, 'shape': (2, 2), }"));
  expect_error_containing(path, "unsupported element type '" + std::string(40, 'a') + "...'");  // cut short
  write_raw(path, v2("{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::string(1000000, ' ') + "2, 2), }") +
                      std::string(16, '\0'));
  const HostMatrix m = read_npy(path);
  EXPECT_EQ(m.rows, 2);
  EXPECT_EQ(m.cols, 2);
  std::string dims;
  for (int i = 0; i < 300000; ++i) dims += "1,";
  write_raw(path, v2("{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }"));
  expect_error_containing(path, "expected a 2-D matrix, the file holds 300000 dimension(s)");
  write_raw(path, v2("{'descr': '<f4', 'fortran_order': False, 'shape': (2, " + std::string(1000000, 'x') + "), }"));
  expect_error_containing(path, "malformed .npy header (bad shape '(2, " + std::string(37, 'x') + "...)')");
  std::remove(path.c_str());
}

TEST(Npy, NotTwoDimensional) {
  const std::string p = temp_path("3d.npy");
  write_raw(p, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 2), }", std::string(32, '\0')));
  expect_error_containing(p, "2-D");
  std::remove(p.c_str());
}

TEST(Npy, FortranOrderRejected) {
  const std::string p = temp_path("fortran.npy");
  write_raw(p, npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 1), }", std::string(4, '\0')));
  expect_error_containing(p, "Fortran");
  std::remove(p.c_str());
}

TEST(Npy, MalformedDictionary) {
  const std::string p = temp_path("dict.npy");
  write_raw(p, npy_bytes("{'fortran_order': False, 'shape': (1, 1), }", std::string(4, '\0')));
  expect_error_containing(p, "malformed");
  write_raw(p, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, x), }", std::string(4, '\0')));
  expect_error_containing(p, "malformed");
  std::remove(p.c_str());
}

TEST(Npy, EmptyMatrixRejected) {
  const std::string p = temp_path("empty.npy");
  write_raw(p, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", ""));
  expect_error_containing(p, "empty");
  std::remove(p.c_str());
}

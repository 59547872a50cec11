// Base fixture of every GPU test: skip (reported as skipped, with the reason) when there is no GPU.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "core/device.hpp"

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (gemmlab::device_count() == 0) GTEST_SKIP() << "no CUDA GPU on this machine";
  }
};

template <class T>
class GpuTestWithParam : public ::testing::TestWithParam<T> {
 protected:
  void SetUp() override {
    if (gemmlab::device_count() == 0) GTEST_SKIP() << "no CUDA GPU on this machine";
  }
};

// The name of a test instantiated for one kernel id: gtest takes letters, digits and '_' only
// ("tc.tma_epilogue.bf16" -> "tc_tma_epilogue_bf16").
inline std::string kernel_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

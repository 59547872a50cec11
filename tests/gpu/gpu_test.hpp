// Base fixture of every GPU test: skip (reported as skipped, with the reason) when there is no GPU.
#pragma once

#include <gtest/gtest.h>

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

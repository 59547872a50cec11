#include <cuda_runtime.h>

#include "kernels/common.hpp"

namespace gemmlab {

int current_sm_count() {
  static const int sms = [] {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
      (void)cudaGetLastError();
      return 132;
    }
    return n;
  }();
  return sms;
}

}  // namespace gemmlab

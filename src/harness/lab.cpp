#include "harness/lab.hpp"

#include <cstdlib>
#include <string_view>

#include "core/error.hpp"
#include "gemmlab/context.hpp"

namespace gemmlab {

Lab::Lab(int device) : device_(query_device(device)) {
  GEMMLAB_CUDA(cudaSetDevice(device));
  GEMMLAB_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  GEMMLAB_CUBLAS(cublasCreate(&cublas_));
  GEMMLAB_CUBLAS(cublasSetStream(cublas_, stream_));
  Context::Options options;
  options.device = device;
  library_ = std::make_unique<Context>(options);
}

Lab::~Lab() {
  if (cublas_) cublasDestroy(cublas_);
  if (stream_) cudaStreamDestroy(stream_);
}

ExecContext Lab::context(void* workspace, std::size_t workspace_bytes) const {
  return ExecContext{stream_, cublas_, workspace, workspace_bytes, &device_, library_.get()};
}

void Lab::flush_l2() {
  if (!flush_.ready()) flush_ = L2Flush(std::size_t(device_.l2_bytes), device_.sm_count, stream_, L2Flush::mode_from_environment());
  flush_.enqueue(stream_);
}

StreamHold* Lab::hold() {
  if (holds_off_) return nullptr;
  if (!hold_) {
    // A tool's injection library: compute-sanitizer loads its through CUDA_INJECTION64_PATH; ncu
    // 2025.3 preloads its and sets NV_NSIGHT_INJECTION_* instead (a hold under it waited out its
    // timeout once, then the Lab turned holds off).
    const char* injected = std::getenv("CUDA_INJECTION64_PATH");
    const char* nsight = std::getenv("NV_NSIGHT_INJECTION_TRANSPORT_TYPE");
    const char* blocking = std::getenv("CUDA_LAUNCH_BLOCKING");
    if ((injected && *injected) || (nsight && *nsight) || (blocking && std::string_view(blocking) == "1")) {
      holds_off_ = true;
      return nullptr;
    }
    hold_ = std::make_unique<StreamHold>();
  }
  return hold_.get();
}

std::size_t Lab::free_memory() const {
  std::size_t free = 0, total = 0;
  GEMMLAB_CUDA(cudaMemGetInfo(&free, &total));
  return free;
}

}  // namespace gemmlab

// The hold the timed runs are enqueued behind (harness/hold.hpp): with it the events measure the
// GPU's time even when the host is slower to enqueue a run than the GPU is to run it; a hold the
// host never releases gives up after its timeout; runs that wait for the stream are timed again
// without it.
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include <cuda_runtime.h>

#include "core/buffer.hpp"
#include "core/error.hpp"
#include "harness/hold.hpp"
#include "harness/timing.hpp"
#include "support/gpu_test.hpp"

using namespace gemmlab;

namespace {

class Hold : public GpuTest {};

TEST_F(Hold, TimedRunsMeasureTheGpuNotTheHost) {
  Lab lab;
  DeviceBuffer buf(4096);
  // The host takes 300 us to enqueue each run, whose GPU work (a 4 KB memset) takes a few.
  auto run = [&] {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    GEMMLAB_CUDA(cudaMemsetAsync(buf.get(), 1, buf.bytes(), lab.stream()));
  };
  TimingPlan plan{2, 40, 5.0};
  const Timing held = time_runs(lab, plan, run);
  EXPECT_TRUE(held.held);
  EXPECT_EQ(held.samples.size(), 40u);
  EXPECT_LT(held.ms.median, 0.1);
  plan.hold = false;
  const Timing as_enqueued = time_runs(lab, plan, run);
  EXPECT_FALSE(as_enqueued.held);
  EXPECT_GT(as_enqueued.ms.median, 0.25);  // the start event ran while the host slept
}

TEST_F(Hold, AHoldNeverReleasedGivesUpAfterItsTimeout) {
  Lab lab;
  DeviceBuffer buf(4096);
  StreamHold h;
  const auto t0 = std::chrono::steady_clock::now();
  h.hold(lab.stream(), 50.0);
  GEMMLAB_CUDA(cudaMemsetAsync(buf.get(), 2, buf.bytes(), lab.stream()));
  GEMMLAB_CUDA(cudaStreamSynchronize(lab.stream()));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(45));
  EXPECT_TRUE(h.gave_up());
  EXPECT_FALSE(h.gave_up());  // reading it clears it
  h.hold(lab.stream(), 5000.0);
  GEMMLAB_CUDA(cudaMemsetAsync(buf.get(), 3, buf.bytes(), lab.stream()));
  h.release();
  GEMMLAB_CUDA(cudaStreamSynchronize(lab.stream()));
  EXPECT_FALSE(h.gave_up());
  unsigned char first = 0;
  GEMMLAB_CUDA(cudaMemcpy(&first, buf.get(), 1, cudaMemcpyDeviceToHost));
  EXPECT_EQ(first, 3);
}

TEST_F(Hold, RunsThatWaitForTheStreamAreTimedWithoutTheHold) {
  Lab lab;
  DeviceBuffer buf(4096);
  auto run = [&] {
    GEMMLAB_CUDA(cudaMemsetAsync(buf.get(), 4, buf.bytes(), lab.stream()));
    GEMMLAB_CUDA(cudaStreamSynchronize(lab.stream()));  // behind a hold: waits for its timeout
  };
  const Timing t = time_runs(lab, TimingPlan{1, 5, 5.0}, run);
  EXPECT_FALSE(t.held);
  EXPECT_EQ(t.samples.size(), 5u);
  EXPECT_LT(t.ms.median, 100.0);
  // One give-up turns holds off for the rest of the Lab: the next timing costs no timeout.
  EXPECT_EQ(lab.hold(), nullptr);
  const Timing next = time_runs(lab, TimingPlan{1, 5, 5.0},
                                [&] { GEMMLAB_CUDA(cudaMemsetAsync(buf.get(), 5, buf.bytes(), lab.stream())); });
  EXPECT_FALSE(next.held);
}

// Under a tool that serialises launches every hold would wait for its timeout: a Lab made there
// holds nothing. compute-sanitizer injects its library through CUDA_INJECTION64_PATH, ncu 2025.3
// preloads its and sets NV_NSIGHT_INJECTION_TRANSPORT_TYPE (as seen on the H100 machine).
TEST_F(Hold, NoHoldsWhereAToolIsInjected) {
  for (const char* var : {"CUDA_INJECTION64_PATH", "NV_NSIGHT_INJECTION_TRANSPORT_TYPE"}) {
    SCOPED_TRACE(var);
    const char* was = std::getenv(var);
    const std::string saved = was ? was : "";
    ASSERT_EQ(setenv(var, "tool", 1), 0);
    {
      Lab lab;
      EXPECT_EQ(lab.hold(), nullptr);
      DeviceBuffer buf(4096);
      const Timing t = time_runs(lab, TimingPlan{1, 5, 5.0},
                                 [&] { GEMMLAB_CUDA(cudaMemsetAsync(buf.get(), 6, buf.bytes(), lab.stream())); });
      EXPECT_FALSE(t.held);
    }
    if (was) {
      setenv(var, saved.c_str(), 1);
    } else {
      unsetenv(var);
      if (!std::getenv("CUDA_INJECTION64_PATH") && !std::getenv("NV_NSIGHT_INJECTION_TRANSPORT_TYPE")) {
        Lab plain;
        EXPECT_NE(plain.hold(), nullptr);
      }
    }
  }
}

}  // namespace

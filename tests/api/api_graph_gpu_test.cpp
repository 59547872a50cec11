// The public API in the settings applications put it in: captured into a CUDA graph and replayed
// with new inputs, scalars and routing in the same buffers; and from two threads at once, each
// with its own stream and its own context (on two GPUs where there are two) or Workspace.
#include <thread>

#include "api/api_support.hpp"

using namespace gemmlab;
using namespace gemmlab::apitest;

namespace {

class ApiGraph : public ApiTest {};

// An executable graph of whatever `enqueue` puts on the stream (global capture mode: a call that
// synchronises or allocates while capturing fails the capture).
class CapturedGraph {
 public:
  CapturedGraph(cudaStream_t s, const std::function<void()>& enqueue) {
    GEMMLAB_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    try {
      enqueue();
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(s, &broken);
      if (broken) cudaGraphDestroy(broken);
      throw;
    }
    GEMMLAB_CUDA(cudaStreamEndCapture(s, &graph_));
    GEMMLAB_CUDA(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  ~CapturedGraph() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  void launch(cudaStream_t s) const { GEMMLAB_CUDA(cudaGraphLaunch(exec_, s)); }
  std::size_t nodes() const {
    std::size_t n = 0;
    GEMMLAB_CUDA(cudaGraphGetNodes(graph_, nullptr, &n));
    return n;
  }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

void set_scalars(const DeviceBuffer& scalars, float alpha, float beta, cudaStream_t s) {
  const float host[2] = {alpha, beta};
  GEMMLAB_CUDA(cudaMemcpyAsync(scalars.get(), host, sizeof(host), cudaMemcpyHostToDevice, s));
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
}

// gemm() (and each candidate) captured once, replayed with new A, B, C and new alpha/beta behind
// the device pointers each time; every replay is checked against its own reference.
TEST_F(ApiGraph, ReplaysSeeNewInputsAndScalars) {
  for (const TypeCombo& t : type_combos())
    for (Order d_order : {Order::row_major, Order::col_major}) {
      GemmCase gc = with_types(GemmCase{}, t);
      gc.m = 136, gc.n = 200, gc.k = 72;
      gc.d_order = d_order;
      gc.batch = 2, gc.gap = 3;
      gc.scalars_on_device = true, gc.alpha = 1, gc.beta = 0.5;
      gc.bias = BiasKind::per_column, gc.act = Activation::gelu_tanh;
      const GemmSetup st = make_setup(gc, fresh_seed(), stream());
      const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
      for (const Path& p : paths(ctx(), st.g, stream())) {
        SCOPED_TRACE(fmt::format("{}: {}", gc.name(), p.name));
        const CapturedGraph graph(stream(), p.run);
        EXPECT_GE(graph.nodes(), 1u);
        const float alphas[] = {1.0f, -1.5f, 0.25f}, betas[] = {0.5f, 0.75f, 0.0f};
        for (int replay = 0; replay < 3; ++replay) {
          const std::uint64_t seed = fresh_seed();
          st.a.fill_uniform(seed, kStreamA, stream());
          st.b.fill_uniform(seed, kStreamB, stream());
          st.c.fill_uniform(seed, kStreamC, stream());
          set_scalars(st.scalars, alphas[replay], betas[replay], stream());
          const Reference ref = apiref::reference(st.g, alphas[replay], betas[replay], stream());
          st.d.poison(stream());
          graph.launch(stream());
          const OutputCheck chk = apiref::check_output(st.d, ref, tol, stream());
          EXPECT_TRUE(chk.passed()) << "replay " << replay << " (seed " << seed << "): " << chk.summary();
        }
      }
    }
}

// A grouped call captured once and replayed with new routing (offsets written on the device
// between replays, as a router would): each replay's groups and unused rows are checked.
TEST_F(ApiGraph, GroupedReplaysSeeNewOffsets) {
  for (const TypeCombo& t : type_combos()) {
    GroupedCase gc;
    gc.ab = t.ab, gc.cd = t.cd, gc.compute = t.compute;
    gc.sizes = {50, 50, 50, 50};
    gc.unused = 30;
    gc.n = 200, gc.k = 72;
    gc.bias = BiasKind::per_column, gc.bias_per_group = true;
    const GroupedSetup st = make_grouped_setup(gc, fresh_seed(), stream());
    const Tolerance tol = apiref::tolerance_for(gc.ab, gc.cd, gc.compute);
    const std::vector<std::vector<std::int32_t>> routings = {
        {50, 100, 150, 200}, {0, 130, 130, 229}, {1, 2, 3, 4}, {0, 0, 0, 0}, {230, 230, 230, 230}};
    for (const Path& p : paths(ctx(), st.g, stream())) {
      SCOPED_TRACE(fmt::format("{}: {}", gc.name(), p.name));
      const CapturedGraph graph(stream(), p.run);
      for (const auto& offsets : routings) {
        const std::uint64_t seed = fresh_seed();
        st.a.fill_uniform(seed, kStreamA, stream());
        st.set_offsets(offsets, stream());
        const Reference ref = apiref::reference(st.g, 1, 0, stream());
        st.d.poison(stream());
        graph.launch(stream());
        const OutputCheck chk = apiref::check_output(st.d, ref, tol, stream());
        EXPECT_TRUE(chk.passed()) << fmt::format("offsets {} {} {} {} (seed {}): ", offsets[0], offsets[1], offsets[2],
                                                 offsets[3], seed)
                                  << chk.summary();
      }
    }
  }
}

// ---- Threads -----------------------------------------------------------------------------------

// The cases each thread runs: every type combination, a few shapes and epilogues, a grouped call.
std::vector<std::string> thread_work(const Context& ctx, cudaStream_t s, Workspace* ws, int rounds) {
  std::vector<std::string> failures;
  auto take = [&](const CaseResult& r) {
    failures.insert(failures.end(), r.failures.begin(), r.failures.end());
    if (r.paths < 2) failures.push_back("a case ran no candidate");
  };
  for (int round = 0; round < rounds; ++round)
    for (const TypeCombo& t : type_combos()) {
      GemmCase c = with_types(GemmCase{}, t);
      c.m = 333 + round, c.n = 97, c.k = 515;
      c.beta = 0.75, c.c_is_d = round % 2 == 1, c.bias = BiasKind::per_row, c.act = Activation::relu;
      take(run_case(ctx, c, s, ws));
      c.m = 256, c.n = 256, c.k = 1024, c.d_order = Order::col_major, c.det = Determinism::fast;
      take(run_case(ctx, c, s, ws));
      GroupedCase gcase;
      gcase.ab = t.ab, gcase.cd = t.cd, gcase.compute = t.compute;
      gcase.sizes = {100, 0, 57, 200};
      gcase.unused = 9;
      gcase.n = 136, gcase.k = 264;
      take(run_grouped_case(ctx, gcase, s, ws));
    }
  return failures;
}

class ApiThreads : public ApiTest {};

// Two threads, each with its own context (on its own GPU when there are two) and stream.
TEST_F(ApiThreads, TwoContextsOnTwoThreads) {
  const int gpus = device_count();
  std::vector<std::string> failures[2];
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([t, gpus, &failures] {
      try {
        const int device = t % gpus;
        GEMMLAB_CUDA(cudaSetDevice(device));
        Context::Options o;
        o.device = device;
        const Context ctx(o);
        cudaStream_t s = nullptr;
        GEMMLAB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        failures[t] = thread_work(ctx, s, nullptr, 3);
        GEMMLAB_CUDA(cudaStreamSynchronize(s));
        cudaStreamDestroy(s);
      } catch (const std::exception& e) {
        failures[t].push_back(fmt::format("thread {} threw {}", t, e.what()));
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 2; ++t)
    for (const std::string& f : failures[t]) ADD_FAILURE() << "thread " << t << " (GPU " << t % gpus << "): " << f;
}

// One context shared by two threads, each with its own Workspace and stream (context.hpp: a
// workspace serves one stream at a time).
TEST_F(ApiThreads, OneContextTwoThreadsWithTheirOwnWorkspaces) {
  std::vector<std::string> failures[2];
  int device = 0;
  GEMMLAB_CUDA(cudaGetDevice(&device));
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([t, device, this, &failures] {
      try {
        GEMMLAB_CUDA(cudaSetDevice(device));
        Workspace ws(ctx(), std::size_t(16) << 20);
        cudaStream_t s = nullptr;
        GEMMLAB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        failures[t] = thread_work(ctx(), s, &ws, 3);
        GEMMLAB_CUDA(cudaStreamSynchronize(s));
        cudaStreamDestroy(s);
      } catch (const std::exception& e) {
        failures[t].push_back(fmt::format("thread {} threw {}", t, e.what()));
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 2; ++t)
    for (const std::string& f : failures[t]) ADD_FAILURE() << "thread " << t << ": " << f;
}

}  // namespace

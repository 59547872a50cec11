#include "transfer/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/fill.hpp"
#include "harness/run.hpp"
#include "kernels/registry.hpp"

namespace gemmlab::transfer {

namespace {

using SteadyClock = std::chrono::steady_clock;

double ms_between(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Share of the device's free memory a measurement may plan to use (the rest: CUDA context growth,
// cuBLAS workspaces, fragmentation).
constexpr double kDeviceMemoryShare = 0.9;

// Device memory of one run. Running out is a ResourceShortage (the size is skipped, not a crash);
// release() frees now, so that the free can be timed.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes) {
    if (bytes == 0) return;
    const cudaError_t e = cudaMalloc(&ptr_, bytes);
    if (e == cudaErrorMemoryAllocation) {
      ptr_ = nullptr;
      (void)cudaGetLastError();  // not sticky: clear it
      throw ResourceShortage(fmt::format("cudaMalloc of {} failed: out of device memory", format_bytes(double(bytes))));
    }
    if (e != cudaSuccess) throw_cuda_error(e, "cudaMalloc", __FILE__, __LINE__);
  }
  ~DeviceMemory() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceMemory(DeviceMemory&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)) {}
  DeviceMemory& operator=(DeviceMemory&& o) noexcept {
    if (this != &o) {
      if (ptr_) cudaFree(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
    }
    return *this;
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void release() {
    if (ptr_) GEMMLAB_CUDA(cudaFree(std::exchange(ptr_, nullptr)));
  }
  float* floats() const { return static_cast<float*>(ptr_); }

 private:
  void* ptr_ = nullptr;
};

// CUDA events, created once per measurement and reused by every run.
class EventSet {
 public:
  explicit EventSet(std::size_t n) : ev_(n, nullptr) {
    for (auto& e : ev_) {
      const cudaError_t status = cudaEventCreate(&e);
      if (status != cudaSuccess) {
        destroy();
        throw_cuda_error(status, "cudaEventCreate", __FILE__, __LINE__);
      }
    }
  }
  ~EventSet() { destroy(); }
  EventSet(const EventSet&) = delete;
  EventSet& operator=(const EventSet&) = delete;
  cudaEvent_t operator[](std::size_t i) const { return ev_[i]; }

 private:
  void destroy() {
    for (auto& e : ev_)
      if (e) cudaEventDestroy(std::exchange(e, nullptr));
  }
  std::vector<cudaEvent_t> ev_;
};

double elapsed_ms(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  GEMMLAB_CUDA(cudaEventElapsedTime(&ms, from, to));
  return ms;
}

class Stream {
 public:
  Stream() { GEMMLAB_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class CublasHandle {
 public:
  CublasHandle() { GEMMLAB_CUBLAS(cublasCreate(&h_)); }
  ~CublasHandle() {
    if (h_) cublasDestroy(h_);
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

// Everything one run allocates.
struct RunBuffers {
  HostBuffer a, b, c;
  DeviceMemory da, db, dc;
};

// The part of a run that moves data and computes: copies A and B to the device, computes C,
// copies it back and synchronises. It fills the copy, kernel and sync phases, the window, the
// GPU window and the kernel's busy time.
class Mover {
 public:
  virtual ~Mover() = default;
  virtual void move(const RunBuffers& b, RunTimes& t) = 0;
};

// Seed 001's program: one stream, each step after the previous one. The copies return to the host
// when they are done (as cudaMemcpy does in the seed), then the kernel, then C, then the final
// cudaDeviceSynchronize.
class SequentialMover final : public Mover {
 public:
  SequentialMover(Lab& lab, const Kernel& k, const Params& p, const Shape& s)
      : lab_(lab), kernel_(k), params_(p), shape_(s), workspace_(k.workspace_bytes(s, p)), events_(5) {}

  void move(const RunBuffers& b, RunTimes& t) override {
    const cudaStream_t st = lab_.stream();
    const std::size_t bytes_a = 4 * std::size_t(shape_.m * shape_.k), bytes_b = 4 * std::size_t(shape_.k * shape_.n),
                      bytes_c = 4 * std::size_t(shape_.m * shape_.n);
    const ExecContext ctx = lab_.context(workspace_.get(), workspace_.bytes());
    const auto t0 = SteadyClock::now();
    GEMMLAB_CUDA(cudaEventRecord(events_[0], st));
    GEMMLAB_CUDA(cudaMemcpyAsync(b.da.floats(), b.a.get(), bytes_a, cudaMemcpyHostToDevice, st));
    GEMMLAB_CUDA(cudaMemcpyAsync(b.db.floats(), b.b.get(), bytes_b, cudaMemcpyHostToDevice, st));
    GEMMLAB_CUDA(cudaEventRecord(events_[1], st));
    GEMMLAB_CUDA(cudaStreamSynchronize(st));
    GEMMLAB_CUDA(cudaEventRecord(events_[2], st));
    kernel_.launch(GemmArgs{shape_, b.da.floats(), b.db.floats(), b.dc.floats(), DType::f32, 1.0f, 0.0f}, params_, ctx);
    GEMMLAB_CUDA(cudaEventRecord(events_[3], st));
    GEMMLAB_CUDA(cudaMemcpyAsync(b.c.get(), b.dc.floats(), bytes_c, cudaMemcpyDeviceToHost, st));
    GEMMLAB_CUDA(cudaEventRecord(events_[4], st));
    GEMMLAB_CUDA(cudaStreamSynchronize(st));
    const auto t_sync = SteadyClock::now();
    GEMMLAB_CUDA(cudaDeviceSynchronize());
    const auto t1 = SteadyClock::now();
    t[Phase::copy_ab] = elapsed_ms(events_[0], events_[1]);
    t[Phase::kernel] = elapsed_ms(events_[2], events_[3]);
    t[Phase::copy_c] = elapsed_ms(events_[3], events_[4]);
    t[Phase::sync] = ms_between(t_sync, t1);
    t.window = ms_between(t0, t1);
    t.gpu_window = elapsed_ms(events_[0], events_[4]);
    t.kernel_busy = t[Phase::kernel];
  }

 private:
  Lab& lab_;
  const Kernel& kernel_;
  Params params_;
  Shape shape_;
  DeviceBuffer workspace_;
  EventSet events_;
};

// The overlapped pipeline (panels.hpp): one stream uploads A and B panel by panel, in the order
// the tiles need them; S compute streams take the tiles in turn, each waiting only for its own
// two panels, and download their tile of C right after computing it. The copy engines (one per
// direction) and the SMs work at the same time.
class OverlappedMover final : public Mover {
 public:
  OverlappedMover(Lab& lab, const Kernel& k, const Params& p, const Shape& s, const PanelPlan& plan, int streams)
      : lab_(lab),
        kernel_(k),
        params_(p),
        shape_(s),
        plan_(plan),
        events_(2 + plan.rows.size() + plan.cols.size() + 3 * plan.tiles.size()) {
    std::size_t ws = 0;
    for (const Shape& t : plan_.distinct_tile_shapes()) ws = std::max(ws, k.workspace_bytes(t, p));
    for (int i = 0; i < streams; ++i) {
      compute_.push_back(std::make_unique<Stream>());
      // One cuBLAS handle per stream: a handle's workspace must not be shared by kernels that run at once.
      handles_.push_back(std::make_unique<CublasHandle>());
      workspaces_.emplace_back(ws);
    }
  }

  void move(const RunBuffers& b, RunTimes& t) override {
    const std::int64_t K = shape_.k, N = shape_.n;
    const std::size_t nr = plan_.rows.size(), nc = plan_.cols.size(), nt = plan_.tiles.size();
    auto ev_start = [&] { return events_[0]; };
    auto ev_uploaded = [&] { return events_[1]; };
    auto ev_a = [&](std::size_t i) { return events_[2 + i]; };
    auto ev_b = [&](std::size_t j) { return events_[2 + nr + j]; };
    auto ev_k0 = [&](std::size_t x) { return events_[2 + nr + nc + x]; };
    auto ev_k1 = [&](std::size_t x) { return events_[2 + nr + nc + nt + x]; };
    auto ev_d1 = [&](std::size_t x) { return events_[2 + nr + nc + 2 * nt + x]; };
    const cudaStream_t up = upload_.get();
    const float* ha = b.a.as<float>();
    const float* hb = b.b.as<float>();
    float* hc = b.c.as<float>();

    const auto t0 = SteadyClock::now();
    GEMMLAB_CUDA(cudaEventRecord(ev_start(), up));
    for (const Upload& u : plan_.uploads) {
      if (u.operand == Upload::Operand::a) {
        // A row panel is contiguous in row-major A: one plain copy.
        const Span r = plan_.rows[std::size_t(u.index)];
        GEMMLAB_CUDA(cudaMemcpyAsync(b.da.floats() + r.begin * K, ha + r.begin * K, 4 * std::size_t(r.size * K),
                                     cudaMemcpyHostToDevice, up));
        GEMMLAB_CUDA(cudaEventRecord(ev_a(std::size_t(u.index)), up));
      } else {
        // A column panel of B is strided on the host (pitch N) and packed on the device (pitch cols):
        // the 2-D copy gathers it on the way, so the tile kernel sees an ordinary packed K x cols B.
        const Span c = plan_.cols[std::size_t(u.index)];
        GEMMLAB_CUDA(cudaMemcpy2DAsync(b.db.floats() + K * c.begin, 4 * std::size_t(c.size), hb + c.begin,
                                       4 * std::size_t(N), 4 * std::size_t(c.size), std::size_t(K),
                                       cudaMemcpyHostToDevice, up));
        GEMMLAB_CUDA(cudaEventRecord(ev_b(std::size_t(u.index)), up));
      }
    }
    GEMMLAB_CUDA(cudaEventRecord(ev_uploaded(), up));
    for (std::size_t x = 0; x < nt; ++x) {
      const Tile& tile = plan_.tiles[x];
      const std::size_t si = x % compute_.size();
      const cudaStream_t s = compute_[si]->get();
      GEMMLAB_CUDA(cudaStreamWaitEvent(s, ev_a(std::size_t(tile.i)), 0));
      GEMMLAB_CUDA(cudaStreamWaitEvent(s, ev_b(std::size_t(tile.j)), 0));
      GEMMLAB_CUDA(cudaEventRecord(ev_k0(x), s));
      float* c_tile = b.dc.floats() + tile.c_offset;
      const GemmArgs args{Shape{tile.rows.size, tile.cols.size, K}, b.da.floats() + tile.rows.begin * K,
                          b.db.floats() + K * tile.cols.begin, c_tile, DType::f32, 1.0f, 0.0f};
      const ExecContext ctx{s, handles_[si]->get(), workspaces_[si].get(), workspaces_[si].bytes(), &lab_.device()};
      kernel_.launch(args, params_, ctx);
      GEMMLAB_CUDA(cudaEventRecord(ev_k1(x), s));
      // The packed tile goes to its place in row-major C (pitch N) on the host.
      GEMMLAB_CUDA(cudaMemcpy2DAsync(hc + tile.rows.begin * N + tile.cols.begin, 4 * std::size_t(N), c_tile,
                                     4 * std::size_t(tile.cols.size), 4 * std::size_t(tile.cols.size),
                                     std::size_t(tile.rows.size), cudaMemcpyDeviceToHost, s));
      GEMMLAB_CUDA(cudaEventRecord(ev_d1(x), s));
    }
    const auto t_sync = SteadyClock::now();
    GEMMLAB_CUDA(cudaDeviceSynchronize());
    const auto t1 = SteadyClock::now();

    // Every event against the upload stream's first one: spans on one GPU timeline.
    double first_k0 = std::numeric_limits<double>::max(), last_k1 = 0, first_k1 = std::numeric_limits<double>::max(),
           last_d1 = 0;
    std::vector<std::pair<double, double>> kernels;
    for (std::size_t x = 0; x < nt; ++x) {
      const double k0 = elapsed_ms(ev_start(), ev_k0(x)), k1 = elapsed_ms(ev_start(), ev_k1(x)),
                   d1 = elapsed_ms(ev_start(), ev_d1(x));
      first_k0 = std::min(first_k0, k0);
      last_k1 = std::max(last_k1, k1);
      first_k1 = std::min(first_k1, k1);
      last_d1 = std::max(last_d1, d1);
      kernels.emplace_back(k0, k1);
    }
    t[Phase::copy_ab] = elapsed_ms(ev_start(), ev_uploaded());
    t[Phase::kernel] = last_k1 - first_k0;
    t[Phase::copy_c] = last_d1 - first_k1;
    t[Phase::sync] = ms_between(t_sync, t1);
    t.window = ms_between(t0, t1);
    t.gpu_window = last_d1;
    t.kernel_busy = union_length(std::move(kernels));
  }

 private:
  Lab& lab_;
  const Kernel& kernel_;
  Params params_;
  Shape shape_;
  PanelPlan plan_;
  Stream upload_;
  std::vector<std::unique_ptr<Stream>> compute_;
  std::vector<std::unique_ptr<CublasHandle>> handles_;
  std::vector<DeviceBuffer> workspaces_;
  EventSet events_;
};

std::size_t elements(std::int64_t a, std::int64_t b) { return std::size_t(a) * std::size_t(b); }

}  // namespace

void validate_plan(const PipelinePlan& p) {
  if (p.warmup < 0) throw Error(fmt::format("warm-up runs must be 0 or more (got {})", p.warmup));
  if (p.runs < 1) throw Error(fmt::format("the number of runs must be at least 1 (got {})", p.runs));
  if (!(p.max_seconds > 0)) throw Error(fmt::format("--max-seconds must be positive (got {})", p.max_seconds));
  if (p.min_runs < 1) throw Error(fmt::format("the minimum number of runs must be at least 1 (got {})", p.min_runs));
  if (p.streams < 1 || p.streams > 16)
    throw Error(fmt::format("the overlapped pipeline takes 1 to 16 compute streams (got {})", p.streams));
  if (p.panels < 0 || p.panels > 64)
    throw Error(fmt::format("panels per dimension must be 1 to 64, or 0 for automatic (got {})", p.panels));
}

std::size_t host_bytes_needed(const Shape& s) {
  const std::size_t ab = 4 * (elements(s.m, s.k) + elements(s.k, s.n));
  return ab /* master copy */ + ab + 4 * elements(s.m, s.n) /* one run's A, B, C */;
}

std::size_t device_bytes_needed(const Shape& s) {
  const std::size_t mn = elements(s.m, s.n);
  const std::size_t ab = 4 * (elements(s.m, s.k) + elements(s.k, s.n));
  const std::size_t setup = ab + reference_bytes(s);                   // generated A, B and the reference
  const std::size_t steady = 16 * mn + 4 * mn + ab + 4 * mn;           // reference + scale, check buffer, a run
  return std::max(setup, steady);
}

std::optional<std::string> size_skip_reason(const Shape& s, std::optional<std::size_t> host_available,
                                            std::size_t device_free) {
  if (auto why = host_memory_shortfall(host_bytes_needed(s), host_available))
    return fmt::format("{}: {}", to_string(s), *why);
  const std::size_t need = device_bytes_needed(s);
  if (double(need) > kDeviceMemoryShare * double(device_free))
    return fmt::format("{}: needs {} of device memory (float64 reference included); {} are free, gemmlab "
                       "uses at most {:.0f}% of that",
                       to_string(s), format_bytes(double(need)), format_bytes(double(device_free)),
                       100 * kDeviceMemoryShare);
  return std::nullopt;
}

void check_kernel_for_mode(const Kernel& k, const Params& p, const Shape& s, HostMode mode, const PipelinePlan& plan,
                           const DeviceInfo& dev) {
  const KernelInfo& info = k.info();
  if (operand_type(info.precision) != DType::f32 ||
      std::find(info.outputs.begin(), info.outputs.end(), DType::f32) == info.outputs.end())
    throw Error(fmt::format("gemmlab transfer moves FP32 matrices; kernel {} takes {} operands", info.id,
                            dtype_name(operand_type(info.precision))));
  if (info.min_cc > dev.cc())
    throw Error(fmt::format("kernel {} needs compute capability {}.{} or newer; {} is {}.{}", info.id,
                            info.min_cc / 10, info.min_cc % 10, dev.name, dev.cc_major, dev.cc_minor));
  if (auto why = k.reject(s, p, dev))
    throw Error(fmt::format("kernel {} ({}) cannot run {}: {}", info.id, params_to_string(p), to_string(s), *why));
  if (mode != HostMode::overlapped) return;
  const PanelPlan panels = plan_panels(s, plan.panels > 0 ? plan.panels : auto_panels(s));
  for (const Shape& t : panels.distinct_tile_shapes())
    if (auto why = k.reject(t, p, dev))
      throw Error(fmt::format("kernel {} ({}) cannot run the overlapped pipeline's {} tiles: {} (try another --panels)",
                              info.id, params_to_string(p), to_string(t), *why));
}

TransferBench::TransferBench(Lab& lab, const Shape& s, std::uint64_t seed) : lab_(lab), shape_(s) {
  validate_shape(s);
  if (auto why = size_skip_reason(s, host_memory_available(), lab.free_memory())) throw ResourceShortage(*why);
  const cudaStream_t st = lab.stream();
  {
    // The inputs are generated on the device (fast, reproducible), their reference computed from
    // these very values, then they are kept on the host as the master copy of every run.
    DeviceMatrix a(s.m, s.k, DType::f32), b(s.k, s.n, DType::f32);
    fill_f32(a.buf.as<float>(), a.elements(), Init::uniform, seed, 1, st);
    fill_f32(b.buf.as<float>(), b.elements(), Init::uniform, seed, 2, st);
    ref_ = compute_reference(lab.cublas(), st, s, 1.0, a.data(), b.data(), DType::f32, 0.0, nullptr, DType::f32);
    try {
      master_a_.resize(std::size_t(a.elements()));
      master_b_.resize(std::size_t(b.elements()));
    } catch (const std::bad_alloc&) {
      throw ResourceShortage(fmt::format("{}: no host memory for the master copy of A and B ({})",
                                         to_string(s), format_bytes(4.0 * double(a.elements() + b.elements()))));
    }
    GEMMLAB_CUDA(cudaMemcpy(master_a_.data(), a.data(), a.bytes(), cudaMemcpyDeviceToHost));
    GEMMLAB_CUDA(cudaMemcpy(master_b_.data(), b.data(), b.bytes(), cudaMemcpyDeviceToHost));
  }
  check_ = DeviceBuffer(4 * elements(s.m, s.n));
}

ModeResult TransferBench::measure(const Kernel& k, const Params& params_in, HostMode mode, const PipelinePlan& plan) {
  validate_plan(plan);
  const Params params = resolve_params(k, params_in);
  const Shape& s = shape_;
  ModeResult r;
  r.mode = mode;
  r.kernel = k.info().id;
  r.params = params;
  r.shape = s;
  r.precision = k.info().precision;
  r.warmup = plan.warmup;
  r.requested_runs = plan.runs;
  r.max_seconds = plan.max_seconds;
  r.min_runs = plan.min_runs;
  check_kernel_for_mode(k, params, s, mode, plan, lab_.device());

  const std::size_t bytes_a = 4 * elements(s.m, s.k), bytes_b = 4 * elements(s.k, s.n),
                    bytes_c = 4 * elements(s.m, s.n);
  const auto skip = [&](const std::string& why) {
    r.skipped = true;
    r.skip_reason = why;
    r.samples.clear();
    return r;
  };
  // The master copy is already allocated: what is left to check is one run's A, B and C.
  if (auto why = host_memory_shortfall(bytes_a + bytes_b + bytes_c, host_memory_available()))
    return skip(fmt::format("{} in {} mode: {}", to_string(s), mode_name(mode), *why));

  try {
    std::optional<PanelPlan> panels;
    std::size_t workspace = k.workspace_bytes(s, params);
    if (mode == HostMode::overlapped) {
      panels = plan_panels(s, plan.panels > 0 ? plan.panels : auto_panels(s));
      r.streams = plan.streams;
      r.row_panels = int(panels->rows.size());
      r.col_panels = int(panels->cols.size());
      workspace = 0;
      for (const Shape& t : panels->distinct_tile_shapes()) workspace = std::max(workspace, k.workspace_bytes(t, params));
      workspace *= std::size_t(plan.streams);
    }
    const std::size_t free = lab_.free_memory();
    if (double(bytes_a + bytes_b + bytes_c + workspace) > kDeviceMemoryShare * double(free))
      return skip(fmt::format("{} in {} mode: a run needs {} of device memory, {} are free", to_string(s),
                              mode_name(mode), format_bytes(double(bytes_a + bytes_b + bytes_c + workspace)),
                              format_bytes(double(free))));
    std::unique_ptr<Mover> mover;
    if (panels)
      mover = std::make_unique<OverlappedMover>(lab_, k, params, s, *panels, plan.streams);
    else
      mover = std::make_unique<SequentialMover>(lab_, k, params, s);

    const HostKind ab_kind = kind_of_a_and_b(mode), c_kind = kind_of_c(mode);
    const std::size_t mn = elements(s.m, s.n);
    struct Outcome {
      RunTimes times;
      double wall_ms = 0;
      Verification check;
    };
    auto run_once = [&](bool checked) {
      Outcome o;
      RunTimes& t = o.times;
      const auto w0 = SteadyClock::now();
      RunBuffers b;
      auto t0 = SteadyClock::now();
      b.a = HostBuffer(bytes_a, ab_kind);
      b.b = HostBuffer(bytes_b, ab_kind);
      b.c = HostBuffer(bytes_c, c_kind);
      auto t1 = SteadyClock::now();
      t[Phase::host_alloc] = ms_between(t0, t1);
      // Untimed: the program's data arrives in its freshly allocated buffers.
      std::memcpy(b.a.get(), master_a_.data(), bytes_a);
      std::memcpy(b.b.get(), master_b_.data(), bytes_b);
      if (checked) std::fill_n(b.c.as<float>(), mn, std::numeric_limits<float>::quiet_NaN());
      t0 = SteadyClock::now();
      b.da = DeviceMemory(bytes_a);
      b.db = DeviceMemory(bytes_b);
      b.dc = DeviceMemory(bytes_c);
      t1 = SteadyClock::now();
      t[Phase::device_alloc] = ms_between(t0, t1);
      if (checked) {
        // Untimed: NaN in C on the device too, so that an element nobody wrote cannot pass.
        GEMMLAB_CUDA(cudaMemsetAsync(b.dc.floats(), 0xFF, bytes_c, lab_.stream()));
        GEMMLAB_CUDA(cudaStreamSynchronize(lab_.stream()));
      }
      mover->move(b, t);
      if (checked) {
        // Untimed: what arrived in host C against the float64 reference. The copy goes on the
        // stream the comparison runs on: a plain cudaMemcpy from pageable memory may return before
        // its DMA has landed, and the lab's stream does not wait for the legacy default stream.
        GEMMLAB_CUDA(cudaMemcpyAsync(check_.get(), b.c.get(), bytes_c, cudaMemcpyHostToDevice, lab_.stream()));
        const ErrorSums e = compare_device(check_.get(), DType::f32, ref_.ref.as<double>(), ref_.scale.as<double>(),
                                           std::int64_t(mn), lab_.stream());
        o.check = evaluate(e, tolerance_for(r.precision));
      }
      t0 = SteadyClock::now();
      b.da.release();
      b.db.release();
      b.dc.release();
      t1 = SteadyClock::now();
      b.a.release();
      b.b.release();
      b.c.release();
      const auto t2 = SteadyClock::now();
      t[Phase::device_free] = ms_between(t0, t1);
      t[Phase::host_free] = ms_between(t1, t2);
      t.total = t[Phase::host_alloc] + t[Phase::device_alloc] + t.window + t[Phase::device_free] + t[Phase::host_free];
      o.wall_ms = ms_between(w0, t2);
      return o;
    };

    double estimate_ms = 0;
    if (plan.warmup == 0) {
      r.first = run_once(true).check;  // no warm-up to check: an extra, untimed run
    } else {
      double warm_ms = 0;
      r.warmup = 0;
      for (int w = 0; w < plan.warmup; ++w) {
        Outcome o = run_once(w == 0);
        ++r.warmup;
        if (w == 0) r.first = o.check;
        // The checked run carries the check's time: estimate from the others when there are any.
        if (w > 0 || plan.warmup == 1) estimate_ms = estimate_ms > 0 ? std::min(estimate_ms, o.wall_ms) : o.wall_ms;
        // Warm-ups exist to pay one-time costs (module loading, first allocations); when they alone
        // exceed the time budget, those costs are long paid: stop warming up.
        warm_ms += o.wall_ms;
        if (warm_ms > plan.max_seconds * 1e3) {
          if (estimate_ms <= 0) estimate_ms = o.wall_ms;
          break;
        }
      }
    }
    int runs = plan_runs(plan.runs, plan.max_seconds, estimate_ms, plan.min_runs);
    for (int i = 0; i < runs; ++i) {
      Outcome o = run_once(false);
      if (i == 0 && estimate_ms <= 0) runs = plan_runs(plan.runs, plan.max_seconds, o.wall_ms, plan.min_runs);
      r.samples.push_back(o.times);
    }
    r.last = run_once(true).check;  // after the timed runs: an extra, untimed, checked run
    r.table = summarize_runs(r.samples, s.flops());
  } catch (const ResourceShortage& e) {
    return skip(fmt::format("{} in {} mode: {}", to_string(s), mode_name(mode), e.what()));
  }
  return r;
}

}  // namespace gemmlab::transfer

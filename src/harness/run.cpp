#include "harness/run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "core/buffer.hpp"
#include "core/error.hpp"
#include "core/npy.hpp"
#include "kernels/registry.hpp"
#include "reference/device_reference.hpp"

namespace gemmlab {

namespace {

// gemmlab's kernels index with 32-bit integers per matrix; larger matrices are refused up front
// rather than computed wrongly.
constexpr std::int64_t kMaxElements = std::numeric_limits<std::int32_t>::max();

std::string fmt_bytes(double b) { return fmt::format("{:.2f} GiB", b / double(1ull << 30)); }

// Upload an .npy file's matrix as `want` type into dst (converting on the device).
DeviceMatrix load_npy_operand(const std::string& path, std::int64_t rows, std::int64_t cols, DType want,
                              cudaStream_t s) {
  const HostMatrix h = read_npy(path);
  if (h.rows != rows || h.cols != cols)
    throw Error(fmt::format("{}: holds a {} x {} matrix, the shape needs {} x {}", path, h.rows, h.cols, rows, cols));
  DeviceMatrix raw(h.rows, h.cols, h.dtype);
  GEMMLAB_CUDA(cudaMemcpyAsync(raw.data(), h.bytes.data(), h.bytes.size(), cudaMemcpyHostToDevice, s));
  if (h.dtype == want) {
    GEMMLAB_CUDA(cudaStreamSynchronize(s));
    return raw;
  }
  DeviceMatrix out(rows, cols, want);
  convert(raw.data(), h.dtype, out.data(), want, out.elements(), s);
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
  return out;
}

Verification verify_output(Lab& lab, const DeviceMatrix& c, const DeviceReference& ref, Precision p) {
  const ErrorSums e = compare_device(c.data(), c.dtype, ref.ref.as<double>(), ref.scale.as<double>(),
                                     c.elements(), lab.stream());
  return evaluate(e, tolerance_for(p));
}

}  // namespace

void validate_shape(const Shape& s) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0)
    throw Error(fmt::format("matrix sizes must be at least 1 (got M={}, N={}, K={})", s.m, s.n, s.k));
  for (auto [name, rows, cols] : {std::tuple{"A", s.m, s.k}, std::tuple{"B", s.k, s.n}, std::tuple{"C", s.m, s.n}})
    if (double(rows) * double(cols) > double(kMaxElements))
      throw Error(fmt::format("{} would be {} x {} = {:.3g} elements; gemmlab supports at most {} per matrix", name,
                              rows, cols, double(rows) * double(cols), kMaxElements));
}

std::size_t run_memory_bytes(const Kernel& k, const RunSpec& spec, const Params& params) {
  const Shape& s = spec.shape;
  const std::size_t mk = std::size_t(s.m * s.k), kn = std::size_t(s.k * s.n), mn = std::size_t(s.m * s.n);
  const std::size_t op = dtype_size(operand_type(k.info().precision));
  const std::size_t out = dtype_size(spec.output);
  std::size_t bytes = 4 * (mk + kn);                         // FP32 inputs
  if (op != 4) bytes += op * (mk + kn);                       // converted operands
  bytes += out * mn * (spec.beta != 0.0f ? 2 : 1);            // C (and C0)
  if (spec.compare_cublas && k.info().family != "baseline") bytes += out * mn;  // cuBLAS's C
  if (spec.verify) bytes += reference_bytes(s);
  bytes += k.workspace_bytes(s, params);
  return bytes;
}

double RunResult::gflops() const {
  if (!kernel.timing) return 0;
  return spec.shape.flops() / (kernel.timing->ms.median * 1e-3) / 1e9;
}

double RunResult::cublas_gflops() const {
  if (!cublas || !cublas->timing) return 0;
  return spec.shape.flops() / (cublas->timing->ms.median * 1e-3) / 1e9;
}

double RunResult::ratio_to_cublas() const {
  if (!kernel.timing || !cublas || !cublas->timing) return 0;
  return cublas->timing->ms.median / kernel.timing->ms.median;
}

RunResult run_gemm(Lab& lab, const RunSpec& spec) {
  return run_gemm(lab, Registry::instance().get(spec.kernel), spec);
}

RunResult run_gemm(Lab& lab, const Kernel& kernel, const RunSpec& spec_in) {
  const Registry& reg = Registry::instance();
  RunSpec spec = spec_in;
  spec.kernel = kernel.info().id;
  const KernelInfo& info = kernel.info();
  const DeviceInfo& dev = lab.device();
  const cudaStream_t s = lab.stream();

  RunResult r;
  r.spec = spec;
  r.spec.params = resolve_params(kernel, spec.params);
  r.title = info.title;
  r.family = info.family;
  r.precision = info.precision;
  const Params& params = r.spec.params;
  const Shape& shape = spec.shape;

  validate_shape(shape);
  if (info.min_cc > dev.cc())
    throw Error(fmt::format("kernel {} needs compute capability {}.{} or newer; {} is {}.{}", info.id,
                            info.min_cc / 10, info.min_cc % 10, dev.name, dev.cc_major, dev.cc_minor));
  if (std::find(info.outputs.begin(), info.outputs.end(), spec.output) == info.outputs.end())
    throw Error(fmt::format("kernel {} cannot write C as {}", info.id, dtype_name(spec.output)));
  if (auto why = kernel.reject(shape, params, dev))
    throw Error(fmt::format("kernel {} ({}) cannot run {}: {}", info.id, params_to_string(params),
                            to_string(shape), *why));
  const Kernel* baseline = nullptr;
  if (spec.compare_cublas && info.family != "baseline") baseline = &reg.baseline_for(info.precision);

  // Refuse before allocating: a run that does not fit fails with a message, not an OOM mid-way.
  const std::size_t need = run_memory_bytes(kernel, spec, params);
  const std::size_t free = lab.free_memory();
  if (double(need) > 0.95 * double(free))
    throw Error(fmt::format("{} needs about {} of device memory{}; {} has {} free", to_string(shape),
                            fmt_bytes(double(need)), spec.verify ? " (with the float64 reference)" : "",
                            dev.name, fmt_bytes(double(free))));
  r.traffic = kernel.traffic(shape, params);

  // Inputs: FP32 (random, LinearInit or .npy), then converted to the operand type on the device.
  const DType op = operand_type(info.precision);
  DeviceMatrix a, b;
  if (!spec.inputs.a_npy.empty()) {
    a = load_npy_operand(spec.inputs.a_npy, shape.m, shape.k, op, s);
  }
  if (!spec.inputs.b_npy.empty()) {
    b = load_npy_operand(spec.inputs.b_npy, shape.k, shape.n, op, s);
  }
  const bool a_from_f32 = spec.inputs.a_npy.empty(), b_from_f32 = spec.inputs.b_npy.empty();
  DeviceMatrix a32, b32;
  if (a_from_f32) {
    a32 = DeviceMatrix(shape.m, shape.k, DType::f32);
    fill_f32(a32.buf.as<float>(), a32.elements(), spec.inputs.init == Init::linear_reversed ? Init::linear : spec.inputs.init,
             spec.inputs.seed, 1, s);
  }
  if (b_from_f32) {
    b32 = DeviceMatrix(shape.k, shape.n, DType::f32);
    // LinearInit as seed 004 uses it: A ascending, B descending.
    fill_f32(b32.buf.as<float>(), b32.elements(), spec.inputs.init == Init::uniform ? Init::uniform : Init::linear_reversed,
             spec.inputs.seed, 2, s);
  }
  auto to_operand = [&](DeviceMatrix& src32, DeviceMatrix& dst) {
    if (op == DType::f32) {
      dst = std::move(src32);
    } else {
      dst = DeviceMatrix(src32.rows, src32.cols, op);
      convert(src32.data(), DType::f32, dst.data(), op, dst.elements(), s);
    }
  };
  if (op != DType::f32 && a_from_f32 && b_from_f32 && spec.timing.iters > 0) {
    // The conversion is part of the cost of a GEMM on FP32 data: time it on its own.
    DeviceMatrix ta(shape.m, shape.k, op), tb(shape.k, shape.n, op);
    TimingPlan tp = spec.timing;
    tp.iters = std::min(tp.iters, 20);
    tp.flush_l2 = spec.timing.flush_l2;
    r.conversion_ms = time_runs(lab, tp, [&] {
                        convert(a32.data(), DType::f32, ta.data(), op, ta.elements(), s);
                        convert(b32.data(), DType::f32, tb.data(), op, tb.elements(), s);
                      }).ms;
  }
  if (a_from_f32) to_operand(a32, a);
  if (b_from_f32) to_operand(b32, b);
  a32 = DeviceMatrix();
  b32 = DeviceMatrix();

  // C0 (only when beta != 0): random, restored before every run so every run computes the same C.
  DeviceMatrix c0;
  if (spec.beta != 0.0f) {
    DeviceMatrix c0_32(shape.m, shape.n, DType::f32);
    fill_f32(c0_32.buf.as<float>(), c0_32.elements(), Init::uniform, spec.inputs.seed, 3, s);
    c0 = DeviceMatrix(shape.m, shape.n, spec.output);
    convert(c0_32.data(), DType::f32, c0.data(), spec.output, c0.elements(), s);
    GEMMLAB_CUDA(cudaStreamSynchronize(s));
  }

  std::optional<DeviceReference> ref;
  if (spec.verify)
    ref = compute_reference(lab.cublas(), s, shape, spec.alpha, a.data(), b.data(), op, spec.beta,
                            c0.data(), spec.output);

  // A contender (the kernel, or its cuBLAS baseline) owns its C and workspace. It is run and
  // verified once, timed (alone, or alternately with the other), and verified again: runs after
  // the first must compute the same C, so a race or a stale read shows up there.
  struct Contender {
    KernelRun kr;
    DeviceMatrix c;
    DeviceBuffer workspace;
    std::function<void()> run, prepare;
  };
  auto start = [&](const Kernel& k, const Params& p) {
    auto x = std::make_unique<Contender>();
    x->kr.id = k.info().id;
    x->kr.params = p;
    x->c = DeviceMatrix(shape.m, shape.n, spec.output);
    x->workspace = DeviceBuffer(k.workspace_bytes(shape, p));
    const ExecContext ctx = lab.context(x->workspace.get(), x->workspace.bytes());
    const GemmArgs args{shape, a.data(), b.data(), x->c.data(), spec.output, spec.alpha, spec.beta};
    Contender* self = x.get();
    x->run = [&k, p, ctx, args] { k.launch(args, p, ctx); };
    auto prepare = [&, self] {
      if (spec.beta != 0.0f)
        GEMMLAB_CUDA(cudaMemcpyAsync(self->c.data(), c0.data(), self->c.bytes(), cudaMemcpyDeviceToDevice, s));
      else
        fill_nan(self->c.data(), self->c.dtype, self->c.elements(), s);  // poison: unwritten elements fail
    };
    if (spec.beta != 0.0f) x->prepare = prepare;  // timed runs restore C; with beta == 0 they need not
    prepare();
    x->run();
    GEMMLAB_CUDA(cudaStreamSynchronize(s));
    if (ref) x->kr.first = verify_output(lab, x->c, *ref, info.precision);
    return x;
  };
  auto finish = [&](Contender& x, Timing t) {
    x.kr.timing = std::move(t);
    if (ref) x.kr.last = verify_output(lab, x.c, *ref, info.precision);
  };
  const bool timed = spec.timing.iters > 0;
  auto time_alone = [&](Contender& x) {
    if (timed) finish(x, time_runs(lab, spec.timing, x.run, x.prepare));
  };

  auto k = start(kernel, params);
  std::unique_ptr<Contender> cb;
  if (baseline && timed && spec.timing.interleave) {  // both set up, then timed run by run in turn
    cb = start(*baseline, {});
    auto t = time_interleaved(lab, spec.timing, {k->run, cb->run}, {k->prepare, cb->prepare});
    finish(*k, std::move(t[0]));
    finish(*cb, std::move(t[1]));
  } else {
    time_alone(*k);
  }
  if (!spec.save_c.empty()) {
    HostMatrix h;
    h.rows = shape.m;
    h.cols = shape.n;
    h.dtype = spec.output;
    h.bytes.resize(k->c.bytes());
    GEMMLAB_CUDA(cudaMemcpy(h.bytes.data(), k->c.data(), k->c.bytes(), cudaMemcpyDeviceToHost));
    write_npy(spec.save_c, h);
  }
  r.kernel = k->kr;
  k.reset();  // its C and workspace are not needed while cuBLAS runs alone
  if (baseline) {
    if (!cb) {
      cb = start(*baseline, {});
      time_alone(*cb);
    }
    r.cublas = cb->kr;
  }
  return r;
}

}  // namespace gemmlab

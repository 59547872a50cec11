#include "reference/api_reference.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/fill.hpp"

namespace gemmlab::apiref {

namespace {

// Element types as kernel arguments.
enum Elem : int { kF32 = 0, kF16 = 1, kBF16 = 2 };

int elem_of(DataType t) {
  switch (t) {
    case DataType::f32: return kF32;
    case DataType::f16: return kF16;
    case DataType::bf16: return kBF16;
    default: break;
  }
  throw Unsupported(fmt::format("the API reference has no {} arithmetic", to_string(t)));
}

__device__ __forceinline__ double load(const void* p, int type, std::int64_t i) {
  switch (type) {
    case kF16: return __half2float(static_cast<const __half*>(p)[i]);
    case kBF16: return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    default: return static_cast<const float*>(p)[i];
  }
}

// Element (i, j) of a logical matrix (op(A), op(B), C or D) of batch item `item` is at
// ptr[item * stride + i * si + j * sj]: the two strides say everything order, op and ld mean.
struct View {
  const void* ptr = nullptr;
  int type = kF32;
  std::int64_t si = 0, sj = 0, stride = 0;
  __device__ __forceinline__ double at(std::int64_t item, std::int64_t i, std::int64_t j) const {
    return load(ptr, type, item * stride + i * si + j * sj);
  }
};

std::int64_t packed_ld(Order order, std::int64_t rows, std::int64_t cols) {
  return std::max<std::int64_t>(1, order == Order::row_major ? cols : rows);
}

// op(X) is rows x cols. Written from gemm.hpp's description alone: X is stored rows x cols (or
// cols x rows when transposed) in its order; row-major (r, c) is at r * ld + c, column-major at
// c * ld + r.
View operand_view(const Matrix& x, Op op, std::int64_t rows, std::int64_t cols, const char* name) {
  const bool t = op == Op::transpose;
  const std::int64_t srows = t ? cols : rows, scols = t ? rows : cols;
  const std::int64_t ld = x.ld ? x.ld : packed_ld(x.order, srows, scols);
  if (!x.data || ld < packed_ld(x.order, srows, scols))
    throw Error(fmt::format("API reference: {} is not a valid operand (null, or ld {} too small)", name, ld));
  const std::int64_t s_r = x.order == Order::row_major ? ld : 1, s_c = x.order == Order::row_major ? 1 : ld;
  View v;
  v.ptr = x.data;
  v.type = elem_of(x.type);
  v.si = t ? s_c : s_r;
  v.sj = t ? s_r : s_c;
  v.stride = x.batch_stride;
  return v;
}

// C or D: m x n in its order.
View output_view(const void* p, DataType type, Order order, std::int64_t ld, std::int64_t stride, std::int64_t m,
                 std::int64_t n) {
  const std::int64_t l = ld ? ld : packed_ld(order, m, n);
  View v;
  v.ptr = p;
  v.type = elem_of(type);
  v.si = order == Order::row_major ? l : 1;
  v.sj = order == Order::row_major ? 1 : l;
  v.stride = stride;
  return v;
}

enum RefAct : int { kNone = 0, kRelu = 1, kGelu = 2, kSilu = 3 };
enum RefBias : int { kNoBias = 0, kPerRow = 1, kPerColumn = 2 };

struct RefArgs {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::int64_t row_begin = 0, row_end = 0;  // the rows this launch computes (a group's, or all)
  View a, b, c;
  bool read_c = false;
  double alpha = 1, beta = 0;
  const void* bias = nullptr;  // already offset to this launch's group (grouped per-column)
  int bias_type = kF32, bias_kind = kNoBias;
  std::int64_t bias_stride = 0;  // between batch items
  int act = kNone;
  double* value = nullptr;
  double* scale = nullptr;
};

constexpr int RM = 64, RN = 64, RK = 16, RT = 256;

__device__ __forceinline__ double activate(double x, int act) {
  switch (act) {
    case kRelu: return x > 0.0 ? x : 0.0;
    // The tanh form as types.hpp states it, 0.5 x (1 + tanh(u)), through the identity
    // x / (1 + exp(-2u)): in the first, 1 + tanh(u) loses all of double's digits once x < -6,
    // and per-element checks of small outputs need them.
    case kGelu: return x / (1.0 + exp(-2.0 * 0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case kSilu: return x / (1.0 + exp(-x));
    default: return x;
  }
}

// 64 x 64 tiles of D, k-tiles of 16 converted to double in shared memory, 4 x 4 outputs per
// thread, each with its sum and its sum of magnitudes. Loads run along whichever index of the
// operand is contiguous so that every layout coalesces.
__global__ void __launch_bounds__(RT) reference_kernel(const RefArgs p) {
  __shared__ double As[RK][RM + 1];
  __shared__ double Bs[RK][RN + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const std::int64_t rows = p.row_end - p.row_begin;
  const std::int64_t tiles_m = (rows + RM - 1) / RM, tiles_n = (p.n + RN - 1) / RN;
  const bool a_k_contiguous = p.a.sj == 1, b_k_contiguous = p.b.si == 1;
  for (std::int64_t item = blockIdx.y; item < p.batch; item += gridDim.y) {
    for (std::int64_t tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
      const std::int64_t row0 = p.row_begin + (tile / tiles_n) * RM, col0 = (tile % tiles_n) * RN;
      double acc[4][4] = {}, mag[4][4] = {};
      for (std::int64_t k0 = 0; k0 < p.k; k0 += RK) {
#pragma unroll
        for (int r = 0; r < RM * RK / RT; ++r) {
          const int e = threadIdx.x + r * RT;
          const int i = a_k_contiguous ? e / RK : e % RM, kk = a_k_contiguous ? e % RK : e / RM;
          const std::int64_t row = row0 + i, kg = k0 + kk;
          As[kk][i] = row < p.row_end && kg < p.k ? p.a.at(item, row, kg) : 0.0;
        }
#pragma unroll
        for (int r = 0; r < RN * RK / RT; ++r) {
          const int e = threadIdx.x + r * RT;
          const int j = b_k_contiguous ? e / RK : e % RN, kk = b_k_contiguous ? e % RK : e / RN;
          const std::int64_t col = col0 + j, kg = k0 + kk;
          Bs[kk][j] = col < p.n && kg < p.k ? p.b.at(item, kg, col) : 0.0;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < RK; ++kk) {
          double av[4], bv[4];
#pragma unroll
          for (int i = 0; i < 4; ++i) av[i] = As[kk][ty + 16 * i];
#pragma unroll
          for (int j = 0; j < 4; ++j) bv[j] = Bs[kk][tx + 16 * j];
#pragma unroll
          for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
              acc[i][j] = fma(av[i], bv[j], acc[i][j]);
              mag[i][j] = fma(fabs(av[i]), fabs(bv[j]), mag[i][j]);
            }
        }
        __syncthreads();
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const std::int64_t row = row0 + ty + 16 * i;
        if (row >= p.row_end) continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const std::int64_t col = col0 + tx + 16 * j;
          if (col >= p.n) continue;
          double v = p.alpha * acc[i][j], s = fabs(p.alpha) * mag[i][j];
          if (p.read_c) {
            const double c = p.c.at(item, row, col);
            v += p.beta * c;
            s += fabs(p.beta) * fabs(c);
          }
          if (p.bias_kind != kNoBias) {
            const double bias = load(p.bias, p.bias_type, item * p.bias_stride + (p.bias_kind == kPerRow ? row : col));
            v += bias;
            s += fabs(bias);
          }
          const std::int64_t out = (item * p.m + row) * p.n + col;
          p.value[out] = activate(v, p.act);
          p.scale[out] = s;
        }
      }
    }
  }
}

void launch_reference(const RefArgs& args, cudaStream_t s) {
  const std::int64_t rows = args.row_end - args.row_begin;
  if (rows <= 0 || args.n <= 0 || args.batch <= 0) return;
  const std::int64_t tiles = ((rows + RM - 1) / RM) * ((args.n + RN - 1) / RN);
  const dim3 grid(unsigned(std::min<std::int64_t>(tiles, 1 << 20)),
                  unsigned(std::min<std::int64_t>(args.batch, 65535)));
  reference_kernel<<<grid, RT, 0, s>>>(args);
  GEMMLAB_CHECK_LAUNCH();
}

int act_of(Activation a) {
  switch (a) {
    case Activation::relu: return kRelu;
    case Activation::gelu_tanh: return kGelu;
    case Activation::silu: return kSilu;
    default: return kNone;
  }
}

// What Gemm and GroupedGemm share: C, the scalars and the epilogue.
RefArgs common_args(std::int64_t m, std::int64_t n, std::int64_t k, const Matrix& c, const MatrixOut& d, double alpha,
                    double beta, const Epilogue& e) {
  RefArgs r;
  r.m = m, r.n = n, r.k = k;
  r.alpha = alpha;
  r.beta = beta;
  r.read_c = beta != 0.0;
  if (r.read_c) {
    if (!c.data) throw Error("API reference: beta != 0 but C is null");
    r.c = output_view(c.data, c.type, c.order, c.ld, c.batch_stride, m, n);
  }
  if (e.bias_kind != BiasKind::none) {
    r.bias = e.bias;
    r.bias_type = elem_of(e.bias_type.value_or(d.type));
    r.bias_kind = e.bias_kind == BiasKind::per_row ? kPerRow : kPerColumn;
    r.bias_stride = e.bias_batch_stride;
  }
  r.act = act_of(e.activation);
  return r;
}

Reference make_reference(std::int64_t batch, std::int64_t m, std::int64_t n, cudaStream_t s) {
  Reference ref;
  ref.batch = batch, ref.m = m, ref.n = n, ref.rows_used = m;
  const std::size_t bytes = sizeof(double) * std::size_t(batch) * std::size_t(m) * std::size_t(n);
  ref.value = DeviceBuffer(bytes);
  ref.scale = DeviceBuffer(bytes);
  // NaN where nothing is computed (a grouped call's unused rows): never a plausible value.
  if (bytes) {
    GEMMLAB_CUDA(cudaMemsetAsync(ref.value.get(), 0xff, bytes, s));
    GEMMLAB_CUDA(cudaMemsetAsync(ref.scale.get(), 0xff, bytes, s));
  }
  return ref;
}

// ---- Test matrices ---------------------------------------------------------------------------

__global__ void fill_layout_kernel(void* dst, int type, std::int64_t items, std::int64_t rows, std::int64_t cols,
                                   std::int64_t si, std::int64_t sj, std::int64_t stride, std::uint64_t seed,
                                   std::uint64_t stream) {
  const std::int64_t total = items * rows * cols;
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t item = e / (rows * cols), r = (e / cols) % rows, c = e % cols;
    const std::int64_t at = item * stride + r * si + c * sj;
    const float v = uniform_value(seed, stream, std::uint64_t(e));
    switch (type) {
      case kF16: static_cast<__half*>(dst)[at] = __float2half_rn(v); break;
      case kBF16: static_cast<__nv_bfloat16*>(dst)[at] = __float2bfloat16_rn(v); break;
      default: static_cast<float*>(dst)[at] = v; break;
    }
  }
}

// Whether byte `o` (from the start of the matrix) belongs to a logical element of rows < rows_used.
struct LayoutArgs {
  int order_row_major = 1;
  std::int64_t esize = 4, rows = 0, cols = 0, ld = 0, batch = 1, stride = 0, rows_used = 0;
  std::int64_t span_bytes = 0, item_span = 0;
  __device__ bool logical(std::int64_t o) const {
    if (o < 0 || o >= span_bytes) return false;
    const std::int64_t e = o / esize;
    std::int64_t item = stride > 0 ? e / stride : 0;
    if (item >= batch) item = batch - 1;
    const std::int64_t within = e - item * stride;
    if (within >= item_span) return false;
    const std::int64_t line = within / ld, pos = within % ld;
    const std::int64_t r = order_row_major ? line : pos, c = order_row_major ? pos : line;
    // pos < ld covers the padding of a line: its logical part is pos < cols (row-major) or < rows.
    return r < rows_used && c < cols;
  }
};

LayoutArgs layout_args(const Layout& l, std::int64_t rows_used) {
  LayoutArgs a;
  a.order_row_major = l.order == Order::row_major;
  a.esize = std::int64_t(size_of(l.type));
  a.rows = l.rows, a.cols = l.cols, a.ld = l.resolved_ld(), a.batch = l.batch, a.stride = l.batch_stride;
  a.rows_used = rows_used;
  a.span_bytes = l.span() * a.esize;
  a.item_span = l.item_span();
  return a;
}

__global__ void padding_kernel(const unsigned char* base, std::int64_t bytes, std::int64_t data_offset,
                               const LayoutArgs l, unsigned long long* changed, long long* first) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < bytes;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    if (base[i] == kPoison) continue;
    const std::int64_t o = i - data_offset;
    if (l.logical(o)) continue;
    atomicAdd(changed, 1ull);
    atomicMin(first, static_cast<long long>(o));
  }
}

// ---- Comparison --------------------------------------------------------------------------------

struct Sums {  // ErrorSums without default initialisers (it lives in shared memory)
  double sum_sq_diff, sum_sq_ref, max_abs_diff, max_scaled_diff;
  long long nonfinite, count;
};

constexpr int kCmpThreads = 256, kCmpBlocks = 512;

__global__ void compare_kernel(const View d, std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t rows_used,
                               const double* value, const double* scale, Sums* partials) {
  Sums e{0, 0, 0, 0, 0, 0};
  const std::int64_t total = batch * rows_used * n;
  for (std::int64_t x = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; x < total;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t item = x / (rows_used * n), row = (x / n) % rows_used, col = x % n;
    const double got = d.at(item, row, col);
    const std::int64_t at = (item * m + row) * n + col;
    const double r = value[at], sc = scale[at];
    e.count += 1;
    // NaN in the reference is a non-finite result too: it cannot be matched.
    if (!isfinite(got) || !isfinite(r)) {
      e.nonfinite += 1;
      continue;
    }
    const double diff = fabs(got - r);
    e.sum_sq_diff += diff * diff;
    e.sum_sq_ref += r * r;
    e.max_abs_diff = fmax(e.max_abs_diff, diff);
    // A zero scale (all products and addends zero) leaves no room for any error.
    e.max_scaled_diff = fmax(e.max_scaled_diff, diff == 0.0 ? 0.0 : (sc > 0.0 ? diff / sc : INFINITY));
  }
  __shared__ Sums sh[kCmpThreads];
  sh[threadIdx.x] = e;
  __syncthreads();
  for (int s = kCmpThreads / 2; s > 0; s /= 2) {
    if (int(threadIdx.x) < s) {
      Sums& a = sh[threadIdx.x];
      const Sums& b = sh[threadIdx.x + s];
      a.sum_sq_diff += b.sum_sq_diff;
      a.sum_sq_ref += b.sum_sq_ref;
      a.max_abs_diff = fmax(a.max_abs_diff, b.max_abs_diff);
      a.max_scaled_diff = fmax(a.max_scaled_diff, b.max_scaled_diff);
      a.nonfinite += b.nonfinite;
      a.count += b.count;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = sh[0];
}

}  // namespace

// ---- Layout ------------------------------------------------------------------------------------

std::int64_t Layout::resolved_ld() const { return ld ? ld : packed_ld(order, rows, cols); }

std::int64_t Layout::item_span() const {
  if (rows <= 0 || cols <= 0) return 0;
  const std::int64_t lines = order == Order::row_major ? rows : cols, len = order == Order::row_major ? cols : rows;
  return (lines - 1) * resolved_ld() + len;
}

std::int64_t Layout::span() const {
  const std::int64_t one = item_span();
  return one == 0 ? 0 : (batch - 1) * batch_stride + one;
}

std::int64_t Layout::offset(std::int64_t item, std::int64_t r, std::int64_t c) const {
  return item * batch_stride + (order == Order::row_major ? r * resolved_ld() + c : c * resolved_ld() + r);
}

Layout operand_layout(DataType t, Order order, Op op, std::int64_t rows, std::int64_t cols, std::int64_t ld_pad) {
  Layout l;
  l.type = t;
  l.order = order;
  l.rows = op == Op::transpose ? cols : rows;
  l.cols = op == Op::transpose ? rows : cols;
  l.ld = ld_pad ? packed_ld(order, l.rows, l.cols) + ld_pad : 0;
  return l;
}

Layout batched(Layout l, std::int64_t batch, std::int64_t gap, bool broadcast) {
  if (broadcast) {
    l.batch = 1;
    l.batch_stride = 0;
    return l;
  }
  l.batch = batch;
  l.batch_stride = batch > 1 ? l.item_span() + gap : 0;
  return l;
}

// ---- TestMatrix --------------------------------------------------------------------------------

TestMatrix::TestMatrix(const Layout& layout, cudaStream_t s, std::int64_t misalign) : layout_(layout) {
  const std::int64_t esize = std::int64_t(size_of(layout.type));
  buf_ = DeviceBuffer(std::size_t(2 * kGuardBytes + (misalign + layout.span()) * esize));
  data_ = static_cast<unsigned char*>(buf_.get()) + kGuardBytes + misalign * esize;
  poison(s);
}

Matrix TestMatrix::input() const {
  Matrix m;
  m.data = data_;
  m.type = layout_.type;
  m.order = layout_.order;
  m.ld = layout_.ld;
  m.batch_stride = layout_.batch_stride;
  return m;
}

MatrixOut TestMatrix::output() const {
  MatrixOut m;
  m.data = data_;
  m.type = layout_.type;
  m.order = layout_.order;
  m.ld = layout_.ld;
  m.batch_stride = layout_.batch_stride;
  return m;
}

void TestMatrix::poison(cudaStream_t s) const {
  if (buf_.bytes()) GEMMLAB_CUDA(cudaMemsetAsync(buf_.get(), kPoison, buf_.bytes(), s));
}

void TestMatrix::fill_uniform(std::uint64_t seed, std::uint64_t stream, cudaStream_t s) const {
  const Layout& l = layout_;
  const std::int64_t total = l.batch * l.rows * l.cols;
  if (total == 0) return;
  const std::int64_t ld = l.resolved_ld();
  const std::int64_t si = l.order == Order::row_major ? ld : 1, sj = l.order == Order::row_major ? 1 : ld;
  const int blocks = int(std::min<std::int64_t>((total + 255) / 256, 65535 * 8));
  fill_layout_kernel<<<blocks, 256, 0, s>>>(data_, elem_of(l.type), l.batch, l.rows, l.cols, si, sj, l.batch_stride,
                                            seed, stream);
  GEMMLAB_CHECK_LAUNCH();
}

std::vector<unsigned char> TestMatrix::download(cudaStream_t s) const {
  std::vector<unsigned char> host(buf_.bytes());
  if (host.empty()) return host;
  GEMMLAB_CUDA(cudaMemcpyAsync(host.data(), buf_.get(), host.size(), cudaMemcpyDeviceToHost, s));
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
  return host;
}

std::vector<double> Reference::download_value(cudaStream_t s) const {
  std::vector<double> host(value.bytes() / sizeof(double));
  if (host.empty()) return host;
  GEMMLAB_CUDA(cudaMemcpyAsync(host.data(), value.get(), value.bytes(), cudaMemcpyDeviceToHost, s));
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
  return host;
}

// ---- References --------------------------------------------------------------------------------

Reference reference(const Gemm& g, double alpha, double beta, cudaStream_t s) {
  RefArgs r = common_args(g.m, g.n, g.k, g.c, g.d, alpha, beta, g.epilogue);
  r.batch = g.batch;
  r.row_begin = 0;
  r.row_end = g.m;
  r.a = operand_view(g.a, g.op_a, g.m, g.k, "A");
  r.b = operand_view(g.b, g.op_b, g.k, g.n, "B");
  Reference ref = make_reference(g.batch, g.m, g.n, s);
  r.value = ref.value.as<double>();
  r.scale = ref.scale.as<double>();
  launch_reference(r, s);
  return ref;
}

Reference reference(const GroupedGemm& g, double alpha, double beta, cudaStream_t s) {
  if (g.groups < 1 || !g.offsets) throw Error("API reference: a grouped call needs groups >= 1 and offsets");
  std::vector<std::int32_t> offsets(std::size_t(g.groups));
  GEMMLAB_CUDA(
      cudaMemcpyAsync(offsets.data(), g.offsets, offsets.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost, s));
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
  RefArgs r = common_args(g.m, g.n, g.k, g.c, g.d, alpha, beta, g.epilogue);
  r.batch = 1;
  r.a = operand_view(g.a, g.op_a, std::max<std::int64_t>(g.m, 1), g.k, "A");
  const View b = operand_view(g.b, g.op_b, g.k, g.n, "B");
  Reference ref = make_reference(1, g.m, g.n, s);
  r.value = ref.value.as<double>();
  r.scale = ref.scale.as<double>();
  const void* bias = r.bias;
  const std::int64_t b_bytes = std::int64_t(size_of(g.b.type));
  const std::int64_t bias_bytes = std::int64_t(size_of(g.epilogue.bias_type.value_or(g.d.type)));
  std::int64_t start = 0;
  for (int grp = 0; grp < g.groups; ++grp) {
    const std::int64_t end = offsets[std::size_t(grp)];
    if (end < start || end > g.m)
      throw Error(fmt::format("API reference: offsets[{}] = {} decreases or exceeds m = {}", grp, end, g.m));
    r.row_begin = start;
    r.row_end = end;
    // B_g = B + g * b.batch_stride; a per-column bias of group g starts g * bias_batch_stride in.
    r.b = b;
    r.b.ptr = static_cast<const unsigned char*>(b.ptr) + grp * g.b.batch_stride * b_bytes;
    r.b.stride = 0;
    if (r.bias_kind == kPerColumn)
      r.bias = static_cast<const unsigned char*>(bias) + grp * g.epilogue.bias_batch_stride * bias_bytes;
    r.bias_stride = 0;
    launch_reference(r, s);
    start = end;
  }
  ref.rows_used = start;
  return ref;
}

// ---- Tolerances and checks ---------------------------------------------------------------------

Tolerance tolerance_for(DataType ab, DataType cd, Compute compute) {
  if (ab == DataType::f32)
    // Exact FP32 products: errors of about 1e-7..1e-6 at these sizes; TF32 would show 1e-4 and more.
    return compute == Compute::tf32 ? gemmlab::tolerance_for(Precision::tf32) : Tolerance{1e-5, 1e-5};
  // 16-bit operands are exact in the reference: FP32 output leaves accumulation error only; a
  // 16-bit output adds its rounding (2^-9 relative for bf16, 2^-12 for f16).
  if (cd == DataType::f32) return {1e-4, 1e-4};
  return gemmlab::tolerance_for(ab == DataType::bf16 ? Precision::bf16 : Precision::fp16);
}

std::string OutputCheck::summary() const {
  std::string s = verification.summary();
  if (poison_changed > 0)
    s += fmt::format("; {} byte(s) outside the logical elements overwritten (first at byte {} of the matrix)",
                     poison_changed, first_changed);
  else
    s += "; padding intact";
  return s;
}

std::int64_t changed_padding_bytes(const TestMatrix& m, std::int64_t rows_used, cudaStream_t s, std::int64_t* first) {
  if (first) *first = -1;
  if (m.bytes() == 0) return 0;
  DeviceBuffer counters(sizeof(unsigned long long) + sizeof(long long));
  auto* changed = counters.as<unsigned long long>();
  auto* first_dev = reinterpret_cast<long long*>(changed + 1);
  const long long init[2] = {0, std::numeric_limits<long long>::max()};
  GEMMLAB_CUDA(cudaMemcpyAsync(counters.get(), init, sizeof(init), cudaMemcpyHostToDevice, s));
  const auto* base = static_cast<const unsigned char*>(m.allocation());
  const std::int64_t data_offset = static_cast<const unsigned char*>(m.data()) - base;
  const std::int64_t bytes = std::int64_t(m.bytes());
  const int blocks = int(std::min<std::int64_t>((bytes + 255) / 256, 65535 * 8));
  padding_kernel<<<blocks, 256, 0, s>>>(base, bytes, data_offset, layout_args(m.layout(), rows_used), changed,
                                        first_dev);
  GEMMLAB_CHECK_LAUNCH();
  long long host[2];
  GEMMLAB_CUDA(cudaMemcpyAsync(host, counters.get(), sizeof(host), cudaMemcpyDeviceToHost, s));
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
  if (first) *first = host[0] > 0 ? host[1] : -1;
  return host[0];
}

OutputCheck check_output(const TestMatrix& d, const Reference& ref, const Tolerance& tol, cudaStream_t s) {
  const Layout& l = d.layout();
  if (l.rows != ref.m || l.cols != ref.n || l.batch != ref.batch)
    throw Error(fmt::format("API reference: D is {} x {} x {} items but the reference {} x {} x {}", l.rows, l.cols,
                            l.batch, ref.m, ref.n, ref.batch));
  OutputCheck out;
  ErrorSums total{};
  const std::int64_t elements = ref.batch * ref.rows_used * ref.n;
  if (elements > 0) {
    const View v = output_view(d.data(), l.type, l.order, l.ld, l.batch_stride, l.rows, l.cols);
    const int blocks = int(std::min<std::int64_t>(kCmpBlocks, (elements + kCmpThreads - 1) / kCmpThreads));
    DeviceBuffer partials(sizeof(Sums) * std::size_t(blocks));
    compare_kernel<<<blocks, kCmpThreads, 0, s>>>(v, ref.batch, ref.m, ref.n, ref.rows_used, ref.value.as<double>(),
                                                  ref.scale.as<double>(), partials.as<Sums>());
    GEMMLAB_CHECK_LAUNCH();
    std::vector<Sums> host(static_cast<std::size_t>(blocks));
    GEMMLAB_CUDA(cudaMemcpyAsync(host.data(), partials.get(), partials.bytes(), cudaMemcpyDeviceToHost, s));
    GEMMLAB_CUDA(cudaStreamSynchronize(s));
    for (const Sums& e : host) {
      total.sum_sq_diff += e.sum_sq_diff;
      total.sum_sq_ref += e.sum_sq_ref;
      total.max_abs_diff = std::fmax(total.max_abs_diff, e.max_abs_diff);
      total.max_scaled_diff = std::fmax(total.max_scaled_diff, e.max_scaled_diff);
      total.nonfinite += e.nonfinite;
      total.count += e.count;
    }
  }
  out.verification = evaluate(total, tol);
  // A call with no logical element (an empty grouped call) passes on the padding alone.
  if (elements == 0) out.verification.passed = true;
  out.poison_changed = changed_padding_bytes(d, ref.rows_used, s, &out.first_changed);
  return out;
}

std::vector<unsigned char> element_bytes(const TestMatrix& m, const std::vector<unsigned char>& allocation,
                                         std::int64_t item, std::int64_t r, std::int64_t c) {
  const std::size_t esize = size_of(m.layout().type);
  const std::size_t at =
      std::size_t(static_cast<const unsigned char*>(m.data()) - static_cast<const unsigned char*>(m.allocation())) +
      std::size_t(m.layout().offset(item, r, c)) * esize;
  if (at + esize > allocation.size()) throw Error("API reference: element outside the downloaded allocation");
  return std::vector<unsigned char>(allocation.begin() + std::ptrdiff_t(at),
                                    allocation.begin() + std::ptrdiff_t(at + esize));
}

}  // namespace gemmlab::apiref

// Tensor-core ladder, step 2: mma.sync with ldmatrix, fed by a multi-stage cp.async pipeline.
//
// WMMA hides the fragment layouts; PTX does not. Here each warp issues mma.sync.m16n8k16 (bf16,
// fp16; m16n8k8 for tf32) directly, and loads its A and B fragments with ldmatrix, which reads
// four 8x8 matrices from shared memory in one instruction, already in the registers mma wants
// (.trans transposes B, which is stored k-by-n). Tiles arrive with 16-byte cp.async three stages
// ahead, as in the FP32 ladder's step 5. Rows are padded by 16 bytes so that the 8 rows an
// ldmatrix phase reads fall in 8 different bank groups. Block tile 128 x 128 x 32, 8 warps of
// 64 x 32; accumulators in FP32 registers.
// The 16-byte copies need K and N to be multiples of 8 (rows start on 16 bytes); other shapes take
// the same kernel with guarded element-wise loads. This is also the correct path the Hopper
// kernels fall back to for such shapes.
#include <mutex>

#include "core/error.hpp"
#include "kernels/common.hpp"
#include "kernels/device_utils.cuh"
#include "kernels/registry.hpp"
#include "kernels/tensor/mma_sync.hpp"
#include "kernels/tensor/tc_types.cuh"

namespace gemmlab {

namespace {

constexpr int BM = 128, BN = 128, BK = 32, STAGES = 3;
constexpr int WARPS_M = 2, WARPS_N = 4, kThreads = WARPS_M * WARPS_N * 32;
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // 64 x 32
constexpr int MT = WM / 16, NT = WN / 8;             // 4 x 4 mma tiles per warp

template <Precision P>
struct Layout {
  using T = tc::operand_t<P>;
  static constexpr int kPad = 16 / int(sizeof(T));  // 16 bytes of padding per row
  static constexpr int A_LD = BK + kPad, B_LD = BN + kPad;
  static constexpr int A_STAGE = BM * A_LD, B_STAGE = BK * B_LD;
  static constexpr std::size_t kSmemBytes = std::size_t(STAGES) * (A_STAGE + B_STAGE) * sizeof(T);
  static constexpr int kVec = 16 / int(sizeof(T));  // elements per 16-byte copy
};

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(dev::smem_addr(p)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(dev::smem_addr(p)));
}
__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

template <Precision P>
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  if constexpr (P == Precision::bf16) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else if constexpr (P == Precision::fp16) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

template <Precision P, bool ALIGNED, class OutT>
__global__ void __launch_bounds__(kThreads) mma_sync_gemm(int M, int N, int K, float alpha, const tc::operand_t<P>* __restrict__ A,
                                                          const tc::operand_t<P>* __restrict__ B, float beta, OutT* __restrict__ C) {
  using L = Layout<P>;
  using T = typename L::T;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* As = reinterpret_cast<T*>(smem_raw);
  T* Bs = As + STAGES * L::A_STAGE;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int tiles_k = (K + BK - 1) / BK;

  auto load_stage = [&](int slot, int k0) {
    T* as = As + slot * L::A_STAGE;
    T* bs = Bs + slot * L::B_STAGE;
    if constexpr (ALIGNED) {
      constexpr int A_CHUNKS = BM * BK / L::kVec, B_CHUNKS = BK * BN / L::kVec;
#pragma unroll
      for (int i = 0; i < A_CHUNKS / kThreads; ++i) {
        const int e = threadIdx.x + i * kThreads;
        const int m = e / (BK / L::kVec), k = (e % (BK / L::kVec)) * L::kVec;
        const bool ok = row0 + m < M && k0 + k < K;
        dev::cp_async<16>(as + m * L::A_LD + k, ok ? A + std::size_t(row0 + m) * K + k0 + k : A, ok ? 16 : 0);
      }
#pragma unroll
      for (int i = 0; i < B_CHUNKS / kThreads; ++i) {
        const int e = threadIdx.x + i * kThreads;
        const int k = e / (BN / L::kVec), n = (e % (BN / L::kVec)) * L::kVec;
        const bool ok = k0 + k < K && col0 + n < N;
        dev::cp_async<16>(bs + k * L::B_LD + n, ok ? B + std::size_t(k0 + k) * N + col0 + n : B, ok ? 16 : 0);
      }
    } else {
      for (int e = threadIdx.x; e < BM * BK; e += kThreads) {
        const int m = e / BK, k = e % BK;
        as[m * L::A_LD + k] = (row0 + m < M && k0 + k < K) ? A[std::size_t(row0 + m) * K + k0 + k] : T(0.0f);
      }
      for (int e = threadIdx.x; e < BK * BN; e += kThreads) {
        const int k = e / BN, n = e % BN;
        bs[k * L::B_LD + n] = (k0 + k < K && col0 + n < N) ? B[std::size_t(k0 + k) * N + col0 + n] : T(0.0f);
      }
    }
  };

  float acc[MT][NT][4] = {};
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles_k) load_stage(s, s * BK);
    dev::cp_async_commit();
  }
  for (int t = 0; t < tiles_k; ++t) {
    dev::cp_async_wait<STAGES - 2>();
    __syncthreads();
    const int next = t + STAGES - 1;
    if (next < tiles_k) load_stage(next % STAGES, next * BK);
    dev::cp_async_commit();

    const T* as = As + (t % STAGES) * L::A_STAGE;
    const T* bs = Bs + (t % STAGES) * L::B_STAGE;
    if constexpr (P == Precision::tf32) {
      // m16n8k8: fragments gathered element by element (ldmatrix moves 16-bit pieces).
      const int g = lane / 4, q = lane % 4;
#pragma unroll
      for (int kk = 0; kk < BK; kk += 8) {
        unsigned a[MT][4], b[NT][2];
#pragma unroll
        for (int i = 0; i < MT; ++i) {
          const T* p = as + (wm + 16 * i + g) * L::A_LD + kk + q;
          a[i][0] = to_tf32(p[0]);
          a[i][1] = to_tf32(p[8 * L::A_LD]);
          a[i][2] = to_tf32(p[4]);
          a[i][3] = to_tf32(p[8 * L::A_LD + 4]);
        }
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          const T* p = bs + (kk + q) * L::B_LD + wn + 8 * j + g;
          b[j][0] = to_tf32(p[0]);
          b[j][1] = to_tf32(p[4 * L::B_LD]);
        }
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
          for (int j = 0; j < NT; ++j) mma<P>(acc[i][j], a[i], b[j]);
      }
    } else {
#pragma unroll
      for (int kk = 0; kk < BK; kk += 16) {
        unsigned a[MT][4], b[NT][2];
#pragma unroll
        for (int i = 0; i < MT; ++i)  // lanes 0-15: rows at k, lanes 16-31: rows at k + 8
          ldmatrix_x4(a[i], as + (wm + 16 * i + lane % 16) * L::A_LD + kk + (lane / 16) * 8);
#pragma unroll
        for (int j = 0; j < NT; j += 2) {  // two n8 tiles per ldmatrix.x4.trans
          unsigned r[4];
          ldmatrix_x4_trans(r, bs + (kk + lane % 8 + ((lane / 8) % 2) * 8) * L::B_LD + wn + 8 * j + (lane / 16) * 8);
          b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
        }
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
          for (int j = 0; j < NT; ++j) mma<P>(acc[i][j], a[i], b[j]);
      }
    }
  }
  dev::cp_async_wait<0>();

  // Accumulator layout of m16n8: c0,c1 at (row g, cols 2q, 2q+1), c2,c3 at row g + 8.
  const int g = lane / 4, q = lane % 4;
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = row0 + wm + 16 * i + g + 8 * h;
        const int c = col0 + wn + 8 * j + 2 * q;
        if (r >= M) continue;
        OutT* out = C + std::size_t(r) * N + c;
        if (c < N) tc::store_output(out, acc[i][j][2 * h], alpha, beta);
        if (c + 1 < N) tc::store_output(out + 1, acc[i][j][2 * h + 1], alpha, beta);
      }
}

template <Precision P, bool ALIGNED, class OutT>
void launch_one(const GemmArgs& g, cudaStream_t s) {
  static std::once_flag once;
  auto* f = &mma_sync_gemm<P, ALIGNED, OutT>;
  std::call_once(once, [&] {
    GEMMLAB_CUDA(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Layout<P>::kSmemBytes)));
  });
  const dim3 grid(unsigned(ceil_div(g.shape.n, BN)), unsigned(ceil_div(g.shape.m, BM)));
  f<<<grid, kThreads, Layout<P>::kSmemBytes, s>>>(int(g.shape.m), int(g.shape.n), int(g.shape.k), g.alpha,
                                                  static_cast<const tc::operand_t<P>*>(g.a),
                                                  static_cast<const tc::operand_t<P>*>(g.b), g.beta, static_cast<OutT*>(g.c));
  GEMMLAB_CHECK_LAUNCH();
}

template <Precision P>
bool aligned_path(const Shape& s, const void* a, const void* b) {
  constexpr int vec = Layout<P>::kVec;
  return s.k % vec == 0 && s.n % vec == 0 && aligned16(a) && aligned16(b);
}

template <Precision P>
class MmaSync final : public KernelBase {
 public:
  MmaSync() : KernelBase(describe()) {}

  std::optional<std::string> reject(const Shape& s, const Params&, const DeviceInfo& dev) const override {
    return check_grid_fits(dev, ceil_div(s.n, BN), ceil_div(s.m, BM));
  }

  TrafficModel traffic(const Shape& s, const Params&) const override {
    return tiled_traffic(s, BM, BN, double(sizeof(tc::operand_t<P>)));
  }

  LaunchPlan plan(const Shape& s, const Params&) const override {
    const bool al = s.k % Layout<P>::kVec == 0 && s.n % Layout<P>::kVec == 0;
    const void* f = al ? reinterpret_cast<const void*>(&mma_sync_gemm<P, true, float>)
                       : reinterpret_cast<const void*>(&mma_sync_gemm<P, false, float>);
    return {f, dim3(unsigned(ceil_div(s.n, BN)), unsigned(ceil_div(s.m, BM))), dim3(kThreads), Layout<P>::kSmemBytes};
  }

  void launch(const GemmArgs& g, const Params&, const ExecContext& ctx) const override {
    tc::launch_mma_sync(P, g, ctx.stream);
  }

 private:
  static KernelInfo describe() {
    KernelInfo i;
    i.id = fmt::format("tc.mma.{}", precision_name(P));
    i.family = "tensor";
    i.step = 2;
    i.precision = P;
    i.title = fmt::format("mma.sync + ldmatrix, 3-stage cp.async, 128x128x32 tile, {}", precision_name(P));
    i.origin = "technique: PTX mma.sync (sm_80+), ldmatrix, cp.async multi-stage pipeline";
    i.summary =
        "Warps issue mma.sync on fragments loaded by ldmatrix (ldmatrix.trans for B) from padded, "
        "bank-conflict-free shared tiles that cp.async fills three stages ahead.";
    i.constraints = "any M, N, K >= 1; 16-byte copies when K and N are multiples of 8 (4 for tf32)";
    i.min_cc = 80;
    if (P != Precision::tf32) i.outputs = {DType::f32, operand_type(P)};
    return i;
  }
};

template <Precision P>
void launch_for(const GemmArgs& g, cudaStream_t s) {
  const bool al = aligned_path<P>(g.shape, g.a, g.b);
  if (g.c_type == DType::f32) {
    al ? launch_one<P, true, float>(g, s) : launch_one<P, false, float>(g, s);
  } else if constexpr (P != Precision::tf32) {
    al ? launch_one<P, true, tc::operand_t<P>>(g, s) : launch_one<P, false, tc::operand_t<P>>(g, s);
  }
}

}  // namespace

namespace tc {
void launch_mma_sync(Precision p, const GemmArgs& g, cudaStream_t s) {
  switch (p) {
    case Precision::bf16: launch_for<Precision::bf16>(g, s); break;
    case Precision::fp16: launch_for<Precision::fp16>(g, s); break;
    case Precision::tf32: launch_for<Precision::tf32>(g, s); break;
    default: throw Error("mma.sync kernel: no fp32 variant");
  }
}
}  // namespace tc

void register_tc_mma(Registry& r) {
  r.add(std::make_unique<MmaSync<Precision::bf16>>());
  r.add(std::make_unique<MmaSync<Precision::fp16>>());
  r.add(std::make_unique<MmaSync<Precision::tf32>>());
}
GEMMLAB_REGISTER_KERNELS(register_tc_mma);

}  // namespace gemmlab

// Fuzz target: a plain or grouped call built from the input's bytes goes through the API's
// validation (api/normalize.cpp). It must be accepted or refused with gemmlab::InvalidArgument or
// gemmlab::Unsupported; a crash, undefined behaviour (under the sanitizers) or another exception
// is a finding. tests/fuzz/README.md says how to run it.
#include <cstddef>
#include <cstdint>

#include "api/problem.hpp"
#include "fuzz_input.hpp"
#include "gemmlab/error.hpp"

namespace {

using namespace gemmlab;

Matrix matrix(fuzz::Input& in) {
  Matrix x;
  x.data = in.address();
  x.type = in.enumeration<DataType>(5);
  x.order = in.enumeration<Order>(2);
  x.ld = in.integer();
  x.batch_stride = in.integer();
  if (in.byte() > 250) x.scale = static_cast<const float*>(in.address());
  return x;
}

MatrixOut output(fuzz::Input& in) {
  const Matrix x = matrix(in);
  MatrixOut d;
  d.data = const_cast<void*>(x.data);
  d.type = x.type, d.order = x.order, d.ld = x.ld, d.batch_stride = x.batch_stride;
  return d;
}

Scalar scalar(fuzz::Input& in) {
  if (in.byte() > 200) return Scalar::on_device(static_cast<const float*>(in.address()));
  return Scalar(in.raw<float>());
}

Epilogue epilogue(fuzz::Input& in) {
  Epilogue e;
  e.bias_kind = in.enumeration<BiasKind>(3);
  e.bias = in.address();
  if (in.flag()) e.bias_type = in.enumeration<DataType>(5);
  e.bias_batch_stride = in.integer();
  e.activation = in.enumeration<Activation>(4);
  return e;
}

// The fields both kinds of call have, in one order.
template <class Call>
void common(fuzz::Input& in, Call& g) {
  g.n = in.integer(), g.k = in.integer();
  g.a = matrix(in), g.b = matrix(in);
  g.op_a = in.enumeration<Op>(2), g.op_b = in.enumeration<Op>(2);
  // C is D's view half the time, as a caller passing C = D would.
  g.d = output(in);
  if (in.flag()) {
    g.c.data = g.d.data, g.c.type = g.d.type, g.c.order = g.d.order, g.c.ld = g.d.ld, g.c.batch_stride = g.d.batch_stride;
  } else {
    g.c = matrix(in);
  }
  g.alpha = scalar(in), g.beta = scalar(in);
  g.epilogue = epilogue(in);
  g.compute = in.enumeration<Compute>(2);
  g.determinism = in.enumeration<Determinism>(3);
}

}  // namespace

int gemmlab_fuzz_api(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  try {
    if (in.flag()) {
      GroupedGemm g;
      g.groups = int(in.integer());
      g.offsets = static_cast<const std::int32_t*>(in.address());
      g.m = in.integer();
      common(in, g);
      (void)detail::normalize(g);
    } else {
      Gemm g;
      g.m = in.integer();
      g.batch = in.integer();
      common(in, g);
      (void)detail::normalize(g);
    }
  } catch (const InvalidArgument&) {
  } catch (const Unsupported&) {
  }
  return 0;
}

#ifdef GEMMLAB_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return gemmlab_fuzz_api(data, size); }
#endif

// Grouped GEMM (GroupedGemm) on a GPU: uneven and empty groups, unused rows after the last group
// (they must keep the poison), every layout of A and B, padded leading dimensions, gaps between
// the groups' B, alpha/beta, C = D and the epilogue with a per-column bias per group, through
// gemm() and every kernel choice dispatch offers, against the float64 reference.
#include "api/api_support.hpp"

using namespace gemmlab;
using namespace gemmlab::apitest;

namespace {

class ApiGroupedTyped : public ApiTest, public ::testing::WithParamInterface<TypeCombo> {
 protected:
  GroupedCase base(std::vector<std::int32_t> sizes, std::int64_t unused, std::int64_t n, std::int64_t k) const {
    GroupedCase c;
    c.ab = GetParam().ab, c.cd = GetParam().cd, c.compute = GetParam().compute;
    c.sizes = std::move(sizes);
    c.unused = unused;
    c.n = n, c.k = k;
    return c;
  }
};

std::string type_name(const ::testing::TestParamInfo<TypeCombo>& info) {
  const TypeCombo& t = info.param;
  return fmt::format("{}_{}{}", to_string(t.ab), to_string(t.cd), t.compute == Compute::tf32 ? "_tf32" : "");
}

struct Pattern {
  std::vector<std::int32_t> sizes;
  std::int64_t unused;
};

// Group sizes that are no tile multiple, empty groups first, in the middle and last, all groups
// empty, one group, many small groups, and groups of whole tiles.
const std::vector<Pattern>& patterns() {
  static const std::vector<Pattern> all = {
      {{37, 130, 1, 64}, 0},
      {{0, 50, 77}, 5},
      {{40, 0, 0, 90}, 0},
      {{65, 31, 0}, 13},
      {{0, 0, 0}, 20},
      {{100}, 0},
      {{3, 17, 0, 22, 9, 1, 0, 14, 5, 19, 2, 8, 0, 11, 6, 4}, 3},
      {{128, 256, 128}, 0},
      {{192, 8, 120}, 64},
  };
  return all;
}

TEST_P(ApiGroupedTyped, GroupPatternsMatchTheReference) {
  for (const Pattern& p : patterns())
    for (auto [n, k] : {std::pair{45, 33}, std::pair{200, 72}}) {
      GroupedCase c = base(p.sizes, p.unused, n, k);
      EXPECT_CASE_OK(run_grouped_case(ctx(), c, stream()));
      c.bias = BiasKind::per_column, c.bias_per_group = true;  // each group its own bias
      EXPECT_CASE_OK(run_grouped_case(ctx(), c, stream()));
    }
}

// m = 0 is a valid grouped call (every group empty): nothing is written.
TEST_P(ApiGroupedTyped, NoRowsAtAllWritesNothing) {
  EXPECT_CASE_OK(run_grouped_case(ctx(), base({0, 0}, 0, 45, 33), stream()));
}

TEST_P(ApiGroupedTyped, EveryLayoutOfAAndBMatchesTheReference) {
  for (Order ao : {Order::row_major, Order::col_major})
    for (Op oa : {Op::none, Op::transpose})
      for (Order bo : {Order::row_major, Order::col_major})
        for (Op ob : {Op::none, Op::transpose})
          for (const Pattern& p : {patterns()[1], patterns()[3], patterns()[8]})
            for (auto [n, k] : {std::pair{45, 33}, std::pair{200, 72}}) {
              GroupedCase c = base(p.sizes, p.unused, n, k);
              c.a_order = ao, c.op_a = oa, c.b_order = bo, c.op_b = ob;
              EXPECT_CASE_OK(run_grouped_case(ctx(), c, stream()));
            }
}

// Padded leading dimensions and poisoned gaps between the groups' B (b.batch_stride larger than
// one B): reading either turns results into NaN, writing padding is caught. Also one B shared by
// all groups (b.batch_stride 0).
TEST_P(ApiGroupedTyped, PaddingAndGapsBetweenGroupsAreRespected) {
  for (Order ao : {Order::row_major, Order::col_major})
    for (Op ob : {Op::none, Op::transpose})
      for (auto [pad, gap] : {std::pair{3, 5}, std::pair{8, 16}}) {
        GroupedCase c = base(patterns()[0].sizes, 7, 200, 72);
        c.a_order = ao, c.op_b = ob;
        c.a_pad = pad, c.b_pad = pad + 1, c.d_pad = pad, c.b_gap = gap;
        EXPECT_CASE_OK(run_grouped_case(ctx(), c, stream()));
        c.b_shared = true;  // b.batch_stride 0: one B for all groups
        EXPECT_CASE_OK(run_grouped_case(ctx(), c, stream()));
      }
}

TEST_P(ApiGroupedTyped, AlphaBetaAndEpiloguesMatchTheReference) {
  const Pattern& p = patterns()[3];  // an empty group last, unused rows
  for (bool on_device : {false, true}) {
    GroupedCase c = base(p.sizes, p.unused, 200, 72);
    c.scalars_on_device = on_device;
    c.alpha = -1.5, c.beta = 0.75;
    EXPECT_CASE_OK(run_grouped_case(ctx(), c, stream()));  // C separate
    c.c_is_d = true;
    EXPECT_CASE_OK(run_grouped_case(ctx(), c, stream()));  // C is D
    c.d_pad = 5;
    EXPECT_CASE_OK(run_grouped_case(ctx(), c, stream()));  // C is D, padded
  }
  for (BiasKind kind : {BiasKind::per_row, BiasKind::per_column})
    for (bool bias_f32 : {true, false}) {
      if (!bias_f32 && GetParam().cd == DataType::f32) continue;
      for (Activation act : {Activation::none, Activation::relu, Activation::gelu_tanh, Activation::silu}) {
        GroupedCase c = base(patterns()[0].sizes, 9, 45, 33);
        c.bias = kind, c.bias_f32 = bias_f32, c.act = act;
        c.bias_per_group = kind == BiasKind::per_column;
        EXPECT_CASE_OK(run_grouped_case(ctx(), c, stream()));
      }
    }
  GroupedCase all = base(patterns()[2].sizes, 4, 200, 72);
  all.bias = BiasKind::per_column, all.bias_per_group = true, all.act = Activation::gelu_tanh;
  all.alpha = -1.5, all.beta = 0.75, all.c_is_d = true, all.scalars_on_device = true;
  EXPECT_CASE_OK(run_grouped_case(ctx(), all, stream()));
}

// Mixture-of-experts sizes: 8 experts of a few hundred tokens, k and n multiples of 64.
TEST_P(ApiGroupedTyped, ExpertSizedGroupsMatchTheReference) {
  for (Determinism det : {Determinism::reproducible, Determinism::batch_invariant, Determinism::fast}) {
    GroupedCase c = base({311, 0, 257, 512, 96, 1, 400, 230}, 40, 512, 256);
    c.det = det;
    c.bias = BiasKind::per_column, c.bias_per_group = true, c.act = Activation::silu;
    EXPECT_CASE_OK(run_grouped_case(ctx(), c, stream()));
  }
}

TEST_P(ApiGroupedTyped, ReproducibleRunsAreBitwiseEqual) {
  GroupedCase gc = base(patterns()[0].sizes, 11, 200, 520);
  gc.beta = 0.75, gc.c_is_d = true;
  gc.bias = BiasKind::per_column, gc.bias_per_group = true;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("{} (seed {})", gc.name(), seed));
  const GroupedSetup st = make_grouped_setup(gc, seed, stream());
  st.prepare_d(stream());
  const Reference ref = apiref::reference(st.g, gc.alpha, gc.beta, stream());
  for (const Path& p : paths(ctx(), st.g, stream())) {
    st.prepare_d(stream());
    p.run();
    const OutputCheck chk = apiref::check_output(st.d, ref, apiref::tolerance_for(gc.ab, gc.cd, gc.compute), stream());
    EXPECT_TRUE(chk.passed()) << p.name << ": " << chk.summary();
    const auto once = st.d.download(stream());
    st.prepare_d(stream());
    p.run();
    EXPECT_TRUE(once == st.d.download(stream())) << p.name << ": a second run changed D";
  }
}

INSTANTIATE_TEST_SUITE_P(Types, ApiGroupedTyped, ::testing::ValuesIn(type_combos()), type_name);

// ---- Refused grouped calls, and the host-side check of the offsets -----------------------------

class ApiGroupedRejects : public ApiTest {};

struct GroupedRefusal {
  std::string what;
  std::function<void(GroupedGemm&)> change;
  std::string argument;
  bool by_pointer_check = false;  // refused by gemm()'s memory checks, which plan() skips
};

void expect_invalid(const Context& ctx, const GroupedGemm& g, const GroupedRefusal& r, cudaStream_t s) {
  SCOPED_TRACE(r.what);
  for (int via_plan = 0; via_plan < (r.by_pointer_check ? 1 : 2); ++via_plan) {
    try {
      if (via_plan)
        (void)plan(ctx, g);
      else
        gemm(ctx, g, s);
      ADD_FAILURE() << (via_plan ? "plan()" : "gemm()") << " accepted the call";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(e.argument(), r.argument) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw something else than InvalidArgument: " << e.what();
    }
  }
  GEMMLAB_CUDA(cudaStreamSynchronize(s));
}

TEST_F(ApiGroupedRejects, RefusedCallsNameTheArgumentAndWriteNothing) {
  GroupedCase gc;
  gc.sizes = {10, 20};
  gc.unused = 2;
  gc.n = 16, gc.k = 8;
  gc.beta = 0.5;
  const GroupedSetup st = make_grouped_setup(gc, fresh_seed(), stream());
  const std::vector<std::int32_t> host_offsets = {10, 30};
  const std::vector<GroupedRefusal> refusals = {
      {"no groups", [](GroupedGemm& g) { g.groups = 0; }, "groups"},
      {"null offsets", [](GroupedGemm& g) { g.offsets = nullptr; }, "offsets"},
      {"misaligned offsets",
       [](GroupedGemm& g) {
         g.offsets = reinterpret_cast<const std::int32_t*>(reinterpret_cast<const char*>(g.offsets) + 2);
       },
       "offsets"},
      {"offsets in malloc'ed memory", [&](GroupedGemm& g) { g.offsets = host_offsets.data(); }, "offsets", true},
      {"negative m", [](GroupedGemm& g) { g.m = -1; }, "m"},
      {"n = 0", [](GroupedGemm& g) { g.n = 0; }, "n"},
      {"column-major D",
       [](GroupedGemm& g) { g.d.order = Order::col_major, g.d.ld = 0, g.c.order = Order::col_major, g.c.ld = 0; },
       "d.order"},
      {"a batch stride on A", [](GroupedGemm& g) { g.a.batch_stride = 8; }, "a.batch_stride"},
      {"a batch stride on D", [](GroupedGemm& g) { g.d.batch_stride = 16 * 32; }, "d.batch_stride"},
      {"a batch stride on C", [](GroupedGemm& g) { g.c.batch_stride = 16 * 32; }, "c.batch_stride"},
      {"a per-row bias with a stride",
       [&](GroupedGemm& g) {
         g.epilogue.bias_kind = BiasKind::per_row, g.epilogue.bias = st.c.data(), g.epilogue.bias_batch_stride = 4;
       },
       "epilogue.bias_batch_stride"},
      {"B too short for its ld", [](GroupedGemm& g) { g.b.ld = 3; }, "b.ld"},
  };
  st.d.poison(stream());
  const auto before = st.d.download(stream());
  for (const GroupedRefusal& r : refusals) {
    GroupedGemm g = st.g;
    r.change(g);
    expect_invalid(ctx(), g, r, stream());
  }
  EXPECT_TRUE(before == st.d.download(stream())) << "a refused call wrote to D";
}

// Context::Options::check_device_arguments reads the offsets back: offsets that decrease or
// exceed m are refused before anything runs; valid ones run normally.
TEST_F(ApiGroupedRejects, CheckedOffsetsAreRefusedWhenInvalid) {
  Context::Options o;
  o.check_device_arguments = true;
  const Context checking(o);
  GroupedCase gc;
  gc.sizes = {30, 20, 40};
  gc.unused = 5;
  gc.n = 45, gc.k = 33;
  const GroupedSetup st = make_grouped_setup(gc, fresh_seed(), stream());
  for (const auto& bad : {std::vector<std::int32_t>{30, 20, 90}, std::vector<std::int32_t>{30, 50, 96}}) {
    st.set_offsets(bad, stream());
    st.d.poison(stream());
    expect_invalid(checking, st.g, {fmt::format("offsets {} {} {}", bad[0], bad[1], bad[2]), nullptr, "offsets", true},
                   stream());
    EXPECT_EQ(apiref::changed_padding_bytes(st.d, 0, stream()), 0) << "a refused call wrote to D";
  }
  st.set_offsets(gc.offsets(), stream());
  st.d.poison(stream());
  const Reference ref = apiref::reference(st.g, 1, 0, stream());
  gemm(checking, st.g, stream());
  const OutputCheck chk = apiref::check_output(st.d, ref, apiref::tolerance_for(gc.ab, gc.cd, gc.compute), stream());
  EXPECT_TRUE(chk.passed()) << chk.summary();
}

TEST_F(ApiGroupedRejects, PlansNameAKernelAndAReason) {
  for (const TypeCombo& t : type_combos()) {
    GroupedCase gc;
    gc.ab = t.ab, gc.cd = t.cd, gc.compute = t.compute;
    gc.sizes = {100, 0, 28};
    gc.n = 256, gc.k = 128;
    const GroupedSetup st = make_grouped_setup(gc, fresh_seed(), stream());
    st.d.poison(stream());
    const Plan pl = plan(ctx(), st.g);
    EXPECT_FALSE(pl.kernel.empty()) << gc.name();
    EXPECT_FALSE(pl.reason.empty()) << gc.name();
    EXPECT_EQ(apiref::changed_padding_bytes(st.d, 0, stream()), 0) << "plan() wrote to D";
  }
}

}  // namespace

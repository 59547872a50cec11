// gemmlab explain: which kernel and parameters the library's dispatch takes for a problem, and why.
// Nothing runs: the problem is validated and planned with placeholder addresses.
#include <iostream>

#include <fmt/format.h>

#include "cli/api_options.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "gemmlab/gemmlab.hpp"

namespace gemmlab::cli {

namespace {

struct ExplainOptions {
  ShapeOptions shape;
  ApiOptions api;
  std::size_t workspace = std::size_t(64) << 20;
  int device = 0;
};

// Addresses far apart, aligned for every type: plan() validates layouts, never dereferences.
const void* placeholder(int i) { return reinterpret_cast<const void*>(std::uintptr_t(i + 1) << 40); }

void explain(const ExplainOptions& o) {
  const Shape s = o.shape.resolve();
  Context::Options copt;
  copt.device = o.device;
  copt.workspace_bytes = o.workspace;
  const Context ctx(copt);
  Plan plan;
  if (o.api.groups > 0) {
    GroupedGemm g;
    o.api.describe(g);
    g.m = s.m, g.n = s.n, g.k = s.k;
    g.a.data = placeholder(0), g.b.data = placeholder(1);
    g.b.batch_stride = s.k * s.n;
    g.d.data = const_cast<void*>(placeholder(2));
    g.c.data = placeholder(2);
    g.offsets = static_cast<const std::int32_t*>(placeholder(3));
    if (g.epilogue.bias_kind != BiasKind::none) g.epilogue.bias = placeholder(4);
    plan = gemmlab::plan(ctx, g);
  } else {
    Gemm g;
    o.api.describe(g);
    g.m = s.m, g.n = s.n, g.k = s.k;
    g.a.data = placeholder(0), g.b.data = placeholder(1);
    g.d.data = const_cast<void*>(placeholder(2));
    g.c.data = placeholder(2);
    if (g.batch > 1) {
      g.a.batch_stride = s.m * s.k, g.b.batch_stride = s.k * s.n, g.d.batch_stride = g.c.batch_stride = s.m * s.n;
    }
    if (g.epilogue.bias_kind != BiasKind::none) g.epilogue.bias = placeholder(4);
    plan = gemmlab::plan(ctx, g);
  }
  std::cout << fmt::format("{} {}, on {} (dispatch table: {}, workspace {} MiB)\n", to_string(s), o.api.summary(),
                           ctx.device().name, ctx.table_source(), o.workspace >> 20);
  std::cout << fmt::format("  kernel     {}\n  config     {}\n  reason     {}\n  workspace  {} bytes\n", plan.kernel,
                           plan.config, plan.reason, plan.workspace_bytes);
}

}  // namespace

void add_explain_command(CLI::App& app) {
  static ExplainOptions o;
  auto* cmd = app.add_subcommand("explain", "which kernel and parameters the library takes for a problem, and why");
  o.shape.add_to(*cmd);
  o.api.add_to(*cmd);
  cmd->add_option("--workspace", o.workspace, "workspace bytes the call may use")->capture_default_str();
  cmd->add_option("--device", o.device, "CUDA device ordinal")->capture_default_str();
  cmd->callback([] { explain(o); });
}

}  // namespace gemmlab::cli

#include "cli/api_options.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab::cli {

namespace {

struct Types {
  DataType ab, cd;
  Compute compute;
};

Types types_of(const std::string& precision, const std::string& output) {
  Types t{DataType::f32, DataType::f32, Compute::f32};
  if (precision == "fp32") {
  } else if (precision == "tf32") {
    t.compute = Compute::tf32;
  } else if (precision == "bf16") {
    t.ab = DataType::bf16;
  } else if (precision == "fp16") {
    t.ab = DataType::f16;
  } else {
    throw Error(fmt::format("--precision: '{}' is not one of fp32, tf32, bf16, fp16", precision));
  }
  if (output == "same") t.cd = t.ab;
  else if (output != "f32") throw Error(fmt::format("--output: '{}' is not f32 or same", output));
  return t;
}

}  // namespace

void check_layout(const std::string& layout) {
  if (layout.size() != 2 || (layout[0] != 'N' && layout[0] != 'T') || (layout[1] != 'N' && layout[1] != 'T'))
    throw Error(fmt::format("--layout: '{}' is not NN, NT, TN or TT", layout));
}

namespace {

template <class G>
void fill(const ApiOptions& o, G& g) {
  const Types t = types_of(o.precision, o.output);
  check_layout(o.layout);
  g.a.type = g.b.type = t.ab;
  g.c.type = g.d.type = t.cd;
  g.op_a = o.layout[0] == 'T' ? Op::transpose : Op::none;
  g.op_b = o.layout[1] == 'T' ? Op::transpose : Op::none;
  if (o.d_order == "col") g.d.order = g.c.order = Order::col_major;
  else if (o.d_order != "row") throw Error(fmt::format("--d-order: '{}' is not row or col", o.d_order));
  g.compute = t.compute;
  if (o.bias == "row") g.epilogue.bias_kind = BiasKind::per_row;
  else if (o.bias == "col") g.epilogue.bias_kind = BiasKind::per_column;
  else if (o.bias != "none") throw Error(fmt::format("--bias: '{}' is not none, row or col", o.bias));
  if (o.activation == "relu") g.epilogue.activation = Activation::relu;
  else if (o.activation == "gelu") g.epilogue.activation = Activation::gelu_tanh;
  else if (o.activation == "silu") g.epilogue.activation = Activation::silu;
  else if (o.activation != "none") throw Error(fmt::format("--activation: '{}' is not none, relu, gelu or silu", o.activation));
  if (o.determinism == "batch_invariant") g.determinism = Determinism::batch_invariant;
  else if (o.determinism == "fast") g.determinism = Determinism::fast;
  else if (o.determinism != "reproducible")
    throw Error(fmt::format("--determinism: '{}' is not reproducible, batch_invariant or fast", o.determinism));
}

}  // namespace

void ApiOptions::add_to(CLI::App& app) {
  options_ = {
      app.add_option("--precision", precision, "operands: fp32, tf32 (FP32 operands, TF32 allowed), bf16, fp16")
          ->capture_default_str(),
      app.add_option("--output", output, "D's type: f32, or same (the operands' type)")->capture_default_str(),
      app.add_option("--layout", layout, "op(A) op(B) of row-major operands: NN, NT, TN, TT")->capture_default_str(),
      app.add_option("--d-order", d_order, "D (and C) storage: row or col")->capture_default_str(),
      app.add_option("--batch", batch, "strided batch items")->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 31)),
      app.add_option("--groups", groups, "grouped GEMM: m split into this many equal groups")->check(CLI::Range(0, 1 << 20)),
      app.add_option("--bias", bias, "fused bias: none, row (per row of D), col (per column)")->capture_default_str(),
      app.add_option("--activation", activation, "fused activation: none, relu, gelu, silu")->capture_default_str(),
      app.add_option("--determinism", determinism, "reproducible, batch_invariant or fast")->capture_default_str()};
}

std::string ApiOptions::first_given() const {
  for (const CLI::Option* opt : options_)
    if (opt->count() > 0) return opt->get_name();
  return "";
}

void ApiOptions::describe(Gemm& g) const {
  fill(*this, g);
  g.batch = batch;
}

void ApiOptions::describe(GroupedGemm& g) const {
  fill(*this, g);
  g.groups = groups;
}

std::string ApiOptions::summary() const {
  std::string s = fmt::format("{} -> {}, layout {}{}", precision, output == "same" ? precision : "f32", layout,
                              d_order == "col" ? ", D column-major" : "");
  if (groups > 0) s += fmt::format(", {} groups", groups);
  else if (batch > 1) s += fmt::format(", batch {}", batch);
  if (const std::string e = epilogue_summary(); !e.empty()) s += ", epilogue " + e;
  if (determinism != "reproducible") s += ", " + determinism;
  return s;
}

std::string ApiOptions::epilogue_summary() const {
  return fmt::format("{}{}{}", bias != "none" ? "bias(" + bias + ")" : "", bias != "none" && activation != "none" ? "+" : "",
                     activation != "none" ? activation : "");
}

}  // namespace gemmlab::cli

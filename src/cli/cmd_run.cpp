// gemmlab run: one kernel, one shape: verified, timed, next to cuBLAS.
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "analysis/roofline.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/present.hpp"
#include "core/error.hpp"
#include "core/npy.hpp"
#include "kernels/registry.hpp"
#include "results/record.hpp"

namespace gemmlab::cli {

namespace {

struct RunOptions {
  std::string kernel, precision;
  ShapeOptions shape;
  ParamOptions params;
  TimingOptions timing;
  std::string init = "uniform", output = "f32", a_npy, b_npy, save_c, csv, json, peaks;
  std::uint64_t seed = 1;
  float alpha = 1.0f, beta = 0.0f;
  bool no_verify = false, no_cublas = false, roofline = false, interleave = false;
};

void run(const RunOptions& given) {
  RunOptions o = given;
  // `auto` is the library's dispatch: auto.<precision> (fp32 unless --precision says otherwise).
  if (o.kernel == "auto") o.kernel = "auto." + (o.precision.empty() ? std::string("fp32") : o.precision);
  else if (!o.precision.empty()) throw Error("--precision: only with --kernel auto (a kernel id names its precision)");
  const Kernel& k = Registry::instance().get(o.kernel);  // unknown ids fail before touching the GPU
  RunSpec spec;
  spec.kernel = o.kernel;
  spec.params = o.params.resolve();
  resolve_params(k, spec.params);  // reject bad parameters before opening the GPU
  if (!o.a_npy.empty() || !o.b_npy.empty()) {
    if (o.a_npy.empty() || o.b_npy.empty()) throw Error("give both --input-a and --input-b .npy files, or neither");
    const HostMatrix a = read_npy(o.a_npy), b = read_npy(o.b_npy);
    if (a.cols != b.rows)
      throw Error(fmt::format("{} is {} x {} and {} is {} x {}: inner dimensions differ", o.a_npy, a.rows, a.cols,
                              o.b_npy, b.rows, b.cols));
    spec.shape = Shape{a.rows, b.cols, a.cols};
    if (o.shape.given() && !(o.shape.resolve() == spec.shape))
      throw Error(fmt::format("the .npy files give {}, the options say {}", to_string(spec.shape),
                              to_string(o.shape.resolve())));
    validate_shape(spec.shape);
  } else {
    spec.shape = o.shape.resolve();
  }
  spec.inputs.init = o.init == "linear" ? Init::linear : Init::uniform;
  spec.inputs.seed = o.seed;
  spec.inputs.a_npy = o.a_npy;
  spec.inputs.b_npy = o.b_npy;
  spec.output = parse_output_option(o.output, k.info().precision);
  spec.alpha = o.alpha;
  spec.beta = o.beta;
  spec.timing = o.timing.resolve();
  spec.timing.interleave = o.interleave;
  spec.save_c = o.save_c;
  spec.verify = !o.no_verify;
  spec.compare_cublas = !o.no_cublas;
  std::optional<Peaks> peaks;  // read before the GPU work: a bad file fails fast
  if (!o.peaks.empty()) peaks = read_peaks_file(o.peaks);

  Lab lab;
  const RunResult r = run_gemm(lab, spec);
  std::cout << run_banner(lab.device().name, r) << "\n\n";
  print_run(r);
  nlohmann::json flat = to_json(r);
  if (o.roofline || peaks) {
    if (peaks && !peaks->device.empty() && peaks->device != lab.device().name)
      std::cout << fmt::format("note: the peaks in {} were measured on {}, this run is on {}\n", o.peaks,
                               peaks->device, lab.device().name);
    const Roof roof = roof_for(r.precision, lab.device(), peaks ? &*peaks : nullptr);
    print_roofline(r, roof);
    flat["roofline"] = roofline_json(r, roof);
  }
  if (!o.csv.empty()) write_csv_file(o.csv, {flat});
  if (!o.json.empty()) write_json_file(o.json, run_context(lab.device(), command_line()), {flat});
  if (!r.passed()) throw Error(fmt::format("verification failed for {} on {}", o.kernel, to_string(spec.shape)));
}

}  // namespace

void add_run_command(CLI::App& app) {
  static RunOptions o;
  auto* cmd = app.add_subcommand("run", "run one kernel on one shape: verify it and time it beside cuBLAS");
  cmd->add_option("--kernel", o.kernel, "kernel id (see 'gemmlab list'), or auto: the library's choice for the shape")
      ->required();
  cmd->add_option("--precision", o.precision, "with --kernel auto: fp32 (default), tf32, bf16 or fp16")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16", "fp16"}));
  o.shape.add_to(*cmd);
  o.params.add_to(*cmd);
  o.timing.add_to(*cmd);
  cmd->add_option("--init", o.init, "input values: uniform in [-1,1) or the seeds' LinearInit")
      ->check(CLI::IsMember({"uniform", "linear"}));
  cmd->add_option("--seed", o.seed, "random seed for uniform inputs");
  cmd->add_option("--input-a", o.a_npy, "read A from this .npy file");
  cmd->add_option("--input-b", o.b_npy, "read B from this .npy file");
  cmd->add_option("--save-c", o.save_c, "write the kernel's C to this .npy file");
  cmd->add_option("--output", o.output, "type of C: f32 (default) or same (the operand type)");
  cmd->add_option("--alpha", o.alpha, "C = alpha*A*B + beta*C");
  cmd->add_option("--beta", o.beta, "C = alpha*A*B + beta*C");
  cmd->add_flag("--no-verify", o.no_verify, "skip the float64 check (timing only)");
  cmd->add_flag("--no-cublas", o.no_cublas, "do not run cuBLAS beside the kernel");
  cmd->add_flag("--interleave", o.interleave,
                "time the kernel and cuBLAS alternately, run by run (default: all of the kernel's runs, then cuBLAS's)");
  cmd->add_option("--csv", o.csv, "write the result as CSV");
  cmd->add_option("--json", o.json, "write the result and its context as JSON");
  cmd->add_flag("--roofline", o.roofline, "show arithmetic intensity and the share of the roof reached");
  cmd->add_option("--peaks", o.peaks, "roofs from 'gemmlab peak --json' (default: theoretical peaks); implies --roofline");
  cmd->callback([] { run(o); });
}

}  // namespace gemmlab::cli

// gemmlab report RESULTS... -o DIR: plots and tables from results files, as Markdown and as a
// self-contained HTML page. The drawing is done by matplotlib in scripts/report.py (run with the
// python that scripts/python picks); this command checks the inputs, finds the script and runs it.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "results/record.hpp"

#ifndef GEMMLAB_SOURCE_DIR
#define GEMMLAB_SOURCE_DIR ""
#endif

namespace gemmlab::cli {

namespace {

namespace fs = std::filesystem;

struct ReportCliOptions {
  std::vector<std::string> inputs;
  std::string out_dir, baseline, peaks, title;
};

// The folder holding report.py and python: $GEMMLAB_SCRIPTS_DIR, else the source tree this binary
// was built from, else scripts/ or share/gemmlab/scripts/ next to the binary's folder.
fs::path find_scripts_dir() {
  auto usable = [](const fs::path& d) {
    std::error_code ec;
    return fs::is_regular_file(d / "report.py", ec) && fs::is_regular_file(d / "python", ec);
  };
  if (const char* env = std::getenv("GEMMLAB_SCRIPTS_DIR"); env && *env) {
    if (!usable(env)) throw Error(fmt::format("GEMMLAB_SCRIPTS_DIR={} holds no report.py and python", env));
    return env;
  }
  std::vector<fs::path> candidates;
  if (std::string(GEMMLAB_SOURCE_DIR).size() > 0) candidates.push_back(fs::path(GEMMLAB_SOURCE_DIR) / "scripts");
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path().parent_path() / "scripts");
    candidates.push_back(exe.parent_path().parent_path() / "share" / "gemmlab" / "scripts");
  }
  for (const fs::path& c : candidates)
    if (usable(c)) return c;
  throw Error("cannot find gemmlab's report script (scripts/report.py): set GEMMLAB_SCRIPTS_DIR to the scripts "
              "folder of the gemmlab source tree");
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void run_report(const ReportCliOptions& o) {
  // Unreadable or malformed inputs fail here, with the same messages as every other command.
  for (const std::string& f : o.inputs) read_results_file(f);
  const fs::path scripts = find_scripts_dir();

  std::string cmd = shell_quote((scripts / "python").string()) + " " + shell_quote((scripts / "report.py").string());
  for (const std::string& f : o.inputs) cmd += " " + shell_quote(f);
  cmd += " -o " + shell_quote(o.out_dir);
  if (!o.baseline.empty()) cmd += " --baseline " + shell_quote(o.baseline);
  if (!o.peaks.empty()) cmd += " --peaks " + shell_quote(o.peaks);
  if (!o.title.empty()) cmd += " --title " + shell_quote(o.title);

  // The script's stderr goes to a file: its one-line error becomes this command's error.
  std::string err_template = (fs::temp_directory_path() / "gemmlab_report_XXXXXX").string();
  const int fd = mkstemp(err_template.data());
  if (fd < 0) throw Error("cannot create a temporary file for the report script's messages");
  close(fd);
  const fs::path err_path = err_template;
  const int raw = std::system((cmd + " 2>" + shell_quote(err_path.string())).c_str());
  const std::string messages = read_file(err_path);
  fs::remove(err_path);
  const int code = raw == -1 ? -1 : WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  if (code == 0) {
    std::cerr << messages;  // warnings, if any
    return;
  }
  if (code == 127)
    throw Error("python3 not found: install python3 and python3-matplotlib (scripts/setup does)");
  const std::string prefix = "gemmlab: error: ";
  const auto at = messages.rfind(prefix);
  if (at != std::string::npos) {
    std::string line = messages.substr(at + prefix.size());
    line = line.substr(0, line.find('\n'));
    throw Error(line);
  }
  std::cerr << messages;
  throw Error(fmt::format("the report script {} failed (exit status {}); its messages are above",
                          (scripts / "report.py").string(), code));
}

}  // namespace

void add_report_command(CLI::App& app) {
  static ReportCliOptions o;
  auto* cmd = app.add_subcommand("report", "plots and tables from results files: DIR/report.md and DIR/report.html");
  cmd->add_option("results", o.inputs, "results files written by gemmlab (.json, or .csv: no device information)")
      ->required();
  cmd->add_option("-o,--output", o.out_dir, "directory for report.md, report.html and the PNG plots")->required();
  cmd->add_option("--baseline", o.baseline, "kernel id to draw speed-ups over (e.g. seed.shared, as seed 004)");
  cmd->add_option("--peaks", o.peaks, "peaks JSON for the roofline (see docs/reports.md); default: the theoretical "
                                      "peaks in the results file's context");
  cmd->add_option("--title", o.title, "title of the report (default: device and date)");
  cmd->callback([] { run_report(o); });
}

}  // namespace gemmlab::cli

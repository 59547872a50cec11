// Running the NVIDIA command-line tools gemmlab's analysis reads (cuobjdump, ncu) and finding
// them: small wrappers around popen, so that a missing tool or a failed run becomes one clear
// gemmlab::Error instead of an empty result.
#pragma once

#include <string>
#include <vector>

namespace gemmlab {

struct CommandOutput {
  int status = -1;     // exit status; 128 + signal when killed by a signal
  std::string output;  // what it wrote (stdout, and stderr where the command line redirects it)
};

// Runs `command` with /bin/sh and captures its standard output.
CommandOutput run_shell(const std::string& command);

// Quotes one argument for /bin/sh.
std::string shell_quote(const std::string& arg);
std::string shell_join(const std::vector<std::string>& argv);

// Where an NVIDIA tool is: $<env_override> if set (must exist), else the first `name` on PATH,
// else $CUDA_HOME/bin/<name>. Empty when none exists (the caller says what to do about it).
std::string find_tool(const std::string& name, const std::string& env_override);

// The path of the running executable (resolved /proc/self/exe).
std::string self_executable();

}  // namespace gemmlab

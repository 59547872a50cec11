// Running the gemmlab executable from a test, as a user would, and checking that bad input ends
// in one clear message and a non-zero exit status rather than a crash.
#pragma once

#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>

namespace gemmlab::testing {

struct CliOutcome {
  int status = -1;
  std::string output;  // stdout and stderr together
};

// `env` is an optional prefix such as "PATH=/nonexistent", applied with env(1).
inline CliOutcome run_cli(const std::string& args, const std::string& env = "") {
  const std::string cmd = (env.empty() ? "" : "env " + env + " ") + std::string(GEMMLAB_EXE) + " " + args + " 2>&1";
  CliOutcome o;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return o;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), int(buf.size()), p)) o.output += buf.data();
  const int raw = pclose(p);
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return o;
}

// Non-zero exit, no signal, `message` in the output, no internal error or Python traceback.
inline void expect_clean_failure(const std::string& args, const std::string& message, const std::string& env = "") {
  const CliOutcome o = run_cli(args, env);
  SCOPED_TRACE("gemmlab " + args + "\n" + o.output);
  EXPECT_NE(o.status, 0);
  EXPECT_LT(o.status, 128) << "killed by a signal: a crash, not an error message";
  EXPECT_NE(o.output.find(message), std::string::npos);
  EXPECT_EQ(o.output.find("internal error"), std::string::npos);
  EXPECT_EQ(o.output.find("Traceback"), std::string::npos);
}

}  // namespace gemmlab::testing

#include "analysis/process.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gemmlab {

namespace fs = std::filesystem;

CommandOutput run_shell(const std::string& command) {
  CommandOutput out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) throw Error(fmt::format("cannot start '{}'", command));
  std::array<char, 1 << 14> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.output.append(buf.data(), n);
  const int raw = pclose(p);
  out.status = raw == -1 ? -1 : WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return out;
}

std::string shell_quote(const std::string& arg) {
  std::string q = "'";
  for (char c : arg) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += shell_quote(a);
  }
  return s;
}

namespace {
bool is_executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}
}  // namespace

std::string find_tool(const std::string& name, const std::string& env_override) {
  if (const char* forced = std::getenv(env_override.c_str()); forced && *forced) {
    if (!is_executable(forced))
      throw Error(fmt::format("{}={} is not an executable file", env_override, forced));
    return forced;
  }
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (dir.empty()) continue;
      const fs::path candidate = fs::path(dir) / name;
      if (is_executable(candidate)) return candidate.string();
    }
  }
  if (const char* cuda = std::getenv("CUDA_HOME"); cuda && *cuda) {
    const fs::path candidate = fs::path(cuda) / "bin" / name;
    if (is_executable(candidate)) return candidate.string();
  }
  return {};
}

std::string self_executable() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find the running executable (/proc/self/exe): " + ec.message());
  return p.string();
}

}  // namespace gemmlab

#include "analysis/kernel_binary.hpp"

#include <cxxabi.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "analysis/process.hpp"
#include "core/error.hpp"

namespace gemmlab {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// "sm_90a" -> 90, "sm_90" -> 90; 0 when not of that form.
int arch_number(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0) return 0;
  return std::atoi(arch.c_str() + 3);
}

// The load bias of the main program (0 for a non-PIE executable): the first object
// dl_iterate_phdr reports is the executable itself.
std::uintptr_t main_program_bias() {
  std::uintptr_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        *static_cast<std::uintptr_t*>(out) = info->dlpi_addr;
        return 1;  // stop after the first
      },
      &bias);
  return bias;
}

}  // namespace

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

std::vector<FunctionResources> parse_resource_usage(const std::string& text) {
  std::vector<FunctionResources> out;
  std::istringstream in(text);
  std::string line, arch;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string t = trim(line);
    if (t.rfind("arch", 0) == 0 && t.find('=') != std::string::npos) {
      arch = trim(t.substr(t.find('=') + 1));
      continue;
    }
    if (t.rfind("Function ", 0) != 0 || t.back() != ':') continue;
    FunctionResources f;
    f.arch = arch;
    f.mangled = trim(t.substr(9, t.size() - 10));
    f.demangled = demangle(f.mangled);
    std::string res;
    if (!std::getline(in, res) || trim(res).rfind("REG:", 0) != 0)
      throw Error(fmt::format("cuobjdump output, line {}: function {} has no resource line (REG:... SHARED:...)",
                              line_no, f.mangled));
    ++line_no;
    std::istringstream fields(trim(res));
    std::string field;
    while (fields >> field) {
      const auto colon = field.rfind(':');
      if (colon == std::string::npos) continue;
      const std::string key = field.substr(0, colon);
      const std::string value = field.substr(colon + 1);
      char* end = nullptr;
      const long long v = std::strtoll(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || v < 0)
        throw Error(fmt::format("cuobjdump output, line {}: '{}' is not a count", line_no, field));
      if (key == "REG") f.registers = int(v);
      else if (key == "SHARED") f.shared_bytes = std::size_t(v);
      else if (key == "LOCAL") f.local_bytes = std::size_t(v);
      else if (key == "STACK") f.stack_bytes = std::size_t(v);
    }
    // From sm_80 on, cuobjdump's SHARED of a kernel that uses shared memory includes the 1 KB the
    // system reserves per block; cudaFuncGetAttributes' sharedSizeBytes does not (seen on an H100:
    // SHARED:1536 for 512 bytes of static tiles). Report what the kernel declares.
    const int arch_number = f.arch.size() > 3 ? std::atoi(f.arch.c_str() + 3) : 0;
    if (arch_number >= 80 && f.shared_bytes >= 1024) f.shared_bytes -= 1024;
    out.push_back(std::move(f));
  }
  if (out.empty())
    throw Error("cuobjdump reported no device function (is this a CUDA executable built with device code?)");
  return out;
}

std::vector<FunctionResources> read_resource_usage(const std::string& binary) {
  const std::string tool = find_tool("cuobjdump", "GEMMLAB_CUOBJDUMP");
  if (tool.empty())
    throw Error("cuobjdump (CUDA toolkit) not found on PATH or in $CUDA_HOME/bin: give the kernel's resources with "
                "--regs/--smem, or a saved 'cuobjdump --dump-resource-usage' output with --resources FILE");
  const CommandOutput r = run_shell(shell_join({tool, "--dump-resource-usage", binary}) + " 2>&1");
  if (r.status != 0)
    throw Error(fmt::format("cuobjdump --dump-resource-usage {} failed (exit {}): {}", binary, r.status,
                            trim(r.output.substr(0, 300))));
  return parse_resource_usage(r.output);
}

std::string host_symbol_at(const void* address) {
  if (!address) return {};
  const std::uintptr_t want = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream f(self_executable(), std::ios::binary);
  if (!f) return {};
  Elf64_Ehdr eh{};
  if (!f.read(reinterpret_cast<char*>(&eh), sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64)
    return {};
  const std::uintptr_t bias = eh.e_type == ET_DYN ? main_program_bias() : 0;
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  f.seekg(std::streamoff(eh.e_shoff));
  if (!f.read(reinterpret_cast<char*>(sections.data()), std::streamsize(sections.size() * sizeof(Elf64_Shdr))))
    return {};
  for (const Elf64_Shdr& sh : sections) {
    if (sh.sh_type != SHT_SYMTAB || sh.sh_link >= sections.size() || sh.sh_entsize != sizeof(Elf64_Sym)) continue;
    const Elf64_Shdr& strtab = sections[sh.sh_link];
    std::vector<Elf64_Sym> syms(sh.sh_size / sizeof(Elf64_Sym));
    f.seekg(std::streamoff(sh.sh_offset));
    if (!f.read(reinterpret_cast<char*>(syms.data()), std::streamsize(syms.size() * sizeof(Elf64_Sym)))) return {};
    for (const Elf64_Sym& s : syms) {
      if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_value + bias != want) continue;
      std::string name;
      f.seekg(std::streamoff(strtab.sh_offset + s.st_name));
      std::getline(f, name, '\0');
      if (!name.empty()) return name;
    }
  }
  return {};
}

std::string function_identifier(const std::string& demangled) {
  std::string s = demangled;
  for (const std::string anon : {"(anonymous namespace)", "<unnamed>"})
    for (auto at = s.find(anon); at != std::string::npos; at = s.find(anon)) s.erase(at, anon.size());
  s = s.substr(0, s.find('('));
  s = s.substr(0, s.find('<'));
  if (const auto colons = s.rfind("::"); colons != std::string::npos) s = s.substr(colons + 2);
  if (const auto space = s.rfind(' '); space != std::string::npos) s = s.substr(space + 1);
  return s;
}

const FunctionResources& select_function(const std::vector<FunctionResources>& all, const std::string& demangled_name,
                                         const std::string& regex, int cc) {
  std::vector<const FunctionResources*> hits;
  if (!regex.empty()) {
    std::regex re;
    try {
      re = std::regex(regex);
    } catch (const std::regex_error& e) {
      throw Error(fmt::format("--function '{}' is not a valid regular expression ({})", regex, e.what()));
    }
    // The first function (in cuobjdump's order) that matches decides the name; then its builds.
    for (const auto& f : all)
      if (std::regex_search(f.demangled, re) || std::regex_search(f.mangled, re)) {
        for (const auto& g : all)
          if (g.mangled == f.mangled) hits.push_back(&g);
        break;
      }
  } else {
    for (const auto& f : all)
      if (f.demangled == demangled_name) hits.push_back(&f);
  }
  if (hits.empty()) {
    std::vector<std::string> names;
    for (const auto& f : all)
      if (std::find(names.begin(), names.end(), f.demangled) == names.end()) names.push_back(f.demangled);
    const std::size_t shown = std::min<std::size_t>(names.size(), 8);
    throw Error(fmt::format("no device function {} in the binary ({} functions, e.g. {}{})",
                            regex.empty() ? "named '" + demangled_name + "'" : "matching '" + regex + "'", names.size(),
                            fmt::join(names.begin(), names.begin() + std::ptrdiff_t(shown), "; "),
                            names.size() > shown ? "; ..." : ""));
  }
  // Prefer the GPU's own architecture; else the closest below it; else the lowest above it.
  const FunctionResources* best = nullptr;
  auto rank = [&](const FunctionResources* f) {
    const int a = arch_number(f->arch);
    if (a == cc) return f->arch.back() == 'a' ? 1 : 0;  // sm_90 before sm_90a
    if (a < cc) return 100 + 2 * (cc - a) + (f->arch.back() == 'a' ? 1 : 0);  // portable sm_XY before sm_XYa
    return 10000 + (a - cc);
  };
  for (const FunctionResources* f : hits)
    if (!best || rank(f) < rank(best)) best = f;
  return *best;
}

}  // namespace gemmlab

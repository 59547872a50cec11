#include "dispatch/dispatch.hpp"

#include <fmt/format.h>

#include "api/context_impl.hpp"
#include "kernels/library/generic.hpp"

namespace gemmlab::detail {

const char* family_name(Family f) {
  switch (f) {
    case Family::generic: return "generic";
    case Family::simt: return "simt";
    case Family::sm90: return "sm90";
    case Family::sm90_tf32: return "sm90_tf32";
  }
  return "?";
}

std::string types_key(const Problem& p) {
  return fmt::format("{}.{}", p.tf32 ? std::string_view("tf32") : to_string(p.ab), to_string(p.cd));
}

void prepare_kernels(DeviceState&) {}

Choice choose(const ContextImpl&, const Problem&, std::size_t) {
  Choice c;
  c.family = Family::generic;
  c.reason = "the generic kernel serves every problem";
  return c;
}

std::vector<Choice> candidates(const ContextImpl& ctx, const Problem& p, std::size_t workspace_bytes) {
  return {choose(ctx, p, workspace_bytes)};
}

void execute(const Choice& c, const Problem& p, const LaunchEnv& env) {
  switch (c.family) {
    default: launch_generic(p, env.stream); return;
  }
}

Plan describe(const Choice& c, const Problem& p) {
  Plan plan;
  plan.kernel = fmt::format("{}.{}", family_name(c.family), types_key(p));
  plan.config = fmt::format("layout={}", p.layout_name());
  plan.reason = c.reason;
  plan.workspace_bytes = c.workspace_bytes;
  return plan;
}

}  // namespace gemmlab::detail

#include <fmt/format.h>

#include "core/error.hpp"
#include "studies/study.hpp"

namespace gemmlab {

void register_all_studies(StudyRegistry& r);  // catalog.cpp

const StudyRegistry& StudyRegistry::instance() {
  static const StudyRegistry registry = [] {
    StudyRegistry r;
    register_all_studies(r);
    return r;
  }();
  return registry;
}

void StudyRegistry::add(std::unique_ptr<Study> s) {
  for (const auto& x : studies_)
    if (x->name() == s->name()) throw Error(fmt::format("duplicate study '{}'", s->name()));
  studies_.push_back(std::move(s));
}

const Study& StudyRegistry::get(const std::string& name) const {
  std::vector<std::string> names;
  for (const auto& s : studies_) {
    if (s->name() == name) return *s;
    names.push_back(s->name());
  }
  throw Error(fmt::format("unknown study '{}' (studies: {})", name,
                          names.empty() ? std::string("none yet") : fmt::format("{}", fmt::join(names, ", "))));
}

}  // namespace gemmlab

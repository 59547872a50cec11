// The catalogue of studies: one line per study file.
#include "studies/study.hpp"

namespace gemmlab {

void register_seed001(StudyRegistry& r);

void register_all_studies(StudyRegistry& r) {
  register_seed001(r);
}

}  // namespace gemmlab

// The catalogue of studies: one line per study file.
#include "studies/study.hpp"

namespace gemmlab {

void register_all_studies(StudyRegistry& r) {
  (void)r;
}

}  // namespace gemmlab

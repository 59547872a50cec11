// The catalogue of studies: one line per study file.
#include "studies/study.hpp"

namespace gemmlab {

void register_study_seed000(StudyRegistry& r);
void register_seed001(StudyRegistry& r);
void register_study_seed002(StudyRegistry& r);
void register_study_seed003(StudyRegistry& r);
void register_study_seed004(StudyRegistry& r);

void register_all_studies(StudyRegistry& r) {
  register_study_seed000(r);
  register_seed001(r);
  register_study_seed002(r);
  register_study_seed003(r);
  register_study_seed004(r);
}

}  // namespace gemmlab

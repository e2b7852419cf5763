#include "archiver/schedule/plan_state.h"

#include <algorithm>

namespace mmvlog::archiver {

void PlanState::Set(std::shared_ptr<LogPlan> plan) {
  plan_ = std::move(plan);
  started_ = false;
}

void PlanState::Resolve(const MmvFileSet& files, const MmvFileSet::Live& live) {
  LogPlan* plan = plan_.get();
  if (plan == nullptr || (started_ && mappings_ == files.mapping_serial())) return;
  mappings_ = files.mapping_serial();
  if (!started_) {
    started_ = true;
    for (const std::string& w : plan->Start(files.Offered(live))) log_(LogLevel::kWarning, w);
    ++version_;
  } else if (plan->Update(files.Offered(live))) {
    ++version_;
  }
}

void PlanState::Groups(const std::vector<size_t>* ids,
                       std::vector<const GroupSelection*>* groups) const {
  groups->clear();
  if (plan_ == nullptr) {
    groups->push_back(nullptr);
    return;
  }
  for (const GroupSelection& g : plan_->groups()) {
    if (ids == nullptr || std::find(ids->begin(), ids->end(), g.id) != ids->end()) {
      groups->push_back(&g);
    }
  }
}

}  // namespace mmvlog::archiver

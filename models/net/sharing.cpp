#include "models/net/sharing.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace eksim::net {

Eigen::VectorXd max_min_fair_rates(const Eigen::MatrixXd& incidence,
                                   const Eigen::VectorXd& link_capacity,
                                   const Eigen::VectorXd& flow_cap) {
  const Eigen::Index flows = incidence.rows();
  const Eigen::Index links = incidence.cols();
  assert(link_capacity.size() == links);
  assert(flow_cap.size() == flows);
  constexpr double kInf = std::numeric_limits<double>::infinity();

  Eigen::VectorXd rate = Eigen::VectorXd::Zero(flows);
  // 1 while the flow's rate may still grow.
  Eigen::VectorXd active = Eigen::VectorXd::Ones(flows);
  const double scale = std::max(1.0, link_capacity.size() ? link_capacity.cwiseAbs().maxCoeff() : 1.0);
  const double eps = 1e-12 * scale;

  // Flows on no link are limited only by their cap.
  for (Eigen::Index f = 0; f < flows; ++f) {
    if (incidence.row(f).cwiseAbs().sum() == 0.0) {
      rate(f) = flow_cap(f);
      active(f) = 0.0;
    }
  }

  // Each round freezes at least one flow, so flows + 1 rounds always suffice.
  for (Eigen::Index round = 0; round <= flows && active.sum() > 0.0; ++round) {
    const Eigen::VectorXd load = incidence.transpose() * rate;            // per link
    const Eigen::VectorXd active_weight = incidence.transpose() * active;  // per link
    double step = kInf;
    for (Eigen::Index l = 0; l < links; ++l) {
      if (active_weight(l) > 0.0) {
        step = std::min(step, std::max(0.0, link_capacity(l) - load(l)) / active_weight(l));
      }
    }
    for (Eigen::Index f = 0; f < flows; ++f) {
      if (active(f) > 0.0) step = std::min(step, flow_cap(f) - rate(f));
    }
    if (!std::isfinite(step)) break;  // cannot happen: an active flow crosses a link
    rate += step * active;

    const Eigen::VectorXd new_load = incidence.transpose() * rate;
    for (Eigen::Index l = 0; l < links; ++l) {
      if (active_weight(l) > 0.0 && new_load(l) >= link_capacity(l) - eps) {
        for (Eigen::Index f = 0; f < flows; ++f) {
          if (incidence(f, l) > 0.0) active(f) = 0.0;
        }
      }
    }
    for (Eigen::Index f = 0; f < flows; ++f) {
      if (active(f) > 0.0 && rate(f) >= flow_cap(f) - eps) active(f) = 0.0;
    }
  }
  return rate;
}

}  // namespace eksim::net

#pragma once
// Max-min fair sharing of link capacities among concurrent flows, by progressive filling: every
// unfrozen flow's rate rises at the same speed until a link saturates (its flows freeze) or a flow
// reaches its own cap (it freezes); repeat until every flow is frozen. This is the allocation TCP
// flows converge to on shared bottlenecks, to first order, and the textbook definition.
#include <Eigen/Dense>

namespace eksim::net {

// incidence(f, l) is the share of flow f's rate that crosses link l: 1 for a flow that uses the
// link, 0 otherwise (fractions are allowed, e.g. a flow split over two paths).
// link_capacity(l) >= 0; flow_cap(f) > 0, +infinity for an uncapped flow.
// Returns each flow's rate, in the unit of the capacities. A flow that crosses no link gets its
// cap (possibly +infinity).
Eigen::VectorXd max_min_fair_rates(const Eigen::MatrixXd& incidence,
                                   const Eigen::VectorXd& link_capacity,
                                   const Eigen::VectorXd& flow_cap);

}  // namespace eksim::net

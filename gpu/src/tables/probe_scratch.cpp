// ProbeScratch: construction and ownership of the intersect probe's working memory
// (backend-neutral: it is only buffers, which the backend's table fills).
#include "tables/hash_graph_arrays.hpp"

#include <voxhash/hash_graph.hpp>

namespace voxhash {

ProbeScratch::ProbeScratch(Backend backend)
    : m_backend(backend), m_state(std::make_unique<State>(backend)) {}
ProbeScratch::~ProbeScratch()                                  = default;
ProbeScratch::ProbeScratch(ProbeScratch&&) noexcept            = default;
ProbeScratch& ProbeScratch::operator=(ProbeScratch&&) noexcept = default;

}  // namespace voxhash

// CPU backend table factory (the shared templates instantiated with CpuExec).
#pragma once

#include <voxhash/hash_table.hpp>

#include <memory>

namespace voxhash::cpu {

std::unique_ptr<HashTable> make_table(TableKind kind, const BuildOptions& options);

}  // namespace voxhash::cpu

// CPU backend: the shared table templates instantiated with CpuExec.
#include "cpu/cpu_tables.hpp"
#include "exec/cpu_exec.hpp"
#include "tables/cuckoo_table_impl.hpp"
#include "tables/hash_graph_impl.hpp"

namespace voxhash::cpu {

std::unique_ptr<HashTable> make_table(TableKind kind, const BuildOptions& options) {
  if (kind == TableKind::Cuckoo) return std::make_unique<tables::CuckooTableImpl<CpuExec>>(options);
  return std::make_unique<tables::HashGraphImpl<CpuExec>>(kind, options);
}

}  // namespace voxhash::cpu

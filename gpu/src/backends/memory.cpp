// Every Buffer allocation of either backend passes through here: the bytes held and their peaks
// per backend (all, pinned, pageable), the fault-injection budget (set_allocation_budget or
// VOXHASH_ALLOC_BUDGET), and the up-front check of an estimate against free memory (require_memory)
// with its one-line message.
#include "backends/backend_impl.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>

namespace voxhash {
namespace {

/// One backend's counters; the mutex also orders budget checks with the bytes they reserve.
struct Ledger {
  std::mutex mutex;
  AllocationStats stats;
  std::optional<std::size_t> budget;  // set_allocation_budget's; nullopt: the environment's
};

Ledger& ledger(Backend backend) {
  static auto* const ledgers = new std::array<Ledger, 2>;  // never destroyed, as the backends
  return (*ledgers)[backend == Backend::Cuda ? 1 : 0];
}

/// VOXHASH_ALLOC_BUDGET: nullopt when unset or empty; throws InvalidInput when malformed.
std::optional<std::size_t> environment_budget() {
  const char* text = std::getenv("VOXHASH_ALLOC_BUDGET");
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::optional<std::size_t> bytes = parse_bytes(text);
  if (!bytes) {
    throw InvalidInput("VOXHASH_ALLOC_BUDGET='" + std::string(text) +
                       "' is not a byte count (e.g. 64M)");
  }
  return bytes;
}

std::string_view memory_name(Backend backend) {
  return backend == Backend::Cuda ? "GPU memory" : "host memory";
}

}  // namespace

AllocationStats allocation_stats(Backend backend) {
  Ledger& l = ledger(backend);
  const std::lock_guard lock(l.mutex);
  return l.stats;
}

void reset_allocation_peak(Backend backend) {
  Ledger& l = ledger(backend);
  const std::lock_guard lock(l.mutex);
  l.stats.peak          = l.stats.in_use;
  l.stats.pinned_peak   = l.stats.pinned_in_use;
  l.stats.pageable_peak = l.stats.in_use - l.stats.pinned_in_use;
}

MemoryPeaks memory_peaks(Backend backend) {
  const AllocationStats host   = allocation_stats(Backend::Cpu);
  const AllocationStats device = backend == Backend::Cpu ? host : allocation_stats(backend);
  return {.device = device.pageable_peak, .pinned = host.pinned_peak, .host = host.peak};
}

void reset_memory_peaks(Backend backend) {
  reset_allocation_peak(Backend::Cpu);
  if (backend != Backend::Cpu) reset_allocation_peak(backend);
}

void set_allocation_budget(Backend backend, std::optional<std::size_t> budget) {
  Ledger& l = ledger(backend);
  const std::lock_guard lock(l.mutex);
  l.budget = budget;
}

std::optional<std::size_t> allocation_budget(Backend backend) {
  Ledger& l = ledger(backend);
  {
    const std::lock_guard lock(l.mutex);
    if (l.budget) return l.budget;
  }
  return environment_budget();
}

void require_memory(Backend backend, const MemoryEstimate& need, std::string_view what) {
  const auto check = [&](Backend memory, std::size_t bytes) {
    const std::size_t free = free_memory(memory);
    if (bytes <= free && free - bytes >= kMemoryHeadroom) return;
    throw OutOfMemory(std::string(what) + " needs " + format_bytes(bytes) + " of " +
                      std::string(memory_name(memory)) + "; " + format_bytes(free) +
                      " is available");
  };
  if (backend == Backend::Cpu) {
    check(Backend::Cpu, need.backend_bytes + need.host_bytes);
    return;
  }
  check(Backend::Cuda, need.backend_bytes);
  check(Backend::Cpu, need.host_bytes);
}

namespace detail {

namespace {

/// Reserves `bytes` in the backend's ledger (checking the budget), then calls alloc(); the
/// reservation is returned when alloc() throws.
template <class Alloc>
void* accounted_allocate(Backend backend, std::size_t bytes, bool pinned, Alloc alloc) {
  if (bytes == 0) return nullptr;
  const std::optional<std::size_t> budget = allocation_budget(backend);
  Ledger& l                               = ledger(backend);
  {
    const std::lock_guard lock(l.mutex);
    if (budget && (bytes > *budget || l.stats.in_use > *budget - bytes)) {
      ++l.stats.failures;
      throw OutOfMemory(std::string(backend == Backend::Cuda ? "GPU" : "host") +
                        " out of memory: could not allocate " + format_bytes(bytes) +
                        " (allocation budget " + format_bytes(*budget) + ", " +
                        format_bytes(l.stats.in_use) + " in use)");
    }
    l.stats.in_use += bytes;  // reserved before the allocation, so concurrent ones see it
    if (pinned) l.stats.pinned_in_use += bytes;
    l.stats.peak          = std::max(l.stats.peak, l.stats.in_use);
    l.stats.pinned_peak   = std::max(l.stats.pinned_peak, l.stats.pinned_in_use);
    l.stats.pageable_peak = std::max(l.stats.pageable_peak, l.stats.in_use - l.stats.pinned_in_use);
  }
  try {
    void* ptr = alloc();
    const std::lock_guard lock(l.mutex);
    ++l.stats.allocations;
    if (pinned) ++l.stats.pinned_allocations;
    return ptr;
  } catch (...) {
    const std::lock_guard lock(l.mutex);
    l.stats.in_use -= bytes;
    if (pinned) l.stats.pinned_in_use -= bytes;
    ++l.stats.failures;
    throw;
  }
}

void release_accounted(Backend backend, std::size_t bytes, bool pinned) noexcept {
  Ledger& l = ledger(backend);
  const std::lock_guard lock(l.mutex);
  l.stats.in_use -= bytes;
  if (pinned) l.stats.pinned_in_use -= bytes;
}

}  // namespace

void* allocate(Backend backend, std::size_t bytes) {
  return accounted_allocate(
      backend, bytes, false, [&] { return backend_impl(backend).allocate(bytes); });
}

void deallocate(Backend backend, void* ptr, std::size_t bytes) noexcept {
  if (!ptr) return;
  backend_impl(backend).deallocate(ptr);
  release_accounted(backend, bytes, false);
}

void* allocate_pinned(std::size_t bytes) {
  return accounted_allocate(
      Backend::Cpu, bytes, true, [&] { return pinned_memory_backend().allocate_pinned(bytes); });
}

void deallocate_pinned(void* ptr, std::size_t bytes) noexcept {
  if (!ptr) return;
  pinned_memory_backend().deallocate_pinned(ptr);
  release_accounted(Backend::Cpu, bytes, true);
}

}  // namespace detail
}  // namespace voxhash

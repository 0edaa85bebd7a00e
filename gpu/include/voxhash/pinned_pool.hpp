// PinnedPool: pinned host memory kept from one operation to the next, so that a join over pages
// pins its host pages once instead of on every call (pinning them takes longer than the rest of
// such a join). One block that grows to the largest request, up to a
// limit, lent to one user at a time; default_pinned_pool() is the process-wide one joins use.
#pragma once

#include <cstddef>
#include <mutex>

namespace voxhash {

/// The limit default_pinned_pool() starts with: the pinned host pages of a join whose build side
/// has 500M rows beyond its first two pages.
inline constexpr std::size_t kDefaultPinnedPoolLimit = std::size_t{4} << 30;

struct PinnedPoolStats {
  std::size_t held        = 0;  // pinned bytes the pool keeps (lent now or not)
  std::size_t limit       = 0;  // the most it keeps between leases
  std::size_t leases      = 0;  // leases given (of more than 0 bytes)
  std::size_t reuses      = 0;  // of which served by the kept block, without pinning
  std::size_t allocations = 0;  // blocks pinned for leases (kept ones and one-off ones)
};

/// A block of pinned host memory (Buffer::pinned_host's kind: page-locked by CUDA where it is
/// available; accounted and budgeted as the Cpu backend's memory, see allocation_stats) that grows
/// to the largest lease asked of it and is kept for the next. At most `limit` bytes are kept: a
/// lease beyond the limit, or asked while the kept block is lent, gets a block of its own, freed
/// when it ends. Thread-safe; no lease may outlive its pool.
class PinnedPool {
 public:
  /// Pinned host memory lent by a pool: bytes() bytes at data() (aligned to at least 64 bytes),
  /// given back when the lease is destroyed. The caller must have finished every copy from or to
  /// it by then.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&)            = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    [[nodiscard]] void* data() const noexcept { return m_data; }
    [[nodiscard]] std::size_t bytes() const noexcept { return m_bytes; }
    /// Bytes pinned to serve this lease (0: the pool's kept block was reused).
    [[nodiscard]] std::size_t pinned_bytes() const noexcept { return m_pinned; }

   private:
    friend class PinnedPool;
    void give_back() noexcept;

    PinnedPool* m_pool   = nullptr;
    void* m_data         = nullptr;
    std::size_t m_bytes  = 0;
    std::size_t m_block  = 0;  // bytes of the block behind m_data
    std::size_t m_pinned = 0;
    bool m_kept          = false;  // the pool's kept block (else a one-off block)
  };

  explicit PinnedPool(std::size_t limit = kDefaultPinnedPoolLimit) : m_limit(limit) {}
  PinnedPool(const PinnedPool&)            = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;
  /// Frees the kept block.
  ~PinnedPool();

  /// Lends `bytes` bytes: the kept block when it is free and large enough (no pinning); else, for
  /// at most `limit` bytes, a block of that size pinned in the kept one's place (freed first, so
  /// it grows to the largest lease); else a one-off block. Throws OutOfMemory (the allocation
  /// budget's or the system's message) when the memory cannot be pinned; the pool then keeps
  /// nothing. A lease of 0 bytes holds nothing.
  [[nodiscard]] Lease lend(std::size_t bytes);
  /// Frees the kept block now, or when its lease ends if it is lent.
  void release();
  /// Sets the most the pool keeps; a kept block beyond it is released as release() does.
  void set_limit(std::size_t bytes);
  [[nodiscard]] PinnedPoolStats stats() const;

 private:
  void release_locked() noexcept;
  void free_kept_locked() noexcept;

  mutable std::mutex m_mutex;
  std::size_t m_limit;
  void* m_kept           = nullptr;
  std::size_t m_kept_len = 0;
  bool m_lent            = false;
  bool m_release_pending = false;  // free the kept block when its lease ends
  PinnedPoolStats m_stats;
};

/// The process-wide pool that joins over pages take their pinned host pages from unless
/// JoinOptions::pinned_pool names another. It keeps up to kDefaultPinnedPoolLimit bytes of pinned
/// host memory between joins (the largest join's build pages beyond its first two); release() or
/// set_limit(0) gives them back. Never destroyed (the process's exit frees it).
[[nodiscard]] PinnedPool& default_pinned_pool();

}  // namespace voxhash

// PinnedPool (pinned_pool.hpp): one kept block of pinned host memory lent to one lease at a time,
// grown in place to the largest lease up to the pool's limit; other leases get one-off blocks.
// Every block comes from detail::allocate_pinned, so the accounting and the allocation budget see
// it as any pinned Buffer.
#include <voxhash/buffer.hpp>
#include <voxhash/pinned_pool.hpp>

#include <utility>

namespace voxhash {

PinnedPool::Lease::Lease(Lease&& other) noexcept
    : m_pool(std::exchange(other.m_pool, nullptr)),
      m_data(std::exchange(other.m_data, nullptr)),
      m_bytes(std::exchange(other.m_bytes, 0)),
      m_block(std::exchange(other.m_block, 0)),
      m_pinned(std::exchange(other.m_pinned, 0)),
      m_kept(std::exchange(other.m_kept, false)) {}

PinnedPool::Lease& PinnedPool::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    give_back();
    m_pool   = std::exchange(other.m_pool, nullptr);
    m_data   = std::exchange(other.m_data, nullptr);
    m_bytes  = std::exchange(other.m_bytes, 0);
    m_block  = std::exchange(other.m_block, 0);
    m_pinned = std::exchange(other.m_pinned, 0);
    m_kept   = std::exchange(other.m_kept, false);
  }
  return *this;
}

PinnedPool::Lease::~Lease() {
  give_back();
}

void PinnedPool::Lease::give_back() noexcept {
  if (m_pool != nullptr && m_kept) {
    const std::lock_guard lock(m_pool->m_mutex);
    m_pool->m_lent = false;
    if (m_pool->m_release_pending) m_pool->free_kept_locked();
  } else if (m_data != nullptr) {
    detail::deallocate_pinned(m_data, m_block);
  }
  m_pool  = nullptr;
  m_data  = nullptr;
  m_bytes = m_block = m_pinned = 0;
  m_kept                       = false;
}

PinnedPool::~PinnedPool() {
  const std::lock_guard lock(m_mutex);
  free_kept_locked();
}

PinnedPool::Lease PinnedPool::lend(std::size_t bytes) {
  Lease lease;
  if (bytes == 0) return lease;
  lease.m_bytes = bytes;
  {
    const std::lock_guard lock(m_mutex);
    ++m_stats.leases;
    if (!m_lent && bytes <= m_limit) {
      if (m_kept_len < bytes) {
        free_kept_locked();
        m_kept     = detail::allocate_pinned(bytes);  // throws: the pool keeps nothing
        m_kept_len = bytes;
        ++m_stats.allocations;
        lease.m_pinned = bytes;
      } else {
        ++m_stats.reuses;
      }
      m_lent            = true;
      m_release_pending = false;
      lease.m_pool      = this;
      lease.m_data      = m_kept;
      lease.m_block     = m_kept_len;
      lease.m_kept      = true;
      return lease;
    }
  }
  lease.m_data   = detail::allocate_pinned(bytes);
  lease.m_block  = bytes;
  lease.m_pinned = bytes;
  const std::lock_guard lock(m_mutex);
  ++m_stats.allocations;
  return lease;
}

void PinnedPool::release() {
  const std::lock_guard lock(m_mutex);
  release_locked();
}

void PinnedPool::set_limit(std::size_t bytes) {
  const std::lock_guard lock(m_mutex);
  m_limit = bytes;
  if (m_kept_len > bytes) release_locked();
}

PinnedPoolStats PinnedPool::stats() const {
  const std::lock_guard lock(m_mutex);
  PinnedPoolStats s = m_stats;
  s.held            = m_kept_len;
  s.limit           = m_limit;
  return s;
}

void PinnedPool::release_locked() noexcept {
  if (m_lent) {
    m_release_pending = true;
  } else {
    free_kept_locked();
  }
}

void PinnedPool::free_kept_locked() noexcept {
  if (m_kept != nullptr) detail::deallocate_pinned(m_kept, m_kept_len);
  m_kept            = nullptr;
  m_kept_len        = 0;
  m_release_pending = false;
}

PinnedPool& default_pinned_pool() {
  static auto* const pool = new PinnedPool;  // never destroyed: joins may run during exit
  return *pool;
}

}  // namespace voxhash

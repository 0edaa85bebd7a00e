// The clash pass, written once over the executor (instantiated by ExecBackend in each backend's
// translation unit): the last frame's intersection voxels get a cuckoo table of their own, whose
// dense ids number them; union-find over their 26-neighbours (the flood fill's connect_components,
// neighbours found by probing that table) gives the regions; every voxel adds itself to its
// region's sums with atomics; the parts of each model per voxel (voxel_part_sets) are crossed
// into (region, part A, part B) records, sorted and counted. One read-back at the end.
#pragma once

#include "clash/clash_raw.hpp"
#include "core/clash.hpp"
#include "pipeline/frame_steps.hpp"
#include "pipeline/pipeline_backend.hpp"
#include "tables/cuckoo_table_impl.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace voxhash::clash {

/// Sorted, de-duplicated part ids of every intersection voxel, as offsets (ids + 1 entries) into
/// parts: the per-voxel part lookup a join on the voxel key (issue 11) can replace.
template <class Exec>
struct PartSets {
  Buffer<std::uint32_t> offsets{Exec::kBackend, 0}, parts{Exec::kBackend, 0};
};

template <class Exec>
void iota(Exec& exec, std::uint32_t* out, std::size_t n) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) { out[i] = i; });
}

/// out[i] = in[index[i]].
template <class Exec, class T>
void gather(Exec& exec, const T* in, const std::uint32_t* index, std::size_t n, T* out) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) { out[i] = in[index[i]]; });
}

/// Stable sort of keys[0..n) (bits [0, end_bit)) carrying values: the results replace the inputs
/// (keys_tmp / values_tmp are scratch of n).
template <class Exec>
void sort_in_place(Exec& exec,
                   std::uint32_t* keys,
                   std::uint32_t* values,
                   std::uint32_t* keys_tmp,
                   std::uint32_t* values_tmp,
                   std::size_t n,
                   int end_bit) {
  exec.sort_pairs(keys, keys_tmp, values, values_tmp, n, end_bit);
  exec.copy_async(keys, keys_tmp, n * sizeof(std::uint32_t));
  exec.copy_async(values, values_tmp, n * sizeof(std::uint32_t));
}

inline int bits_for(std::size_t max_value) {
  return std::max(1, static_cast<int>(std::bit_width(max_value)));
}

/// The part sets of the `voxel_count` voxels of `ids` (dense ids of the intersection keys) from a
/// model's (key, part) pairs: pairs whose key is an intersection voxel are kept as (id, part),
/// sorted by id then part (two stable sorts), the duplicates dropped and the rest counted per id.
template <class Exec>
void voxel_part_sets(Exec& exec,
                     CuckooRef ids,
                     std::uint32_t voxel_count,
                     detail::PartPairs pairs,
                     PartSets<Exec>& out) {
  constexpr Backend B = Exec::kBackend;
  const std::size_t n = pairs.count;
  Buffer<std::uint32_t> id(B, n), selected(B, n);
  Buffer<std::uint8_t> flags(B, n);
  {
    std::uint32_t* pid = id.data();
    std::uint8_t* f    = flags.data();
    const Key* keys    = pairs.keys;
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t j) {
      pid[j] = ids.find_id(keys[j]);
      f[j]   = pid[j] != kNotFound;
    });
  }
  const std::size_t k = exec.select_flagged_indices(flags.data(), selected.data(), n);
  Buffer<std::uint32_t> vid(B, k), part(B, k), vid_tmp(B, k), part_tmp(B, k);
  gather(exec, id.data(), selected.data(), k, vid.data());
  {
    std::uint32_t* p          = part.data();
    const std::uint32_t* from = pairs.parts;
    const std::uint32_t* sel  = selected.data();
    exec.for_each(k, [=] VOXHASH_LAMBDA(std::uint32_t i) { p[i] = from ? from[sel[i]] : 0u; });
  }
  sort_in_place(exec, part.data(), vid.data(), part_tmp.data(), vid_tmp.data(), k, 32);
  sort_in_place(
      exec, vid.data(), part.data(), vid_tmp.data(), part_tmp.data(), k, bits_for(voxel_count));

  out.offsets.resize(std::size_t{voxel_count} + 1);
  std::uint32_t* offsets = out.offsets.data();
  exec.fill(offsets, out.offsets.size(), 0u);
  std::uint8_t* first    = flags.data();
  const std::uint32_t* v = vid.data();
  const std::uint32_t* p = part.data();
  exec.for_each(k, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    first[i] = i == 0 || v[i] != v[i - 1] || p[i] != p[i - 1];
    if (first[i]) core::atomic_add(&offsets[v[i]], 1u);
  });
  exec.exclusive_sum(offsets, offsets, out.offsets.size());
  const std::size_t unique = exec.select_flagged_indices(first, selected.data(), k);
  out.parts.resize(unique);
  gather(exec, p, selected.data(), unique, out.parts.data());
}

/// The clash regions of the pipeline's last frame (see the file comment). Synchronizes `stream`.
template <class Exec>
RawClash find_clash_regions(const detail::PipelineBackend& pipeline,
                            const Grid& g,
                            bool with_voxels,
                            Stream stream) {
  constexpr Backend B = Exec::kBackend;
  Exec exec(stream);
  RawClash raw;

  // The intersection voxels: model 0's voxels labelled Intersection (model 1 has the same set).
  const auto voxels   = pipeline.voxels(0);
  const auto labels   = pipeline.labels(0);
  const std::size_t n = voxels.size();
  if (n == 0) return raw;
  Buffer<std::uint8_t> flags(B, n);
  Buffer<std::uint32_t> selected(B, n);
  {
    std::uint8_t* f     = flags.data();
    const VoxelLabel* l = labels.data();
    exec.for_each(n,
                  [=] VOXHASH_LAMBDA(std::uint32_t i) { f[i] = l[i] == VoxelLabel::Intersection; });
  }
  const auto m =
      static_cast<std::uint32_t>(exec.select_flagged_indices(flags.data(), selected.data(), n));
  if (m == 0) return raw;
  Buffer<Key> keys(B, m);
  gather(exec, voxels.data(), selected.data(), m, keys.data());

  // Their own table numbers them 0..m-1 (ids) and answers the neighbour probes.
  BuildOptions options;
  options.unique_ids     = true;
  options.multiplicities = false;
  tables::CuckooTableImpl<Exec> table(options);
  table.build(keys.data(), nullptr, m, stream);
  const CuckooRef ids = table.ref();
  const Key* id_keys  = table.unique_keys();

  // Regions: union-find over the 26-neighbours (no voxel is a barrier here), roots numbered.
  Buffer<std::uint8_t> no_barrier(B, m);
  Buffer<std::uint32_t> parent(B, m), region(B, m);
  exec.fill(no_barrier.data(), m, std::uint8_t{0});
  pipeline::connect_components(exec, ids, g, id_keys, m, no_barrier.data(), parent.data());
  pipeline::flag_roots(exec, m, no_barrier.data(), parent.data(), flags.data());
  const auto regions =
      static_cast<std::uint32_t>(exec.select_flagged_indices(flags.data(), selected.data(), m));
  {
    std::uint32_t* r          = region.data();
    const std::uint32_t* root = selected.data();
    const std::uint32_t* p    = parent.data();
    exec.for_each(regions, [=] VOXHASH_LAMBDA(std::uint32_t i) { r[root[i]] = i; });
    exec.for_each(m, [=] VOXHASH_LAMBDA(std::uint32_t v) {
      if (p[v] != v) r[v] = r[p[v]];
    });
  }
  Buffer<core::RegionSums> sums(B, regions);
  exec.fill(sums.data(), regions, core::RegionSums{});
  {
    core::RegionSums* s    = sums.data();
    const std::uint32_t* r = region.data();
    exec.for_each(m, [=] VOXHASH_LAMBDA(std::uint32_t v) {
      core::add_to_region(s, r[v], g.cell(id_keys[v]));
    });
  }

  // Part pairs: each voxel's parts of A crossed with its parts of B, one record per combination.
  std::array<PartSets<Exec>, 2> sets;
  for (int i = 0; i < 2; ++i) {
    Buffer<std::uint32_t> scratch(B, 0);
    voxel_part_sets(exec, ids, m, pipeline.part_pairs(i, scratch), sets[i]);
  }
  Buffer<std::uint32_t> combos(B, std::size_t{m} + 1);
  {
    std::uint32_t* c        = combos.data();
    const std::uint32_t* oa = sets[0].offsets.data();
    const std::uint32_t* ob = sets[1].offsets.data();
    exec.for_each(std::size_t{m} + 1, [=] VOXHASH_LAMBDA(std::uint32_t v) {
      c[v] = v == m ? 0u : (oa[v + 1] - oa[v]) * (ob[v + 1] - ob[v]);
    });
  }
  exec.exclusive_sum(combos.data(), combos.data(), std::size_t{m} + 1);
  const std::size_t t = exec.read(combos.data() + m);
  Buffer<std::uint32_t> rec_region(B, t), rec_a(B, t), rec_b(B, t);
  {
    std::uint32_t *rr = rec_region.data(), *ra = rec_a.data(), *rb = rec_b.data();
    const std::uint32_t* c  = combos.data();
    const std::uint32_t* r  = region.data();
    const std::uint32_t* oa = sets[0].offsets.data();
    const std::uint32_t* ob = sets[1].offsets.data();
    const std::uint32_t* pa = sets[0].parts.data();
    const std::uint32_t* pb = sets[1].parts.data();
    exec.for_each(m, [=] VOXHASH_LAMBDA(std::uint32_t v) {
      std::uint32_t at = c[v];
      for (std::uint32_t a = oa[v]; a < oa[v + 1]; ++a)
        for (std::uint32_t b = ob[v]; b < ob[v + 1]; ++b) {
          rr[at] = r[v];
          ra[at] = pa[a];
          rb[at] = pb[b];
          ++at;
        }
    });
  }
  // Sort the records by (region, part A, part B): stable sorts of a permutation, least
  // significant field first; then count each run.
  Buffer<std::uint32_t> order(B, t), sort_keys(B, t), keys_tmp(B, t), order_tmp(B, t);
  iota(exec, order.data(), t);
  const std::array<std::pair<const std::uint32_t*, int>, 3> fields{
      {{rec_b.data(), 32}, {rec_a.data(), 32}, {rec_region.data(), bits_for(regions)}}};
  for (const auto& [field, bits] : fields) {
    gather(exec, field, order.data(), t, sort_keys.data());
    sort_in_place(exec, sort_keys.data(), order.data(), keys_tmp.data(), order_tmp.data(), t, bits);
  }
  Buffer<std::uint8_t> starts(B, t);
  Buffer<std::uint32_t> start_index(B, t + 1);
  {
    std::uint8_t* s         = starts.data();
    const std::uint32_t* o  = order.data();
    const std::uint32_t* rr = rec_region.data();
    const std::uint32_t* ra = rec_a.data();
    const std::uint32_t* rb = rec_b.data();
    exec.for_each(t, [=] VOXHASH_LAMBDA(std::uint32_t i) {
      s[i] = i == 0 || rr[o[i]] != rr[o[i - 1]] || ra[o[i]] != ra[o[i - 1]] ||
             rb[o[i]] != rb[o[i - 1]];
    });
  }
  const std::size_t u = exec.select_flagged_indices(starts.data(), start_index.data(), t);
  Buffer<core::PartTriple> triples(B, u);
  {
    core::PartTriple* out   = triples.data();
    const std::uint32_t* st = start_index.data();
    const std::uint32_t* o  = order.data();
    const std::uint32_t* rr = rec_region.data();
    const std::uint32_t* ra = rec_a.data();
    const std::uint32_t* rb = rec_b.data();
    const auto total        = static_cast<std::uint32_t>(t);
    const auto runs         = static_cast<std::uint32_t>(u);
    exec.for_each(u, [=] VOXHASH_LAMBDA(std::uint32_t i) {
      const std::uint32_t end = i + 1 < runs ? st[i + 1] : total;
      const std::uint32_t rec = o[st[i]];
      out[i]                  = {rr[rec], ra[rec], rb[rec], end - st[i]};
    });
  }

  raw.regions.resize(regions);
  exec.copy_to_host(raw.regions.data(), sums.data(), regions);
  raw.parts.resize(u);
  exec.copy_to_host(raw.parts.data(), triples.data(), u);
  if (with_voxels) {
    raw.keys.resize(m);
    raw.key_regions.resize(m);
    exec.copy_to_host(raw.keys.data(), id_keys, m);
    exec.copy_to_host(raw.key_regions.data(), region.data(), m);
  }
  exec.synchronize();
  return raw;
}

}  // namespace voxhash::clash

// The clash pass, written once over the executor (instantiated by ExecBackend in each backend's
// translation unit): the last frame's intersection voxels (in key order) get a cuckoo table of
// their own, each key stored with its rank, their dense id; union-find over their 26-neighbours
// (the flood fill's connect_components, neighbours found by probing that table) gives the regions;
// every voxel adds itself to its region's sums with atomics; each model's distinct (voxel, part)
// pairs there are inner-joined with the other's on the voxel key (join_impl.hpp), and the joined
// rows become (region, part A, part B) records, sorted and counted. The results are read back once,
// at the end. On 64-bit keys (a wide grid) the voxel table is a 64-bit cuckoo table and the join
// matches the voxels' dense ids, which number the intersection voxels' keys one to one (a 32-bit
// join key, never the sentinel: the join stays the hash join on the pipeline's table kind).
#pragma once

#include "clash/clash_raw.hpp"
#include "clash/part_clashes_impl.hpp"
#include "core/clash.hpp"
#include "join/join_impl.hpp"
#include "pipeline/frame_steps.hpp"
#include "pipeline/model_lanes.hpp"
#include "pipeline/pipeline_backend.hpp"
#include "pipeline/voxel_list.hpp"
#include "tables/slot_table_impl.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/join.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace voxhash::clash {

/// A model's distinct (voxel, part) pairs in the intersection voxels, one row each: the voxel's
/// key (what the join matches on; on 64-bit keys its dense id), its dense id (which gives its
/// region) and the part.
template <class Exec>
struct VoxelParts {
  Buffer<Key> keys{Exec::kBackend, 0};
  Buffer<std::uint32_t> ids{Exec::kBackend, 0}, parts{Exec::kBackend, 0};
};

/// The clash pass's memory, kept by the pipeline from one report to the next
/// (PipelineBackend::clash_state), so that a report on a moving scene allocates nothing once the
/// sizes have settled: the executor's temporary storage, the scratch slots (taken in the same order
/// every report), the intersection voxels' table at each key width, the part rows, the lanes the
/// two solids are built on and their scratch, the solids and the distance fields.
template <class Exec>
struct ClashWorkspace final : detail::PassState {
  Buffer<std::byte> temp{Exec::kBackend, 0};
  pipeline::Scratch<Exec> scratch;
  std::optional<tables::CuckooTableImpl<Exec, Key>> table32;
  std::optional<tables::CuckooTableImpl<Exec, Key64>> table64;
  std::array<VoxelParts<Exec>, 2> sides;
  Buffer<std::uint32_t> part_scratch{Exec::kBackend, 0};
  pipeline::ModelLanes<Exec> lanes;                      // the two solids' lanes
  std::array<pipeline::Scratch<Exec>, 2> solid_scratch;  // each lane's scratch slots
  std::array<pipeline::ModelSolid<Exec>, 2> solids;
  FieldScratch<Exec> fields;

  /// The intersection voxels' table on keys of width K: each key stored with its rank.
  template <class K>
  tables::CuckooTableImpl<Exec, K>& table() {
    auto& slot = [this]() -> auto& {
      if constexpr (std::is_same_v<K, Key>) {
        return table32;
      } else {
        return table64;
      }
    }
    ();
    if (!slot) {
      BuildOptions options;
      options.unique_ids     = false;
      options.multiplicities = false;
      slot.emplace(options);
    }
    return *slot;
  }
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

/// The key a part pair joins on for intersection voxel `id`: its voxel key on 32-bit keys; on
/// 64-bit keys the id itself (ids number the voxels one to one and fit the 32-bit join).
VOXHASH_HD Key join_key(const Key* id_keys, std::uint32_t id) {
  return id_keys[id];
}
VOXHASH_HD Key join_key(const Key64* /*id_keys*/, std::uint32_t id) {
  return id;
}

inline int bits_for(std::size_t max_value) {
  return std::max(1, static_cast<int>(std::bit_width(max_value)));
}

/// The distinct (voxel, part) pairs of a model's (key, part) pairs whose key is one of the
/// `voxel_count` intersection voxels (`ids` numbers them, id_keys[id] is id's key): the pairs
/// there are kept as (id, part), sorted by id then part (two stable sorts) and each run kept once.
template <class Exec, class K>
void distinct_voxel_parts(Exec& exec,
                          pipeline::VoxelIdRef<BasicCuckooRef<K>> ids,
                          const K* id_keys,
                          std::uint32_t voxel_count,
                          detail::PartPairs pairs,
                          pipeline::Scratch<Exec>& scratch,
                          VoxelParts<Exec>& out) {
  const std::size_t n     = pairs.count;
  std::uint32_t* id       = scratch.template take<std::uint32_t>(n);
  std::uint32_t* selected = scratch.template take<std::uint32_t>(n);
  std::uint8_t* flags     = scratch.template take<std::uint8_t>(n);
  {
    std::uint32_t* pid = id;
    std::uint8_t* f    = flags;
    const K* keys      = pairs.keys_as<K>();
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t j) {
      pid[j] = ids.find_id(keys[j]);
      f[j]   = pid[j] != kNotFound;
    });
  }
  const std::size_t k     = exec.select_flagged_indices(flags, selected, n);
  std::uint32_t* vid      = scratch.template take<std::uint32_t>(k);
  std::uint32_t* part     = scratch.template take<std::uint32_t>(k);
  std::uint32_t* vid_tmp  = scratch.template take<std::uint32_t>(k);
  std::uint32_t* part_tmp = scratch.template take<std::uint32_t>(k);
  gather(exec, id, selected, k, vid);
  {
    std::uint32_t* p          = part;
    const std::uint32_t* from = pairs.parts;
    const std::uint32_t* sel  = selected;
    exec.for_each(k, [=] VOXHASH_LAMBDA(std::uint32_t i) { p[i] = from ? from[sel[i]] : 0u; });
  }
  sort_in_place(exec, part, vid, part_tmp, vid_tmp, k, 32);
  sort_in_place(exec, vid, part, vid_tmp, part_tmp, k, bits_for(voxel_count));

  std::uint8_t* first    = flags;
  const std::uint32_t* v = vid;
  const std::uint32_t* p = part;
  exec.for_each(k, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    first[i] = i == 0 || v[i] != v[i - 1] || p[i] != p[i - 1];
  });
  const std::size_t unique = exec.select_flagged_indices(first, selected, k);
  out.keys.resize(unique);
  out.ids.resize(unique);
  out.parts.resize(unique);
  Key* keys                = out.keys.data();
  std::uint32_t* out_ids   = out.ids.data();
  std::uint32_t* out_parts = out.parts.data();
  const std::uint32_t* sel = selected;
  exec.for_each(unique, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    out_ids[i]   = v[sel[i]];
    out_parts[i] = p[sel[i]];
    keys[i]      = join_key(id_keys, v[sel[i]]);
  });
}

/// Output bytes per joined row the part-pair records need after the join (region, part A and part
/// B, then the three-field sort's permutation, keys and scratch, run starts): the join's output is
/// held to free memory over this share, and to 2^31 - 1 rows (32-bit record indices).
inline constexpr std::size_t kRecordBytesPerJoinByte = 5;
inline constexpr std::uint64_t kMaxJoinRows          = 0x7FFFFFFFull;

/// The inner join of A's and B's distinct (voxel, part) rows on the voxel key: every part of A and
/// part of B that share a voxel, as (row of A, row of B); over pages when the build side's table
/// exceeds `gpu_budget` (GpuBudget::pages). A crossing too large for the records is the join's size
/// error, naming the clash report.
template <class Exec>
JoinResult cross_parts(const std::array<VoxelParts<Exec>, 2>& sides,
                       TableKind table,
                       GpuBudget gpu_budget,
                       Stream stream) {
  JoinOptions options;
  options.kind             = JoinKind::Inner;
  options.table            = join_table_for(table);
  options.gpu_budget       = gpu_budget;
  options.max_output_bytes = static_cast<std::size_t>(std::min<std::uint64_t>(
      free_memory(Exec::kBackend) / kRecordBytesPerJoinByte, kMaxJoinRows * 2 * sizeof(Value)));
  const JoinInput a{sides[0].keys.data(), nullptr, sides[0].keys.size()};
  const JoinInput b{sides[1].keys.data(), nullptr, sides[1].keys.size()};
  try {
    return joins::JoinRun<Exec>(options, stream).run(a, b);
  } catch (const OutOfMemory& e) {
    throw OutOfMemory(
        std::string("clash report: the parts of A and B that share intersection voxels, one row "
                    "per pair of parts in a voxel: ") +
        e.what());
  }
}

/// The clash regions of the pipeline's last frame on keys of width K (see the file comment).
template <class Exec, class K>
RawClash find_clash_regions_as(const detail::PipelineBackend& pipeline,
                               const Grid& g,
                               TableKind join_table,
                               GpuBudget join_budget,
                               bool with_voxels,
                               Stream stream,
                               ClashWorkspace<Exec>& work) {
  Exec exec(stream, &work.temp);
  pipeline::Scratch<Exec>& scratch = work.scratch;
  RawClash raw;

  // The intersection voxels: model 0's voxels labelled Intersection (model 1 has the same set).
  std::span<const K> voxels;
  if constexpr (std::is_same_v<K, Key>) {
    voxels = pipeline.voxels(0);
  } else {
    voxels = pipeline.voxels64(0);
  }
  const auto labels   = pipeline.labels(0);
  const std::size_t n = voxels.size();
  if (n == 0) return raw;
  std::uint8_t* flags     = scratch.template take<std::uint8_t>(n);
  std::uint32_t* selected = scratch.template take<std::uint32_t>(n);
  {
    std::uint8_t* f     = flags;
    const VoxelLabel* l = labels.data();
    exec.for_each(n,
                  [=] VOXHASH_LAMBDA(std::uint32_t i) { f[i] = l[i] == VoxelLabel::Intersection; });
  }
  const auto m = static_cast<std::uint32_t>(exec.select_flagged_indices(flags, selected, n));
  if (m == 0) return raw;
  K* keys = scratch.template take<K>(m);
  gather(exec, voxels.data(), selected, m, keys);

  // The frame's voxels ascend, so these keys do too, each once: a voxel's id is its rank here, as
  // in the frame (what the union-find's +x compare needs), and their own table, each key stored
  // with its rank, answers the neighbour probes.
  tables::CuckooTableImpl<Exec, K>& table = work.template table<K>();
  table.build(keys, nullptr, m, stream);
  const pipeline::VoxelIdRef<BasicCuckooRef<K>> ids{table.ref()};
  const K* id_keys = keys;

  // Regions: union-find over the 26-neighbours (no voxel is a barrier here), roots numbered.
  std::uint8_t* no_barrier = scratch.template take<std::uint8_t>(m);
  std::uint32_t* parent    = scratch.template take<std::uint32_t>(m);
  std::uint32_t* region    = scratch.template take<std::uint32_t>(m);
  std::uint32_t* common    = scratch.template take<std::uint32_t>(2);
  exec.fill(no_barrier, m, std::uint8_t{0});
  pipeline::connect_components(exec,
                               ids,
                               g,
                               id_keys,
                               m,
                               no_barrier,
                               parent,
                               common,
                               region);  // scratch until the regions are numbered
  pipeline::flag_roots(exec, m, no_barrier, parent, flags);
  const auto regions = static_cast<std::uint32_t>(exec.select_flagged_indices(flags, selected, m));
  {
    std::uint32_t* r          = region;
    const std::uint32_t* root = selected;
    const std::uint32_t* p    = parent;
    exec.for_each(regions, [=] VOXHASH_LAMBDA(std::uint32_t i) { r[root[i]] = i; });
    exec.for_each(m, [=] VOXHASH_LAMBDA(std::uint32_t v) {
      if (p[v] != v) r[v] = r[p[v]];
    });
  }
  core::RegionSums* sums = scratch.template take<core::RegionSums>(regions);
  exec.fill(sums, regions, core::RegionSums{});
  {
    core::RegionSums* s    = sums;
    const std::uint32_t* r = region;
    exec.for_each(m, [=] VOXHASH_LAMBDA(std::uint32_t v) {
      core::add_to_region(s, r[v], g.cell(id_keys[v]));
    });
  }

  // Part pairs: each model's distinct (voxel, part) rows inner-joined with the other's on the
  // voxel key; each output row, one part of A and one of B in one voxel, becomes a (region,
  // part A, part B) record.
  std::array<VoxelParts<Exec>, 2>& sides = work.sides;
  for (int i = 0; i < 2; ++i) {
    distinct_voxel_parts(
        exec, ids, id_keys, m, pipeline.part_pairs(i, work.part_scratch), scratch, sides[i]);
  }
  std::size_t t             = 0;
  std::uint32_t* rec_region = nullptr;
  std::uint32_t* rec_a      = nullptr;
  std::uint32_t* rec_b      = nullptr;
  {
    const JoinResult joined = cross_parts<Exec>(sides, join_table, join_budget, stream);
    t                       = joined.rows;
    rec_region              = scratch.template take<std::uint32_t>(t);
    rec_a                   = scratch.template take<std::uint32_t>(t);
    rec_b                   = scratch.template take<std::uint32_t>(t);
    std::uint32_t *rr = rec_region, *ra = rec_a, *rb = rec_b;
    const Value* row_a       = joined.left.data();
    const Value* row_b       = joined.right.data();
    const std::uint32_t* r   = region;
    const std::uint32_t* ida = sides[0].ids.data();
    const std::uint32_t* pa  = sides[0].parts.data();
    const std::uint32_t* pb  = sides[1].parts.data();
    exec.for_each(t, [=] VOXHASH_LAMBDA(std::uint32_t i) {
      rr[i] = r[ida[row_a[i]]];
      ra[i] = pa[row_a[i]];
      rb[i] = pb[row_b[i]];
    });
    exec.synchronize();  // the join's output is freed on leaving this scope
  }
  // Sort the records by (region, part A, part B): stable sorts of a permutation, least
  // significant field first; then count each run.
  std::uint32_t* order     = scratch.template take<std::uint32_t>(t);
  std::uint32_t* sort_keys = scratch.template take<std::uint32_t>(t);
  std::uint32_t* keys_tmp  = scratch.template take<std::uint32_t>(t);
  std::uint32_t* order_tmp = scratch.template take<std::uint32_t>(t);
  iota(exec, order, t);
  const std::array<std::pair<const std::uint32_t*, int>, 3> fields{
      {{rec_b, 32}, {rec_a, 32}, {rec_region, bits_for(regions)}}};
  for (const auto& [field, bits] : fields) {
    gather(exec, field, order, t, sort_keys);
    sort_in_place(exec, sort_keys, order, keys_tmp, order_tmp, t, bits);
  }
  std::uint8_t* starts       = scratch.template take<std::uint8_t>(t);
  std::uint32_t* start_index = scratch.template take<std::uint32_t>(t + 1);
  {
    std::uint8_t* s         = starts;
    const std::uint32_t* o  = order;
    const std::uint32_t* rr = rec_region;
    const std::uint32_t* ra = rec_a;
    const std::uint32_t* rb = rec_b;
    exec.for_each(t, [=] VOXHASH_LAMBDA(std::uint32_t i) {
      s[i] = i == 0 || rr[o[i]] != rr[o[i - 1]] || ra[o[i]] != ra[o[i - 1]] ||
             rb[o[i]] != rb[o[i - 1]];
    });
  }
  const std::size_t u       = exec.select_flagged_indices(starts, start_index, t);
  core::PartTriple* triples = scratch.template take<core::PartTriple>(u);
  {
    core::PartTriple* out   = triples;
    const std::uint32_t* st = start_index;
    const std::uint32_t* o  = order;
    const std::uint32_t* rr = rec_region;
    const std::uint32_t* ra = rec_a;
    const std::uint32_t* rb = rec_b;
    const auto total        = static_cast<std::uint32_t>(t);
    const auto runs         = static_cast<std::uint32_t>(u);
    exec.for_each(u, [=] VOXHASH_LAMBDA(std::uint32_t i) {
      const std::uint32_t end = i + 1 < runs ? st[i + 1] : total;
      const std::uint32_t rec = o[st[i]];
      out[i]                  = {rr[rec], ra[rec], rb[rec], end - st[i]};
    });
  }

  raw.regions.resize(regions);
  exec.copy_to_host(raw.regions.data(), sums, regions);
  raw.parts.resize(u);
  exec.copy_to_host(raw.parts.data(), triples, u);
  if (with_voxels) {
    std::vector<K> host_keys(m);
    raw.key_regions.resize(m);
    exec.copy_to_host(host_keys.data(), id_keys, m);
    exec.copy_to_host(raw.key_regions.data(), region, m);
    raw.keys.assign(host_keys.begin(), host_keys.end());
  }
  exec.synchronize();
  return raw;
}

/// The clash pass over the pipeline's last frame: the regions (see the file comment) on the frame's
/// key width, with the part pairs' join on pass.join_table where join() can (join_table_for), over
/// pages beyond pass.join_budget; and where both models are meshes, their solids and
/// part-pair clashes (part_clashes_impl.hpp). Synchronizes pass.stream.
template <class Exec>
RawClash find_clashes(const detail::PipelineBackend& pipeline,
                      const Grid& g,
                      const ClashPass& pass) {
  Stopwatch clock;
  std::unique_ptr<detail::PassState>& state = pipeline.clash_state();
  if (!dynamic_cast<ClashWorkspace<Exec>*>(state.get())) {
    state = std::make_unique<ClashWorkspace<Exec>>();
  }
  auto& work = static_cast<ClashWorkspace<Exec>&>(*state);
  work.scratch.restart();
  RawClash raw =
      pipeline.key_bits() == 64
          ? find_clash_regions_as<Exec, Key64>(
                pipeline, g, pass.join_table, pass.join_budget, pass.with_voxels, pass.stream, work)
          : find_clash_regions_as<Exec, Key>(pipeline,
                                             g,
                                             pass.join_table,
                                             pass.join_budget,
                                             pass.with_voxels,
                                             pass.stream,
                                             work);
  raw.ms.regions                   = clock.lap();
  const detail::MeshView meshes[2] = {pipeline.mesh(0), pipeline.mesh(1)};
  if (meshes[0].triangle_count == 0 || meshes[1].triangle_count == 0) {
    raw.ms.total = raw.ms.regions;
    return raw;
  }
  Exec exec(pass.stream, &work.temp);
  std::uint32_t parts[2];
  for (int i = 0; i < 2; ++i) {  // the frame's part counts and open edges where it has them
    parts[i] = meshes[i].open_edges ? meshes[i].part_count
                                    : pipeline::part_count(exec, meshes[i], work.scratch);
  }
  raw.solids  = true;
  raw.samples = pipeline::sample_grid(g, pass.columns_per_voxel, std::max(parts[0], parts[1]));
  // The two solids side by side (on the GPU each on a lane of its own, so one model's waits for
  // sizes never hold the other's launches); the part clashes read both after the join.
  work.lanes.fork(exec);
  work.lanes.run(Exec::kBackend == Backend::Cuda, [&](int i) {
    work.solid_scratch[i].restart();
    pipeline::build_solid(work.lanes.exec(i),
                          raw.samples,
                          meshes[i],
                          parts[i],
                          work.solids[i],
                          work.solid_scratch[i],
                          meshes[i].open_edges);
  });
  work.lanes.join(exec);
  for (int i = 0; i < 2; ++i) {
    for (std::uint32_t p = 0; p < work.solids[i].parts; ++p) {
      if (work.solids[i].open[p]) raw.open_parts[i].push_back(p);
    }
  }
  raw.ms.solids = clock.lap();
  find_part_clashes(
      exec, work.solids[0], work.solids[1], pass.clearance, raw, work.scratch, work.fields, clock);
  raw.ms.total = raw.ms.regions + raw.ms.solids + raw.ms.overlaps + raw.ms.depths + raw.ms.gaps;
  return raw;
}

}  // namespace voxhash::clash

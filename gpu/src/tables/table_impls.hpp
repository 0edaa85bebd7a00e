// The private half of the table list (voxhash/table_traits.hpp): each table's implementation over
// an executor, TableImpl<Traits, Exec, K>, and how one is made (its constructor's arguments:
// HashGraph's also take its version). Wherever a table is a run-time choice of kind (make_table,
// the frame's algorithm, the join's table) it is made through here.
#pragma once

#include "tables/hash_graph_impl.hpp"
#include "tables/paged_table_impl.hpp"
#include "tables/slot_table_impl.hpp"

#include <voxhash/table_traits.hpp>

#include <memory>
#include <tuple>
#include <type_traits>
#include <variant>

namespace voxhash::tables {

/// A table made from its build options alone.
template <class Impl>
struct MadeFromOptions {
  using type = Impl;
  static std::tuple<const BuildOptions&> args(const BuildOptions& options) { return {options}; }
};

/// A table made from its kind and its build options (HashGraph: V1 or V2).
template <class Impl, TableKind kKind>
struct MadeFromKind {
  using type = Impl;
  static std::tuple<TableKind, const BuildOptions&> args(const BuildOptions& options) {
    return {kKind, options};
  }
};

/// The implementation of the table `Traits` over Exec for keys K (`type`) and its constructor's
/// arguments for a set of build options (`args`): one line per table of Tables.
template <class Traits, class Exec, class K>
struct TableImplOf;

template <class Exec, class K>
struct TableImplOf<CuckooTraits, Exec, K> : MadeFromOptions<CuckooTableImpl<Exec, K>> {};
template <class Exec, class K>
struct TableImplOf<HashGraphV1Traits, Exec, K>
    : MadeFromKind<HashGraphImpl<Exec, K>, TableKind::HashGraphV1> {};
template <class Exec, class K>
struct TableImplOf<HashGraphV2Traits, Exec, K>
    : MadeFromKind<HashGraphImpl<Exec, K>, TableKind::HashGraphV2> {};
template <class Exec, class K>
struct TableImplOf<BucketedCuckooTraits, Exec, K>
    : MadeFromOptions<BucketedCuckooTableImpl<Exec, K>> {};
template <class Exec, class K>
struct TableImplOf<PagedCuckooTraits, Exec, K> : MadeFromOptions<PagedCuckooTableImpl<Exec, K>> {};

template <class Traits, class Exec, class K = Key>
using TableImpl = typename TableImplOf<Traits, Exec, K>::type;

/// A new, empty table of `Traits` over Exec, made with `options`.
template <class Traits, class Exec, class K = Key>
std::unique_ptr<TableImpl<Traits, Exec, K>> make_table_impl(const BuildOptions& options) {
  return std::apply(
      [](const auto&... args) { return std::make_unique<TableImpl<Traits, Exec, K>>(args...); },
      TableImplOf<Traits, Exec, K>::args(options));
}

/// Replaces what `tables` (a std::variant with the table's type among its alternatives) holds by
/// a new, empty table of `Traits` over Exec, made with `options`; returns it.
template <class Traits, class Exec, class K, class Variant>
TableImpl<Traits, Exec, K>& emplace_table_impl(Variant& tables, const BuildOptions& options) {
  return std::apply(
      [&](const auto&... args) -> TableImpl<Traits, Exec, K>& {
        return tables.template emplace<TableImpl<Traits, Exec, K>>(args...);
      },
      TableImplOf<Traits, Exec, K>::args(options));
}

/// Variant, with T as its last alternative unless it has it already.
template <class Variant, class T>
struct WithAlternative;
template <class... A, class T>
struct WithAlternative<std::variant<A...>, T> {
  using type =
      std::conditional_t<(std::is_same_v<A, T> || ...), std::variant<A...>, std::variant<A..., T>>;
};

/// Variant with the implementation of every frame algorithm of `List` added, each type once.
template <class Exec, class K, class Variant, class List>
struct WithFrameTables {
  using type = Variant;
};
template <class Exec, class K, class Variant, class Traits, class... Rest>
struct WithFrameTables<Exec, K, Variant, TableList<Traits, Rest...>> {
  using with =
      std::conditional_t<Traits::frame_algorithm,
                         typename WithAlternative<Variant, TableImpl<Traits, Exec, K>>::type,
                         Variant>;
  using type = typename WithFrameTables<Exec, K, with, TableList<Rest...>>::type;
};

/// Variant with More... as its last alternatives.
template <class Variant, class... More>
struct Appended;
template <class... A, class... More>
struct Appended<std::variant<A...>, More...> {
  using type = std::variant<A..., More...>;
};

/// std::variant<std::monostate, every frame algorithm's implementation over Exec for keys K (each
/// type once, in the list's order), More...>: a frame's table, of whichever algorithm it runs.
template <class Exec, class K, class... More>
using FrameTableVariant =
    typename Appended<typename WithFrameTables<Exec, K, std::variant<std::monostate>, Tables>::type,
                      More...>::type;

}  // namespace voxhash::tables

// Backend-neutral facts about the joins: the names of the join kinds and sides, as the bench's
// command line and the reports spell them, and the tables a hash join builds on.
#include <voxhash/error.hpp>
#include <voxhash/join.hpp>

#include <string>

namespace voxhash {

std::string_view to_string(JoinKind kind) {
  switch (kind) {
    case JoinKind::Inner:
      return "inner";
    case JoinKind::Left:
      return "left";
    case JoinKind::Semi:
      return "semi";
    case JoinKind::Anti:
      return "anti";
  }
  return "?";
}

std::string_view to_string(JoinSide side) {
  return side == JoinSide::Left ? "left" : "right";
}

JoinKind parse_join_kind(std::string_view name) {
  for (const JoinKind kind : {JoinKind::Inner, JoinKind::Left, JoinKind::Semi, JoinKind::Anti}) {
    if (name == to_string(kind)) return kind;
  }
  throw InvalidInput("unknown join kind '" + std::string(name) +
                     "' (expected inner, left, semi or anti)");
}

TableKind join_table_for(TableKind kind) {
  return visit_table(kind, [](auto traits) { return traits.paged; }) ? TableKind::Cuckoo : kind;
}

}  // namespace voxhash

#include "ckpt/format/value.h"

namespace ckpt::format {

// Defined out of line: Value is incomplete where the composites are declared.
bool Tuple::operator==(const Tuple& o) const { return fields == o.fields; }
bool List::operator==(const List& o) const { return elements == o.elements; }
bool Map::operator==(const Map& o) const { return entries == o.entries; }

}  // namespace ckpt::format

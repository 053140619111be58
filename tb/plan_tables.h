// The columns of the planner's tables, named once: memory_plan.csv / plan_memory.csv (one row per
// planned buffer) and plan_lowering.csv (one row per layer). The CSV writers and the Python
// module's plan() both walk these, so a column added here appears in both.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/common/csv.h"
#include "planner/lower/lowering.h"

namespace strider {

// Calls f(column, value) for each column of a memory-plan row, in file order.
template <typename F>
void for_each_memory_plan_field(const PlannedBuffer& b, F&& f) {
  f("tensor", b.tensor);
  f("kind", b.kind);
  f("offset", b.offset);
  f("size", b.size);
  f("first", b.first);
  f("last", b.last);
}

// Calls f(column, value) for each column of a lowering row, in file order.
template <typename F>
void for_each_lowering_field(const LayerReport& l, F&& f) {
  f("layer", l.name);
  f("op", l.op);
  f("tiles", l.tiles);
  f("macs", l.macs);
  f("weight_bytes", l.weight_bytes);
  f("fill_bytes", l.fill_bytes);
  f("spill_bytes", l.spill_bytes);
  f("copy_bytes", l.copy_bytes);
  f("input_bytes", l.input_bytes);
  f("output_bytes", l.output_bytes);
  f("batch_order", l.batch_order);
}

// Writes `rows` as CSV: a header of the columns `visit(row, f)` names, then one line per row.
template <typename Row, typename Visit>
void write_csv_table(std::ostream& out, const std::vector<Row>& rows, Visit visit) {
  csv::Writer header(out);
  visit(Row{}, [&](const char* column, const auto&) { header << std::string(column); });
  header.end_row();
  for (const Row& r : rows) {
    csv::Writer w(out);
    visit(r, [&](const char*, const auto& value) { w << value; });
    w.end_row();
  }
}

}  // namespace strider

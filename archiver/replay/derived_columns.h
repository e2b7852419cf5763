// Derived metrics in a replay (pmrep -e, pmRegisterDerived(3)): the
// definitions checked against the archives' metadata (format/derive), the
// raw metrics they read added to what the stream decodes, and each row of
// those operands turned into the row the outputs show: the raw metrics the
// user chose, then each derived metric's columns (one, or one per instance
// of its instance domain), its values computed at every row as libpcp
// computes them at every fetch. A derived counter is shown as a rate, as
// pmrep shows one, unless raw.
//
// A row at a <mark> has no derived values; delta() and rate() go across
// it, as libpcp's do (it evaluates nothing for a result without metrics).
// Memory: the evaluators keep the previous fetch's operand values per
// delta()/rate(), nothing more.
#ifndef MMVLOG_ARCHIVER_REPLAY_DERIVED_COLUMNS_H_
#define MMVLOG_ARCHIVER_REPLAY_DERIVED_COLUMNS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "archiver/replay/archive_set.h"
#include "archiver/replay/columns.h"
#include "archiver/replay/row.h"
#include "archiver/replay/selection.h"
#include "format/derive/derive_config.h"
#include "format/derive/derive_desc.h"
#include "format/derive/derive_eval.h"
#include "format/derive/derive_parser.h"

namespace mmvlog::archiver {

// Where PCP's versions differ in derived metrics, the rules to follow (the
// installed PCP's, cmd/replay.cc: what a user compares replay with).
struct DeriveRules {
  // ?: binds lazily (PCP 6.2.2 and later): format::CheckDerived's.
  bool lazy_ternary = true;
  // Operands keep PCP 7.2's extra units (voltage, power, ...); before 7.2
  // those bits meant nothing, so `volt + 1` was taken and its units none.
  bool extra_units = true;
};

class DerivedColumns {
 public:
  // The definitions `user` chooses (by name, a prefix of it, or all when
  // it names none), parsed and checked against `archives`' metadata; one
  // whose name the archives hold is left out (their metric is shown, as
  // pmrep does). Errors: InvalidArgument with libpcp's syntax or semantic error.
  // `rules`: where PCP's versions differ, which to follow.
  static absl::StatusOr<std::unique_ptr<DerivedColumns>> Prepare(
      const std::vector<format::DerivedDefinition>& defs, const ArchiveSet& archives,
      const Selection& user, const DeriveRules& rules = {});

  // Whether no definition was chosen (the raw columns go straight through).
  bool empty() const { return derived_.empty(); }
  // The chosen optional definitions (a set's formulas, PCP's global ones)
  // whose operands the archives lack: libpcp still lists their names, and
  // refuses them when looked up (PM_ERR_BADDERIVE).
  const std::vector<std::string>& unbound() const { return unbound_; }

  // What the stream must decode: the user's raw metrics and every operand.
  const Selection& operands() const { return operand_selection_; }

  // Builds the shown columns once the operand columns are known (nothing
  // of `operands` is kept).
  void Bind(const ColumnSet& operands);
  // ReplayPlan::rate_wraps_backwards.
  void RateWrapsBackwards(bool wraps) { rate_wraps_backwards_ = wraps; }
  const ColumnSet& shown() const { return shown_; }
  // Per column of the operands given to Bind: whether it is shown as it is
  // (a raw metric the user chose); the others are only read.
  std::vector<uint8_t> ShownOperands(size_t operand_columns) const;

  // The shown row of a row of `operands` (those given to Bind), valid
  // until the next call.
  const Row& Project(const ColumnSet& operands, const Row& in, bool raw);

 private:
  struct Derived {
    std::string name;
    std::string expr;
    format::DeriveParse parse;
    format::DeriveCheck check;
    std::unique_ptr<format::DeriveEvaluator> eval;
    size_t metric = 0;  // in shown_
    absl::flat_hash_map<int32_t, size_t> column_of_inst;  // shown column
    // Per position of its values: the instance last there and its column.
    std::vector<std::pair<int32_t, size_t>> column_at;
    std::vector<size_t> reads;  // the operand metrics it names
  };
  // Where derived metric `d` has no value at row `in` because an operand it
  // reads had values only of instances without a name (no column), marks
  // it so too (Row::empty_sets): libpcp computed values for them, so pmrep
  // shows none rather than keeping a discrete metric's last.
  void MarkUnnamed(const Derived& d, const Row& in);
  // The value at row `in` of a singular operand (`columns`: its one
  // column) stored under an instance and so kept out of the cells
  // (Row::off_null); nullptr: none.
  static const Row::OffNull* OffNullOf(const Row& in, const std::vector<size_t>& columns);

  Selection operand_selection_;
  std::vector<std::string> raw_names_;  // the user's names that are not derived
  bool all_raw_ = false;                // the user named no metric
  bool rate_wraps_backwards_ = false;
  // Made before the evaluators that keep references to it.
  format::DeriveShared shared_;
  std::vector<std::unique_ptr<Derived>> derived_;
  std::vector<std::string> unbound_;
  ColumnSet shown_;
  std::vector<size_t> raw_source_;         // per raw shown column: its operand column
  std::vector<size_t> raw_metric_source_;  // per raw shown metric: its operand metric
  absl::flat_hash_map<std::string, size_t> operand_metric_;  // by name
  absl::flat_hash_map<uint64_t, std::string> instance_name_;  // (indom, inst)
  // Per shown column of a derived counter: its previous value and time.
  std::vector<uint8_t> prev_has_;
  std::vector<long double> prev_value_;
  std::vector<double> prev_time_;
  // Per operand metric, its values at the row `operand_cache_row_` says
  // (a serial, bumped each row).
  std::vector<format::DeriveValues> operand_cache_;
  std::vector<uint64_t> operand_cache_row_;
  // The same as integers (format::DeriveFetch::integers), where they are.
  std::vector<format::DeriveIntegers> operand_ints_;
  std::vector<std::vector<uint64_t>> operand_bits_;  // where they are gathered
  std::vector<std::vector<int32_t>> operand_insts_;  // their instances
  std::vector<std::vector<int32_t>> operand_own_insts_;  // of each metric's own columns
  std::vector<uint8_t> operand_side_by_side_;  // columns c, c + 1, ... in order
  // Per operand metric, its columns in the order of libpcp's interpolated
  // results, and whether that is their own.
  std::vector<std::vector<size_t>> operand_grid_order_;
  std::vector<uint8_t> operand_grid_same_;
  std::vector<size_t> operand_record_order_;  // OperandOrder's at a record
  std::vector<size_t> operand_merged_order_;  // the same with unnamed values
  // Operand metric `m`'s columns in the order libpcp lists its values at
  // row `in`: on a grid, the interpolated results'; at a record, the
  // record's, with the row's values of m's instances that have no column
  // (Row::unnamed) where the record had them, as columns past the end
  // (operands.size() + their index). A reference to its own columns where
  // that is their order; else valid until the next call.
  const std::vector<size_t>& OperandOrder(const ColumnSet& operands, const Row& in, size_t m);
  // The value at an OperandOrder column (kNoValue: none).
  struct Operand {
    ValueKind kind;
    uint64_t bits;
    int32_t inst;
  };
  static Operand ValueAt(const ColumnSet& operands, const Row& in, size_t c);
  std::vector<uint64_t> operand_ints_row_;
  std::vector<uint8_t> operand_ints_ok_;
  uint64_t row_serial_ = 0;
  int64_t epoch_ = 0;  // the first row's second: times are kept from it
  bool epoch_set_ = false;
  Row row_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_DERIVED_COLUMNS_H_

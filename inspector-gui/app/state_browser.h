// StateBrowser: the key/value table of one operator's state (StateTableModel, read in pages off
// the GUI thread), with operator/state pickers, a filter (exact JSON of the key type, key
// prefix or substring, or a part of the value; Return applies it), sorting by a column (header
// click), a key-group filter, go to row / key group, the shown
// range of the total ("1–50 of 1,000,000"), and export of the selected rows as JSON. GUI
// thread only.
#pragma once

#include <QWidget>
#include <memory>

#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/stats.h"
#include "models/state_table_model.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;
class QTableView;
class QLabel;
class QPushButton;

namespace ckpt::inspector {

class StateBrowser : public QWidget {
  Q_OBJECT

 public:
  explicit StateBrowser(QWidget* parent = nullptr);
  // Browses `snapshot`'s state, read through `fs` (process-lifetime).
  void setSnapshot(base::Fs& fs, std::shared_ptr<const ops::Snapshot> snapshot);
  // Shows nothing (no snapshot open).
  void clearSnapshot();
  // With the snapshot's statistics in: while nobody chose an operator or state, moves the
  // default selection to the first state ops counted entries in (null `stats`: no change).
  void setStats(const std::shared_ptr<const ops::StatsReport>& stats);
  // Selects operator `id_hex` and state `state` (empty = first state).
  void showState(const QString& id_hex, const QString& state);
  void applyFilter(const QString& key_json, int key_group,
                   StateTableModel::KeyMatch match = StateTableModel::KeyMatch::kExact);  // key_group -1 = all
  // Sorts the rows by `column` (StateTableModel::Column; -1 restores ops' order) when the
  // model can (StateTableModel::sort); otherwise says why below the table.
  void sortRows(int column, Qt::SortOrder order = Qt::AscendingOrder);
  // Scrolls to and selects row `row` (0-based); false if there is no such row.
  bool goToRow(int row);
  // Scrolls to the first row of key group `key_group`; false if it has no rows (or is not
  // counted yet).
  bool goToKeyGroup(int key_group);
  // "Rows 1–50 of 1,000,000" (or "of at least N" while counting).
  QString rangeText() const;
  // Writes the selected rows as JSON to `path`; false (and a status message) on failure.
  bool exportSelection(const QString& path);
  StateTableModel* model() const { return m_model; }
  QTableView* view() const { return m_view; }
  void focusFilter();
  QString currentOperator() const;
  // Whether the chosen state offers the exact-key and the key-group filter (keyed state).
  bool exactKeyFilterEnabled() const;
  bool keyGroupFilterEnabled() const;
  // The current row's record (StateTableModel's record roles): file -1 when there is none (no
  // row, an entry without a container record, or its page not read yet).
  struct SelectedRecord {
    int file = -1;
    uint64_t offset = 0;
    uint64_t length = 0;
  };
  SelectedRecord currentRecord() const;

 Q_SIGNALS:
  void entrySelected(const QString& description);
  // The selected row's operator (id hex), subtask and key group (-1 when not keyed), emitted
  // before entrySelected so linked views follow the selection; again when the current row's
  // page arrives (its record's bytes are known then: currentRecord()).
  void recordSelected(const QString& operatorId, int subtask, int keyGroup);

 private:
  void operatorChosen(int index);
  void stateChosen();
  // Enables the filters a Dump of the chosen operator and state supports (ops::KeyFilterSupportOf).
  void updateFilterSupport();
  void updateRange();
  void emitSelection(const QModelIndex& current);

  std::shared_ptr<const ops::Snapshot> m_snapshot;
  base::Fs* m_fs = nullptr;  // where m_snapshot's files are read
  StateTableModel* m_model;
  QComboBox* m_operator;
  QComboBox* m_state;
  QLineEdit* m_key;
  QSpinBox* m_keyGroup;
  QComboBox* m_match;
  QCheckBox* m_history;
  QLineEdit* m_goTo;
  QLabel* m_range;
  QTableView* m_view;
  QLabel* m_status;
  int m_recordShownRow = -1;  // the row whose record bytes were announced
  bool m_matchForced = false;
  bool m_chosen = false;  // an operator or state was picked (by the user or a linked view)  // "key is" was unsupported, so "starts with" was chosen instead
};

}  // namespace ckpt::inspector

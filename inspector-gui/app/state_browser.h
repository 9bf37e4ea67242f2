// StateBrowser: the key/value table of one operator's state (StateTableModel, fetched lazily),
// with operator/state pickers, a key filter (JSON of the key type) and a key-group filter, and
// export of the selected rows as JSON. GUI thread only.
#pragma once

#include <QWidget>
#include <memory>

#include "ckpt/ops/snapshot.h"
#include "models/state_table_model.h"

class QComboBox;
class QLineEdit;
class QSpinBox;
class QTableView;
class QLabel;

namespace ckpt::inspector {

class StateBrowser : public QWidget {
  Q_OBJECT

 public:
  explicit StateBrowser(QWidget* parent = nullptr);
  void setSnapshot(std::shared_ptr<const ops::Snapshot> snapshot);
  // Selects operator `id_hex` and state `state` (empty = first state).
  void showState(const QString& id_hex, const QString& state);
  void applyFilter(const QString& key_json, int key_group);  // key_group -1 = all
  // Writes the selected rows as JSON to `path`; false (and a status message) on failure.
  bool exportSelection(const QString& path);
  StateTableModel* model() const { return m_model; }
  QTableView* view() const { return m_view; }
  void focusFilter();
  QString currentOperator() const;

 Q_SIGNALS:
  void entrySelected(const QString& description);
  // The selected row's operator (id hex), subtask and key group (-1 when not keyed), emitted
  // before entrySelected so linked views follow the selection.
  void recordSelected(const QString& operatorId, int subtask, int keyGroup);

 private:
  void operatorChosen(int index);
  void stateChosen();

  std::shared_ptr<const ops::Snapshot> m_snapshot;
  StateTableModel* m_model;
  QComboBox* m_operator;
  QComboBox* m_state;
  QLineEdit* m_key;
  QSpinBox* m_keyGroup;
  QTableView* m_view;
  QLabel* m_status;
};

}  // namespace ckpt::inspector

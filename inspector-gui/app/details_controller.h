// DetailsController: the Details page. The snapshot's tree, the decoded value of the selected
// node, and the hex view of a file with its block picker: a tree, file, state-row or finding
// selection shows the file's bytes (read through the session's Fs) with the matching range
// highlighted. GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "app/state_browser.h"
#include "app/window_shell.h"
#include "ckpt/ops/file_layout.h"
#include "ckpt/ops/record_range.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/stats.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTreeView;
class QWidget;

namespace ckpt::inspector {

class DetailTreeModel;
class HexView;
class OpenSession;

class DetailsController : public QObject {
  Q_OBJECT

 public:
  DetailsController(OpenSession& session, const WindowShell& shell, QObject* parent);

  // Fills the tree from the open snapshot / empties every pane.
  void show();
  void clear();
  void setStats(std::shared_ptr<const ops::StatsReport> stats);

  // Selects file `file` (index into the snapshot's file table) in the tree and shows its bytes
  // on the Details page.
  void openFileInDetails(int file);
  // Selects file `file` in the tree (the page shown stays).
  void selectFile(int file);
  // Selects file `file` in the tree and shows the Details page, when the tree has it.
  void selectFileAndShowPage(int file);
  // Selects operator `op` (its subtask `subtask`, if given) in the tree.
  void selectOperator(int op, std::optional<uint32_t> subtask);
  // Selects the node `finding` names and highlights its bytes; its text goes to the value pane.
  void showFinding(const ops::Finding& finding);
  // A state row of operator `opId`: selects its subtask's file and highlights its record (`rec`,
  // when its bytes are known) or key group's bytes.
  void showStateRecord(const QString& opId, int subtask, int keyGroup, const StateBrowser::SelectedRecord& rec);
  // Shows `text` in the decoded-value pane.
  void showValue(const QString& text);
  // A snapshot at `path` (its directory or `_metadata`) did not open with `error`: when the error
  // is about its `_metadata` and the file exists on `fs`, shows its bytes in the hex pane with
  // the byte the error names (errorByteOffset) marked, and the error in the value pane.
  void showUnreadableMetadata(base::Fs& fs, const QString& path, const QString& error);

  // What the hex view's highlight is ("key group 3", "block 1 (checksum mismatch)", ...).
  QString hexRangeText() const { return m_hexRange; }

  QWidget* page() const { return m_page; }
  QTreeView* tree() const { return m_tree; }
  DetailTreeModel* model() const { return m_treeModel; }
  HexView* hexView() const { return m_hex; }
  QPlainTextEdit* decodedPane() const { return m_decoded; }
  QComboBox* blockPicker() const { return m_blockPicker; }
  QCheckBox* decompressedBox() const { return m_decompressed; }

 Q_SIGNALS:
  // The hex view's highlight was set from a file layout (after a selection / finding).
  void hexRangeShown();
  // The tree's selection belongs to operator `op` (index into the snapshot's operators).
  void operatorSelected(int op);

 private:
  void treeSelectionChanged();
  // Shows file `file`'s bytes; highlights key group `keyGroup`'s section or `finding`'s range.
  // With `record` (record-stream bytes of one record, from ops::Dump), highlights that record.
  void showFileBytes(int file, std::optional<uint32_t> keyGroup, std::optional<ops::Finding> finding,
                     std::optional<ops::ByteRange> record = std::nullopt);
  void blockChosen();
  // Selects (and scrolls to) the tree node of `loc`; false when the tree has none.
  bool selectLocation(const ops::Location& loc, bool scroll);
  void clearBytes();

  OpenSession& m_session;
  WindowShell m_shell;
  std::shared_ptr<const ops::FileLayout> m_layout;  // of the file in the hex view
  int m_hexFile = -1;
  uint64_t m_hexRequest = 0;
  QString m_hexRange;
  std::optional<ops::RecordRange> m_record;  // the selected state row's record in m_layout
  QWidget* m_page;
  QTreeView* m_tree;
  DetailTreeModel* m_treeModel;
  HexView* m_hex;
  QPlainTextEdit* m_decoded;
  QComboBox* m_blockPicker;
  QCheckBox* m_decompressed;
  QLabel* m_hexInfo;
};

}  // namespace ckpt::inspector

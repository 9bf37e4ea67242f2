// MainWindow's linked hex view: tree, file, state-row and finding selections show their bytes.
#include "app/main_window.h"

#include <QActionGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

#include "app/charts.h"
#include "app/main_window_util.h"
#include "app/diff_page.h"
#include "app/hex_view.h"
#include "app/history_page.h"
#include "app/job_graph_view.h"
#include "app/state_browser.h"
#include "app/task_progress.h"
#include "app/treemap_view.h"
#include "app/write_dialogs.h"
#include "models/detail_tree_model.h"
#include "models/display.h"
#include "models/snapshot_list_model.h"
#include "models/sort_proxy.h"
#include "models/table_models.h"


namespace ckpt::inspector {

using detail::base_join;
using detail::fitColumns;
using detail::whenReady;

void MainWindow::treeSelectionChanged() {
  const QModelIndex current = m_tree->currentIndex();
  if (!current.isValid()) return;
  m_decoded->setPlainText(m_treeModel->describe(current));
  if (current.data(kNodeKindRole).toInt() == DetailTreeModel::kFile) {
    showFileBytes(current.data(kFileIndexRole).toInt(), std::nullopt, std::nullopt);
  } else {
    // A node that is not a file has no bytes: never leave another node's bytes on screen.
    ++m_hexRequest;
    m_hexFile = -1;
    m_layout.reset();
    m_hexRange.clear();
    m_hex->clear();
    m_hexInfo->clear();
    QSignalBlocker block(m_blockPicker);
    m_blockPicker->clear();
    m_blockPicker->setEnabled(false);
    m_decompressed->setEnabled(false);
  }
  const QString op = current.data(kOperatorIdRole).toString();
  if (!op.isEmpty() && m_snapshot) {
    for (size_t i = 0; i < m_snapshot->operators.size(); ++i) {
      if (qs(m_snapshot->operators[i].id_hex) != op) continue;
      m_subtasks->setOperator(m_snapshot, static_cast<int>(i));
      m_jobGraph->setSelectedOperator(static_cast<int>(i));
    }
  }
}

void MainWindow::openFileInDetails(int file) {
  if (!m_snapshot || file < 0 || static_cast<size_t>(file) >= m_snapshot->files.size()) return;
  ops::Location loc;
  loc.file = m_snapshot->files[static_cast<size_t>(file)].path;
  const QModelIndex idx = m_treeModel->indexForLocation(loc);
  showPage(kDetailsPage);
  if (idx.isValid()) {
    m_tree->scrollTo(idx);
    m_tree->setCurrentIndex(idx);
  } else {
    showFileBytes(file, std::nullopt, std::nullopt);
  }
}

void MainWindow::showFileBytes(int file, std::optional<uint32_t> keyGroup, std::optional<ops::Finding> finding,
                               std::optional<ops::ByteRange> record) {
  if (!m_snapshot || file < 0 || static_cast<size_t>(file) >= m_snapshot->files.size()) return;
  const ops::SnapshotFile& f = m_snapshot->files[static_cast<size_t>(file)];
  const QString path = qs(f.resolved_path);
  const uint64_t request = ++m_hexRequest;
  if (m_hexFile != file || m_hex->decoded() || m_hex->path() != path) {
    m_hexFile = file;
    m_layout.reset();
    QSignalBlocker block(m_blockPicker);
    m_blockPicker->clear();
    m_blockPicker->setEnabled(false);
    m_decompressed->setEnabled(false);
    {
      QSignalBlocker blockBox(m_decompressed);
      m_decompressed->setChecked(false);
    }
    if (path.isEmpty()) {
      m_hex->clear();
      m_hexInfo->setText(tr("%1 cannot be shown: %2").arg(qs(f.path), qs(f.resolve_error)));
      return;
    }
    m_hex->setRegion(path);
  }
  m_hex->clearHighlight();
  m_hexRange.clear();
  m_record.reset();
  m_hexInfo->setText(qs(f.path));
  // Block checksums are computed only for a checksum finding (they read every stored byte).
  const bool verify = finding && (finding->rule_id == "CKPT-F003" || finding->rule_id == "CKPT-F006");
  whenReady(this, describeLayout(path, verify), [this, request, keyGroup, finding, file, record](const Loaded<ops::FileLayout>& r) {
    if (request != m_hexRequest || file != m_hexFile) return;
    if (!r.ok()) {
      m_hexInfo->setText(r.error);
      Q_EMIT hexRangeShown();
      return;
    }
    m_layout = r.value;
    const ops::FileLayout& l = *m_layout;
    {
      QSignalBlocker block(m_blockPicker);
      m_blockPicker->clear();
      const QString blocks = l.blocks.size() == 1 ? tr("1 block") : tr("%1 blocks").arg(l.blocks.size());
      m_blockPicker->addItem(l.container ? tr("Whole file (%1, %2)").arg(blocks, humanBytes(l.file_size))
                                         : tr("Whole file (%1, not a state-file container)").arg(humanBytes(l.file_size)));
      for (const ops::BlockLayout& b : l.blocks) {
        QString label = tr("Block %1 at %2: %3 stored, %4 raw, %5 records")
                            .arg(b.index).arg(b.header.offset).arg(humanBytes(b.stored.length))
                            .arg(humanBytes(b.raw_length)).arg(b.record_count);
        if (b.checksum_ok && !*b.checksum_ok) label += tr(" — checksum mismatch");
        m_blockPicker->addItem(label);
      }
      m_blockPicker->setEnabled(l.container && !l.blocks.empty());
    }
    std::optional<ops::FindingRange> range;
    if (finding) range = ops::RangeOfFinding(*m_snapshot, l, *finding);
    if (record) {
      // The record's exact file bytes when its block is stored uncompressed; else the stored
      // block that holds it (Decompressed then shows the record itself).
      m_record = ops::LocateRecord(l, *record);
      if (m_record && m_record->file) {
        range = ops::FindingRange{*m_record->file, m_record->block, std::nullopt,
                                  "record at record-stream byte " + std::to_string(record->offset)};
      } else if (m_record) {
        range = ops::FindingRange{m_record->block_stored, m_record->block, std::nullopt,
                                  "block " + std::to_string(m_record->block) +
                                      " holding the record (compressed: Decompressed shows the record)"};
      }
    }
    if (!range && keyGroup) {
      if (const ops::SectionLayout* sec = ops::KeyGroupSection(l, *keyGroup)) {
        range = ops::FindingRange{sec->stored, std::nullopt, sec->section_id,
                                  "key group " + std::to_string(sec->section_id)};
      }
    }
    if (range && range->range.length > 0 && !(range->range.offset == 0 && range->range.length == l.file_size)) {
      m_hex->setHighlight(range->range.offset, range->range.length);
      m_hexRange = qs(range->what);
      m_hexInfo->setText(tr("%1 — %2: bytes %3–%4 (%5)")
                             .arg(qs(m_snapshot->files[static_cast<size_t>(file)].path))
                             .arg(m_hexRange).arg(range->range.offset).arg(range->range.end() - 1)
                             .arg(humanBytes(range->range.length)));
    }
    m_decompressed->setEnabled(l.container && !l.blocks.empty());
    Q_EMIT hexRangeShown();
  });
}

// The block picker and the Decompressed box: a block's stored bytes (file offsets), or its
// decompressed records (record-stream offsets); "Whole file" returns to the file.
void MainWindow::blockChosen() {
  if (!m_layout || !m_snapshot || m_hexFile < 0) return;
  const ops::FileLayout& l = *m_layout;
  const int choice = m_blockPicker->currentIndex();
  const QString path = qs(l.path);
  const uint64_t hlStart = m_hex->highlightStart(), hlLength = m_hex->highlightLength();
  if (choice <= 0 || static_cast<size_t>(choice - 1) >= l.blocks.size()) {
    if (m_decompressed->isChecked() && !l.blocks.empty()) {
      QSignalBlocker block(m_blockPicker);
      m_blockPicker->setCurrentIndex(1);
      blockChosen();
      return;
    }
    m_hex->setRegion(path);
    m_hex->setHighlight(hlStart, hlLength);
    return;
  }
  const ops::BlockLayout& b = l.blocks[static_cast<size_t>(choice - 1)];
  if (m_decompressed->isChecked()) {
    auto raw = ops::ReadBlockRecords(base::Fs::Default(), l.path, b.index);
    if (!raw.ok()) {
      m_hex->clear();
      m_hexInfo->setText(qs(raw.status().ToString()));
      return;
    }
    m_hex->setDecoded(tr("%1 block %2 (decompressed)").arg(path).arg(b.index),
                      QByteArray(raw->data(), static_cast<qsizetype>(raw->size())), b.logical_offset);
    if (m_record && m_record->block == b.index) {
      m_hex->setHighlight(m_record->logical.offset, m_record->logical.length);
      m_hexRange = tr("record at record-stream byte %1").arg(m_record->logical.offset);
    }
    m_hexInfo->setText(tr("Block %1 decompressed: record-stream bytes %2–%3").arg(b.index).arg(b.logical_offset).arg(b.logical_offset + b.raw_length));
    return;
  }
  m_hex->setRegion(path, b.header.offset, b.whole().length);
  m_hex->setHighlight(hlStart, hlLength);
  m_hexInfo->setText(tr("Block %1 stored: file bytes %2–%3").arg(b.index).arg(b.header.offset).arg(b.whole().end()));
}

// A state row: select its subtask's file in the tree and highlight its key group's bytes.
void MainWindow::stateRecordSelected(const QString& opId, int subtask, int keyGroup) {
  if (!m_snapshot || subtask < 0) return;
  auto op = m_snapshot->FindOperator(opId.toStdString());
  if (!op.ok()) return;
  const StateBrowser::SelectedRecord rec = m_state->currentRecord();
  if (rec.file >= 0 && static_cast<size_t>(rec.file) < m_snapshot->files.size()) {
    ops::Location loc;
    loc.file = m_snapshot->files[static_cast<size_t>(rec.file)].path;
    loc.operator_id = (*op)->id_hex;
    loc.subtask = static_cast<uint32_t>(subtask);
    const QModelIndex idx = m_treeModel->indexForLocation(loc);
    if (idx.isValid()) {
      m_tree->scrollTo(idx);
      m_tree->setCurrentIndex(idx);
    }
    showFileBytes(rec.file, keyGroup >= 0 ? std::optional<uint32_t>(static_cast<uint32_t>(keyGroup)) : std::nullopt,
                  std::nullopt, ops::ByteRange{rec.offset, rec.length});
    return;
  }
  for (const ops::SubtaskInfo& st : (*op)->subtasks) {
    if (static_cast<int>(st.index) != subtask) continue;
    for (const ops::KeyedHandle& h : st.keyed) {
      if (keyGroup >= 0 && (static_cast<uint32_t>(keyGroup) < h.key_group_start || static_cast<uint32_t>(keyGroup) > h.key_group_end)) continue;
      if (h.file_indexes.empty()) continue;
      const uint32_t file = h.file_indexes.front();
      ops::Location loc;
      loc.file = m_snapshot->files[file].path;
      loc.operator_id = (*op)->id_hex;
      loc.subtask = st.index;
      const QModelIndex idx = m_treeModel->indexForLocation(loc);
      if (idx.isValid()) {
        m_tree->scrollTo(idx);
        m_tree->setCurrentIndex(idx);
      }
      showFileBytes(static_cast<int>(file), keyGroup >= 0 ? std::optional<uint32_t>(static_cast<uint32_t>(keyGroup)) : std::nullopt, std::nullopt);
      return;
    }
  }
}

QString MainWindow::hexRangeText() const { return m_hexRange; }

}  // namespace ckpt::inspector

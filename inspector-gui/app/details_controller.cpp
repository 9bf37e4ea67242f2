#include "app/details_controller.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include "app/hex_view.h"
#include "app/main_window_util.h"
#include "app/open_session.h"
#include "models/detail_tree_model.h"
#include "models/display.h"
#include "models/error_offset.h"
#include "models/loaders.h"

namespace ckpt::inspector {

using detail::whenReady;

namespace {

// Block checksums are computed only for a checksum finding (they read every stored byte): the
// rules ops' catalogue marks as evaluated only when checksums are verified.
bool detailsFindingNeedsBlockChecksums(const std::optional<ops::Finding>& finding) {
  if (!finding) return false;
  const ops::RuleInfo* rule = ops::FindRule(finding->rule_id);
  return rule != nullptr && rule->needs_checksums;
}

}  // namespace

DetailsController::DetailsController(OpenSession& session, const WindowShell& shell, QObject* parent)
    : QObject(parent), m_session(session), m_shell(shell) {
  QWidget* window = m_shell.window;
  m_treeModel = new DetailTreeModel(this);
  m_tree = new QTreeView(window);
  m_tree->setModel(m_treeModel);
  m_tree->setUniformRowHeights(true);
  m_tree->setAlternatingRowColors(true);
  m_tree->header()->setSectionResizeMode(QHeaderView::Interactive);
  m_tree->header()->resizeSection(0, 280);
  m_hex = new HexView(window);
  m_blockPicker = new QComboBox(window);
  m_blockPicker->setToolTip(tr("Show the whole file, or one block of a state-file container"));
  m_blockPicker->setEnabled(false);
  m_decompressed = new QCheckBox(tr("Decompressed"), window);
  m_decompressed->setToolTip(tr("Show the block's decompressed records (each with its varint length prefix) instead of its stored bytes"));
  m_decompressed->setEnabled(false);
  m_hexInfo = new QLabel(window);
  m_hexInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* hexPane = new QWidget(window);
  auto* hexBar = new QHBoxLayout;
  hexBar->setContentsMargins(0, 0, 0, 0);
  hexBar->addWidget(m_blockPicker, 1);
  hexBar->addWidget(m_decompressed);
  auto* hexLayout = new QVBoxLayout(hexPane);
  hexLayout->setContentsMargins(0, 0, 0, 0);
  hexLayout->addLayout(hexBar);
  hexLayout->addWidget(m_hexInfo);
  hexLayout->addWidget(m_hex, 1);
  m_decoded = new QPlainTextEdit(window);
  m_decoded->setReadOnly(true);
  m_decoded->setPlaceholderText(tr("Decoded value of the selected node or entry"));
  auto* right = new QSplitter(Qt::Vertical, window);
  right->addWidget(hexPane);
  right->addWidget(m_decoded);
  auto* details = new QSplitter(Qt::Horizontal, window);
  details->setObjectName(QStringLiteral("detailsSplitter"));
  details->addWidget(m_tree);
  details->addWidget(right);
  details->setStretchFactor(0, 1);
  details->setStretchFactor(1, 1);
  m_page = details;

  connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &DetailsController::treeSelectionChanged);
  connect(m_blockPicker, &QComboBox::currentIndexChanged, this, [this] { blockChosen(); });
  connect(m_decompressed, &QCheckBox::toggled, this, [this] { blockChosen(); });
}

void DetailsController::show() {
  m_treeModel->setSnapshot(m_session.snapshot());
  m_tree->expandToDepth(0);
}

void DetailsController::setStats(std::shared_ptr<const ops::StatsReport> stats) { m_treeModel->setStats(std::move(stats)); }

void DetailsController::showUnreadableMetadata(base::Fs& fs, const QString& path, const QString& error) {
  if (!error.contains(QStringLiteral("_metadata"))) return;
  const QString file = QFileInfo(path).fileName() == QStringLiteral("_metadata") ? path : path + QStringLiteral("/_metadata");
  m_hex->setRegion(fs, file);
  if (!m_hex->error().isEmpty() || m_hex->regionLength() == 0) {
    m_hex->clear();
    return;
  }
  m_hexInfo->setText(file);
  m_decoded->setPlainText(error);
  const std::optional<uint64_t> at = errorByteOffset(error);
  if (!at) {
    m_hexRange = tr("_metadata (not parsed)");
    return;
  }
  // A file cut short fails at its end: mark its last byte.
  const uint64_t mark = std::min(*at, m_hex->regionLength() - 1);
  m_hex->setHighlight(mark, 1);
  m_hexRange = tr("byte %1 of _metadata, where reading failed").arg(mark);
  Q_EMIT hexRangeShown();
}

void DetailsController::showValue(const QString& text) { m_decoded->setPlainText(text); }

// No file's bytes: never leave another node's bytes on screen.
void DetailsController::clearBytes() {
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

void DetailsController::clear() {
  clearBytes();
  m_treeModel->setSnapshot(nullptr);
  m_decoded->clear();
}

bool DetailsController::selectLocation(const ops::Location& loc, bool scroll) {
  const QModelIndex idx = m_treeModel->indexForLocation(loc);
  if (!idx.isValid()) return false;
  if (scroll) m_tree->scrollTo(idx);
  m_tree->setCurrentIndex(idx);
  return true;
}

void DetailsController::treeSelectionChanged() {
  const QModelIndex current = m_tree->currentIndex();
  if (!current.isValid()) return;
  m_decoded->setPlainText(m_treeModel->describe(current));
  if (current.data(kNodeKindRole).toInt() == DetailTreeModel::kFile) {
    showFileBytes(current.data(kFileIndexRole).toInt(), std::nullopt, std::nullopt);
  } else {
    clearBytes();
  }
  const QString op = current.data(kOperatorIdRole).toString();
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!op.isEmpty() && snapshot) {
    for (size_t i = 0; i < snapshot->operators.size(); ++i) {
      if (qs(snapshot->operators[i].id_hex) == op) Q_EMIT operatorSelected(static_cast<int>(i));
    }
  }
}

void DetailsController::openFileInDetails(int file) {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || file < 0 || static_cast<size_t>(file) >= snapshot->files.size()) return;
  ops::Location loc;
  loc.file = snapshot->files[static_cast<size_t>(file)].path;
  m_shell.showPage(kDetailsPage);
  if (!selectLocation(loc, true)) showFileBytes(file, std::nullopt, std::nullopt);
}

void DetailsController::selectFile(int file) {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || file < 0 || static_cast<size_t>(file) >= snapshot->files.size()) return;
  ops::Location loc;
  loc.file = snapshot->files[static_cast<size_t>(file)].path;
  selectLocation(loc, false);
}

void DetailsController::selectFileAndShowPage(int file) {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  ops::Location loc;
  if (snapshot && file >= 0) loc.file = snapshot->files[static_cast<size_t>(file)].path;
  if (selectLocation(loc, false)) m_shell.showPage(kDetailsPage);
}

void DetailsController::selectOperator(int op, std::optional<uint32_t> subtask) {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || op < 0 || static_cast<size_t>(op) >= snapshot->operators.size()) return;
  ops::Location loc;
  loc.operator_id = snapshot->operators[static_cast<size_t>(op)].id_hex;
  loc.subtask = subtask;
  selectLocation(loc, true);
}

void DetailsController::showFinding(const ops::Finding& finding) {
  if (!m_session.snapshot()) return;
  const QModelIndex idx = m_treeModel->indexForLocation(finding.location);
  m_shell.showPage(kDetailsPage);
  if (!idx.isValid()) {
    m_shell.status(tr("%1 names no node of the tree: %2").arg(qs(finding.rule_id), qs(finding.message)));
    return;
  }
  m_tree->scrollTo(idx);
  m_tree->setCurrentIndex(idx);
  if (idx.data(kNodeKindRole).toInt() == DetailTreeModel::kFile) {
    showFileBytes(idx.data(kFileIndexRole).toInt(), finding.location.key_group, finding);
  }
  QString text = QStringLiteral("\n%1 %2: %3\n%4").arg(qs(ops::SeverityName(finding.severity)), qs(finding.rule_id), qs(finding.message), qs(finding.hint));
  // Where the rule is documented, from ops' rule catalogue.
  const ops::RuleInfo* rule = ops::FindRule(finding.rule_id);
  if (rule != nullptr && !rule->doc_anchor.empty()) text += tr("\nSee docs/%1").arg(qs(rule->doc_anchor));
  m_decoded->appendPlainText(text);
}

void DetailsController::showFileBytes(int file, std::optional<uint32_t> keyGroup, std::optional<ops::Finding> finding,
                                      std::optional<ops::ByteRange> record) {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  base::Fs* fs = m_session.fs();
  if (!snapshot || fs == nullptr || file < 0 || static_cast<size_t>(file) >= snapshot->files.size()) return;
  const ops::SnapshotFile& f = snapshot->files[static_cast<size_t>(file)];
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
    m_hex->setRegion(*fs, path);
  }
  m_hex->clearHighlight();
  m_hexRange.clear();
  m_record.reset();
  m_hexInfo->setText(qs(f.path));
  const bool verify = detailsFindingNeedsBlockChecksums(finding);
  whenReady(this, describeLayout(*fs, path, verify), [this, snapshot, request, keyGroup, finding, file, record](const Loaded<ops::FileLayout>& r) {
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
    if (finding) range = ops::RangeOfFinding(*snapshot, l, *finding);
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
                             .arg(qs(snapshot->files[static_cast<size_t>(file)].path))
                             .arg(m_hexRange).arg(range->range.offset).arg(range->range.end() - 1)
                             .arg(humanBytes(range->range.length)));
    }
    m_decompressed->setEnabled(l.container && !l.blocks.empty());
    Q_EMIT hexRangeShown();
  });
}

// The block picker and the Decompressed box: a block's stored bytes (file offsets), or its
// decompressed records (record-stream offsets); "Whole file" returns to the file.
void DetailsController::blockChosen() {
  base::Fs* fs = m_session.fs();
  if (!m_layout || !m_session.snapshot() || fs == nullptr || m_hexFile < 0) return;
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
    m_hex->setRegion(*fs, path);
    m_hex->setHighlight(hlStart, hlLength);
    return;
  }
  const ops::BlockLayout& b = l.blocks[static_cast<size_t>(choice - 1)];
  if (m_decompressed->isChecked()) {
    auto raw = ops::ReadBlockRecords(*fs, l.path, b.index);
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
  m_hex->setRegion(*fs, path, b.header.offset, b.whole().length);
  m_hex->setHighlight(hlStart, hlLength);
  m_hexInfo->setText(tr("Block %1 stored: file bytes %2–%3").arg(b.index).arg(b.header.offset).arg(b.whole().end()));
}

// A state row: select its subtask's file in the tree and highlight its key group's bytes.
void DetailsController::showStateRecord(const QString& opId, int subtask, int keyGroup,
                                        const StateBrowser::SelectedRecord& rec) {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || subtask < 0) return;
  auto op = snapshot->FindOperator(opId.toStdString());
  if (!op.ok()) return;
  const std::optional<uint32_t> group =
      keyGroup >= 0 ? std::optional<uint32_t>(static_cast<uint32_t>(keyGroup)) : std::nullopt;
  if (rec.file >= 0 && static_cast<size_t>(rec.file) < snapshot->files.size()) {
    ops::Location loc;
    loc.file = snapshot->files[static_cast<size_t>(rec.file)].path;
    loc.operator_id = (*op)->id_hex;
    loc.subtask = static_cast<uint32_t>(subtask);
    selectLocation(loc, true);
    showFileBytes(rec.file, group, std::nullopt, ops::ByteRange{rec.offset, rec.length});
    return;
  }
  for (const ops::SubtaskInfo& st : (*op)->subtasks) {
    if (static_cast<int>(st.index) != subtask) continue;
    for (const ops::KeyedHandle& h : st.keyed) {
      if (keyGroup >= 0 && (static_cast<uint32_t>(keyGroup) < h.key_group_start || static_cast<uint32_t>(keyGroup) > h.key_group_end)) continue;
      if (h.file_indexes.empty()) continue;
      const uint32_t file = h.file_indexes.front();
      ops::Location loc;
      loc.file = snapshot->files[file].path;
      loc.operator_id = (*op)->id_hex;
      loc.subtask = st.index;
      selectLocation(loc, true);
      showFileBytes(static_cast<int>(file), group, std::nullopt);
      return;
    }
  }
}

}  // namespace ckpt::inspector

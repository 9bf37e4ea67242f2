#include "app/pending_files_controller.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "app/main_window_util.h"
#include "app/open_session.h"
#include "models/display.h"
#include "models/loaders.h"
#include "models/pending_files_model.h"
#include "models/sort_proxy.h"

namespace ckpt::inspector {

using detail::fitColumns;
using detail::whenReady;

PendingFilesController::PendingFilesController(OpenSession& session, const WindowShell& shell, QObject* parent)
    : QObject(parent), m_session(session), m_shell(shell) {
  QWidget* window = m_shell.window;
  m_pendingModel = new PendingFilesModel(this);
  m_pendingProxy = new SortProxy(this);
  m_pendingProxy->setSourceModel(m_pendingModel);
  m_pendingView = new QTableView(window);
  m_pendingView->setModel(m_pendingProxy);
  m_pendingView->setSortingEnabled(true);
  m_pendingView->sortByColumn(PendingFilesModel::kOperator, Qt::AscendingOrder);
  m_pendingView->setTextElideMode(Qt::ElideMiddle);
  m_pendingView->setWordWrap(false);
  m_pendingView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_pendingView->horizontalHeader()->setStretchLastSection(false);
  connect(m_pendingModel, &QAbstractItemModel::modelReset, this, [this] { fitColumns(m_pendingView, PendingFilesModel::kPendingPath); });
  m_pendingSummary = new QLabel(window);
  m_pendingSummary->setWordWrap(true);
  m_page = new QWidget(window);
  auto* layout = new QVBoxLayout(m_page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_pendingSummary);
  layout->addWidget(m_pendingView, 1);
  connect(m_pendingView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
    const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
    if (!snapshot || !i.isValid()) return;
    const QString id = i.data(kOperatorIdRole).toString();
    for (size_t k = 0; k < snapshot->operators.size(); ++k) {
      if (qs(snapshot->operators[k].id_hex) == id) Q_EMIT operatorChosen(static_cast<int>(k), static_cast<uint32_t>(i.data(kSubtaskRole).toInt()));
    }
  });
}

void PendingFilesController::clear() {
  m_pendingModel->setRows({});
  m_pendingSummary->clear();
}

QString PendingFilesController::text() const { return m_pendingSummary->text(); }

// The sink's pending files: what a restore from this snapshot would commit, checked on disk.
void PendingFilesController::load() {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || m_session.fs() == nullptr) return;
  size_t recorded = 0;
  for (const auto& op : snapshot->operators) {
    for (const auto& st : op.subtasks) recorded += st.committables.size();
  }
  if (recorded == 0) {
    m_pendingSummary->setText(tr("This snapshot records no pending sink files (no two-phase-commit sink had a file pending at its barrier)."));
    Q_EMIT pendingFilesLoaded();
    return;
  }
  m_pendingSummary->setText(tr("%1 pending sink files recorded; checking the disk…").arg(recorded));
  const uint64_t generation = m_session.generation();
  m_session.taskStarted();
  whenReady(this, listPendingFiles(*m_session.fs(), snapshot), [this, generation](const Loaded<std::vector<ops::PendingFile>>& r) {
    m_session.taskEnded();
    if (!m_session.isCurrent(generation)) return;
    if (!r.ok()) {
      m_pendingSummary->setText(tr("Pending files could not be checked: %1").arg(r.error));
      Q_EMIT pendingFilesLoaded();
      return;
    }
    m_pendingModel->setRows(*r.value);
    size_t counts[4] = {};
    for (const ops::PendingFile& f : *r.value) ++counts[static_cast<int>(f.state)];
    QString text = tr("%1 pending sink files: %2 still pending (a restore from this snapshot commits them), %3 committed, %4 both, %5 missing.")
                       .arg(r.value->size()).arg(counts[0]).arg(counts[1]).arg(counts[2]).arg(counts[3]);
    if (counts[3] > 0) text += tr(" A missing file cannot be committed: restoring from this snapshot loses that output.");
    m_pendingSummary->setText(text);
    Q_EMIT pendingFilesLoaded();
  });
}

}  // namespace ckpt::inspector

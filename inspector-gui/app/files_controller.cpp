#include "app/files_controller.h"

#include <QHeaderView>
#include <QTableView>

#include "app/main_window_util.h"
#include "app/open_session.h"
#include "models/display.h"
#include "models/loaders.h"
#include "models/sort_proxy.h"
#include "models/table_models.h"

namespace ckpt::inspector {

using detail::fitColumns;
using detail::whenReady;

FilesController::FilesController(OpenSession& session, const WindowShell& shell, QObject* parent)
    : QObject(parent), m_session(session), m_shell(shell) {
  m_filesModel = new FilesModel(this);
  m_filesView = new QTableView(m_shell.window);
  m_filesProxy = new SortProxy(this);
  m_filesProxy->setSourceModel(m_filesModel);
  m_filesView->setModel(m_filesProxy);
  m_filesView->setSortingEnabled(true);
  m_filesView->sortByColumn(FilesModel::kIndex, Qt::AscendingOrder);
  m_filesView->setTextElideMode(Qt::ElideMiddle);
  m_filesView->setWordWrap(false);
  m_filesView->horizontalHeader()->setStretchLastSection(false);
  m_filesView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_filesView->setToolTip(tr("Double-click a file to see it in Details"));
  connect(m_filesModel, &QAbstractItemModel::modelReset, this, [this] { fitColumns(m_filesView, FilesModel::kPath); });
  connect(m_filesView, &QTableView::activated, this, [this](const QModelIndex& i) {
    if (!m_session.showingCannotOpen() && i.isValid()) Q_EMIT fileActivated(i.data(kFileIndexRole).toInt());
  });
  connect(m_filesView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
    if (m_session.showingCannotOpen() || !m_session.snapshot() || !i.isValid()) return;
    Q_EMIT fileSelected(i.data(kFileIndexRole).toInt());
  });
}

void FilesController::load() {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || m_session.fs() == nullptr) return;
  const uint64_t generation = m_session.generation();
  m_session.taskStarted();
  whenReady(this, listFiles(*m_session.fs(), snapshot), [this, generation](const Loaded<std::vector<ops::FileRow>>& r) {
    m_session.taskEnded();
    if (!m_session.isCurrent(generation)) return;
    if (r.ok()) {
      m_files = r.value;
      m_filesModel->setRows(*r.value);
      Q_EMIT filesLoaded();
    }
  });
}

void FilesController::showOnDisk(const std::vector<ops::FileRow>& rows) { m_filesModel->setRows(rows); }

void FilesController::clear() {
  m_files.reset();
  m_filesModel->setRows({});
}

}  // namespace ckpt::inspector

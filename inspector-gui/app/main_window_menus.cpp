// MainWindow's menus and actions, recent files, dialogs and window events.
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
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
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
#include "app/live_view.h"
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

namespace {
constexpr int kMaxRecent = 8;
}  // namespace

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::openDialog);
  open->setShortcut(QKeySequence::Open);
  open->setToolTip(tr("Open a snapshot directory, its _metadata, or a checkpoint root"));
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  file->addSeparator();
  m_compareAction = file->addAction(tr("&Compare with…"), this, [this] {
    const QString other = QFileDialog::getExistingDirectory(this, tr("Compare with snapshot"));
    if (!other.isEmpty()) compareWith(other);
  });
  m_remapAction = file->addAction(tr("&Remap operator IDs…"), this, &MainWindow::remapDialog);
  file->addAction(tr("&Prune checkpoints…"), this, &MainWindow::pruneDialog);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  QAction* refresh = view->addAction(tr("&Reload"), this, [this] {
    if (!m_path.isEmpty()) openPath(m_path);
  });
  refresh->setShortcut(QKeySequence(Qt::Key_F5));
  QAction* find = view->addAction(tr("&Find in state…"), this, [this] {
    showPage(kStatePage);
    m_state->focusFilter();
  });
  find->setShortcut(QKeySequence::Find);
  QMenu* theme = view->addMenu(tr("&Theme"));
  auto* group = new QActionGroup(this);
  const Theme themes[] = {Theme::kSystem, Theme::kLight, Theme::kDark};
  const QString names[] = {tr("&System"), tr("&Light"), tr("&Dark")};
  for (int i = 0; i < 3; ++i) {
    m_themeActions[i] = theme->addAction(names[i], this, [this, t = themes[i]] { setTheme(t); });
    m_themeActions[i]->setCheckable(true);
    group->addAction(m_themeActions[i]);
  }
  m_viewMenu = view;
  // Other windows (the live view of a running engine, ...) add their View-menu actions below
  // this separator, here in buildMenus (a trailing separator is not drawn).
  view->addSeparator();
  view->addAction(tr("&Connect to running job…"), this, [this] {
    bool ok = false;
    const QString address = QInputDialog::getText(
        this, tr("Connect to a running job"),
        tr("REST address of ckpt-engine (run --rest-port) or of a Flink cluster:"),
        QLineEdit::Normal, QSettings().value(QStringLiteral("live/address"),
                                             QStringLiteral("http://127.0.0.1:8081")).toString(),
        &ok);
    if (!ok || address.trimmed().isEmpty()) return;
    QSettings().setValue(QStringLiteral("live/address"), address.trimmed());
    openLiveView(*this, address.trimmed());
  });

  QMenu* tools = menuBar()->addMenu(tr("&Tools"));
  m_validateAction = tools->addAction(tr("&Validate"), this, [this] { validateSnapshot(false); });
  m_validateAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_deepValidateAction = tools->addAction(tr("Validate (&deep: decode every record)"), this, [this] { validateSnapshot(true); });
  tools->addAction(tr("&Cancel background task (Esc)"), m_progress, &TaskProgress::cancel)->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
  updateActions();
}

// Validate, Remap and Compare need an open snapshot.
void MainWindow::updateActions() {
  const bool open = m_snapshot != nullptr && !m_cannotOpen;
  for (QAction* a : {m_validateAction, m_deepValidateAction, m_remapAction, m_compareAction}) {
    if (a) a->setEnabled(open);
  }
}

void MainWindow::setTheme(Theme theme) {
  applyTheme(theme);
  m_themeActions[static_cast<int>(theme)] ? m_themeActions[static_cast<int>(theme)]->setChecked(true) : void();
  QSettings().setValue(QStringLiteral("view/theme"), themeName(theme));
}

void MainWindow::openDialog() {
  QFileDialog dialog(this, tr("Open snapshot or checkpoint root"));
  dialog.setFileMode(QFileDialog::Directory);
  dialog.setOption(QFileDialog::ShowDirsOnly, false);
  dialog.setNameFilter(tr("Checkpoint metadata (_metadata);;All files (*)"));
  if (dialog.exec() == QDialog::Accepted && !dialog.selectedFiles().isEmpty()) openPath(dialog.selectedFiles().front());
}

void MainWindow::compareWith(const QString& other, bool withKeys) {
  if (!m_snapshot) return;
  m_diff->setPaths(qs(m_snapshot->dir), other);
  showPage(kDiffPage);
  m_diff->compare(withKeys);
}

void MainWindow::remapDialog() {
  if (!m_snapshot) return;
  RemapDialog dialog(qs(m_snapshot->dir), this);
  dialog.setOutputDir(qs(m_snapshot->dir) + QStringLiteral("-remapped"));
  connect(&dialog, &RemapDialog::written, this, [this, &dialog](bool ok) {
    if (ok && dialog.lastOutcome()) statusBar()->showMessage(tr("remapped savepoint written to %1").arg(qs(dialog.lastOutcome()->result.output_dir)));
  });
  dialog.exec();
}

void MainWindow::pruneDialog() {
  QString root = m_root;
  if (root.isEmpty()) root = QFileDialog::getExistingDirectory(this, tr("Checkpoint root or job directory to prune"));
  if (root.isEmpty()) return;
  PruneDialog dialog(root, this);
  dialog.exec();
  if (dialog.lastResult() && !m_root.isEmpty()) openPath(m_root);
}

QStringList MainWindow::recentFiles() const {
  return QSettings().value(QStringLiteral("recent/files")).toStringList();
}

void MainWindow::addRecent(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecent) files.removeLast();
  QSettings().setValue(QStringLiteral("recent/files"), files);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  if (!m_recentMenu) return;
  m_recentMenu->clear();
  for (const QString& f : recentFiles()) m_recentMenu->addAction(f, this, [this, f] { openPath(f); });
  m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls() && event->mimeData()->urls().front().isLocalFile()) event->acceptProposedAction();
}

// Escape cancels the background task (views that use Escape themselves, e.g. the treemap's
// zoom-out, accept it first).
void MainWindow::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape && m_progress->running()) {
    m_progress->cancel();
    event->accept();
    return;
  }
  QMainWindow::keyPressEvent(event);
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.front().isLocalFile()) return;
  event->acceptProposedAction();
  openPath(urls.front().toLocalFile());
}

QStringList MainWindow::saveScreenshots(const QString& dir, const QString& suffix, QList<QSize>* sizes) {
  QDir().mkpath(dir);
  QStringList written;
  const int current = m_pages->currentIndex();
  static const char* kNames[] = {"summary", "details", "files", "state", "treemap", "keygroups",
                                 "history", "subtasks", "findings", "diff", "jobgraph", "pending"};
  static_assert(std::size(kNames) == kPageCount);
  for (int i = 0; i < kPageCount; ++i) {
    m_pages->setCurrentIndex(i);
    QApplication::processEvents();
    const QString page = dir + QStringLiteral("/view-%1%2.png").arg(QLatin1String(kNames[i]), suffix);
    auto save = [&](const QPixmap& image, const QString& file) {
      if (!image.save(file)) return;
      written << file;
      if (sizes != nullptr) sizes->append(image.size());
    };
    save(m_pages->widget(i)->grab(), page);
    if (i == kDetailsPage || i == kSummaryPage) {
      save(grab(), dir + QStringLiteral("/window-%1%2.png").arg(QLatin1String(kNames[i]), suffix));
    }
  }
  m_pages->setCurrentIndex(current);
  return written;
}

}  // namespace ckpt::inspector

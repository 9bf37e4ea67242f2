#include "app/menu_controller.h"

#include <QActionGroup>
#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>

#include "app/task_progress.h"

namespace ckpt::inspector {

namespace {
constexpr int kMenuMaxRecentFiles = 8;
}  // namespace

MenuController::MenuController(const WindowShell& shell, QObject* parent) : QObject(parent), m_shell(shell) {
  QMainWindow* window = m_shell.window;
  QMenu* file = window->menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, &MenuController::openDialog);
  open->setShortcut(QKeySequence::Open);
  open->setToolTip(tr("Open a snapshot directory, its _metadata, or a checkpoint root"));
  QAction* location = file->addAction(tr("Open &Location…"), this, &MenuController::openLocationDialog);
  location->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  location->setToolTip(tr("Open a location typed as a path or URI (s3://bucket/key, file:/path)"));
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  file->addSeparator();
  m_compareAction = file->addAction(tr("&Compare with…"), this, [this] {
    const QString other = QFileDialog::getExistingDirectory(m_shell.window, tr("Compare with snapshot"));
    if (!other.isEmpty()) Q_EMIT compareRequested(other);
  });
  m_remapAction = file->addAction(tr("&Remap operator IDs…"), this, &MenuController::remapRequested);
  file->addAction(tr("&Prune checkpoints…"), this, &MenuController::pruneRequested);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), window, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* view = window->menuBar()->addMenu(tr("&View"));
  QAction* refresh = view->addAction(tr("&Reload"), this, &MenuController::reloadRequested);
  refresh->setShortcut(QKeySequence(Qt::Key_F5));
  QAction* find = view->addAction(tr("&Find in state…"), this, &MenuController::findInStateRequested);
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
  // this separator, here in the constructor (a trailing separator is not drawn).
  view->addSeparator();
  view->addAction(tr("&Connect to running job…"), this, [this] {
    bool ok = false;
    const QString address = QInputDialog::getText(
        m_shell.window, tr("Connect to a running job"),
        tr("REST address of ckpt-engine (run --rest-port) or of a Flink cluster:"),
        QLineEdit::Normal, QSettings().value(QStringLiteral("live/address"),
                                             QStringLiteral("http://127.0.0.1:8081")).toString(),
        &ok);
    if (!ok || address.trimmed().isEmpty()) return;
    QSettings().setValue(QStringLiteral("live/address"), address.trimmed());
    Q_EMIT liveViewRequested(address.trimmed());
  });

  QMenu* tools = window->menuBar()->addMenu(tr("&Tools"));
  m_validateAction = tools->addAction(tr("&Validate"), this, [this] { Q_EMIT validateRequested(false); });
  m_validateAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_deepValidateAction = tools->addAction(tr("Validate (&deep: decode every record)"), this, [this] { Q_EMIT validateRequested(true); });
  tools->addAction(tr("&Cancel background task (Esc)"), m_shell.progress, &TaskProgress::cancel)->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
  updateActions(false);
}

void MenuController::updateActions(bool snapshotOpen) {
  for (QAction* a : {m_validateAction, m_deepValidateAction, m_remapAction, m_compareAction}) {
    if (a) a->setEnabled(snapshotOpen);
  }
}

void MenuController::setTheme(Theme theme) {
  applyTheme(theme);
  if (QAction* a = m_themeActions[static_cast<int>(theme)]) a->setChecked(true);
  QSettings().setValue(QStringLiteral("view/theme"), themeName(theme));
}

void MenuController::openDialog() {
  QFileDialog dialog(m_shell.window, tr("Open snapshot or checkpoint root"));
  dialog.setFileMode(QFileDialog::Directory);
  dialog.setOption(QFileDialog::ShowDirsOnly, false);
  dialog.setNameFilter(tr("Checkpoint metadata (_metadata);;All files (*)"));
  if (dialog.exec() == QDialog::Accepted && !dialog.selectedFiles().isEmpty()) Q_EMIT openRequested(dialog.selectedFiles().front());
}

void MenuController::openLocationDialog() {
  QInputDialog dialog(m_shell.window);
  dialog.setObjectName(QStringLiteral("openLocationDialog"));
  dialog.setWindowTitle(tr("Open location"));
  dialog.setLabelText(tr("Snapshot, _metadata or checkpoint root (a path, file:/path or s3://bucket/key):"));
  dialog.setInputMode(QInputDialog::TextInput);
  dialog.setTextValue(QSettings().value(QStringLiteral("open/location")).toString());
  if (dialog.exec() != QDialog::Accepted) return;
  const QString location = dialog.textValue().trimmed();
  if (location.isEmpty()) return;
  QSettings().setValue(QStringLiteral("open/location"), location);
  Q_EMIT openRequested(location);
}

QStringList MenuController::recentFiles() const {
  return QSettings().value(QStringLiteral("recent/files")).toStringList();
}

void MenuController::addRecent(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMenuMaxRecentFiles) files.removeLast();
  QSettings().setValue(QStringLiteral("recent/files"), files);
  rebuildRecentMenu();
}

void MenuController::rebuildRecentMenu() {
  if (!m_recentMenu) return;
  m_recentMenu->clear();
  for (const QString& f : recentFiles()) m_recentMenu->addAction(f, this, [this, f] { Q_EMIT openRequested(f); });
  m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

}  // namespace ckpt::inspector

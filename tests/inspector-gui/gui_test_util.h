// Helpers shared by the inspector's QTest suites: fixture paths, waiting for a loader's future,
// temporary copies of fixtures, the process's resident set size, and (in suites that link the
// widgets) TestWindow, the one window fixture every MainWindow test starts from.
#pragma once

#include <QFuture>
#include <QString>
#include <QTest>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "models/location.h"
#include "models/state_table_model.h"

#if __has_include(<QMainWindow>)
#include <QAction>
#include <QCoreApplication>
#include <QSignalSpy>
#include <QStandardPaths>

#include "app/main_window.h"
#include "models/detail_tree_model.h"
#include "models/display.h"
#endif

namespace ckpt::inspector::testing {

inline QString fixture(const QString& rel) {
  return QStringLiteral(CKPT_SOURCE_DIR "/fixtures/") + rel;
}

// The filesystem of the fixtures (bare paths: POSIX), resolved the way the inspector resolves
// every location it opens.
inline base::Fs& localFs() { return *resolveLocation(QStringLiteral(".")).fs; }

inline QString checkpointJobDir() {
  return fixture(QStringLiteral("v1/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801"));
}

// Waits (processing events) until `future` is finished, with a deadline, and returns its
// result; a future still running after `timeout_ms` fails the test (QFAIL-like message) instead
// of hanging it, and is waited for without events so the result is still valid.
template <class T>
T await(QFuture<T> future, int timeout_ms = 60000) {
  if (!QTest::qWaitFor([&] { return future.isFinished(); }, timeout_ms)) {
    QTest::qFail("await: the future did not finish within the deadline", __FILE__, __LINE__);
    future.waitForFinished();
  }
  return future.result();
}

inline void copyTree(const QString& from, const QString& to) {
  std::filesystem::copy(from.toStdString(), to.toStdString(),
                        std::filesystem::copy_options::recursive);
}

// Resident set size of this process in bytes, from /proc/self/statm (second field, in pages).
inline uint64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// Fetches until the row count is final, waiting for the model's worker after each fetchMore
// (with a deadline); false if it did not finish in time.
inline bool fetchAll(StateTableModel& m, int timeout_ms = 120000) {
  for (int guard = 0; m.canFetchMore({}) && guard < 100000; ++guard) {
    m.fetchMore({});
    if (!QTest::qWaitFor([&] { return !m.counting(); }, timeout_ms)) return false;
  }
  return !m.canFetchMore({});
}

// The cell at (row, column) once its page has been read by the model's worker.
inline QVariant cell(StateTableModel& m, int row, int column, int timeout_ms = 60000) {
  m.requestRow(row);
  if (!QTest::qWaitFor([&] { return m.isLoaded(row) || !m.lastError().isEmpty(); }, timeout_ms)) {
    QTest::qFail("cell: the page was not read within the deadline", __FILE__, __LINE__);
  }
  return m.index(row, column).data();
}

#if __has_include(<QMainWindow>)
// Per test case: settings in QStandardPaths' test location under a suite's own application name,
// so no test reads the user's (or another suite's) recent files, theme or geometry.
inline void initWindowTests(const QString& application) {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("ckpt-test"));
  QCoreApplication::setApplicationName(application);
}

// Opens `path` and waits (with a deadline) until it is loaded or failed and every background
// load (stats, summary, files) finished; true if a snapshot was loaded.
inline bool openAndWait(MainWindow& w, const QString& path) {
  QSignalSpy loaded(&w, &MainWindow::snapshotLoaded);
  QSignalSpy failed(&w, &MainWindow::openFailed);
  w.openPath(path);
  if (!QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, 30000)) return false;
  if (!QTest::qWaitFor([&] { return !w.busy(); }, 30000)) return false;
  return !loaded.isEmpty();
}

// Opens a checkpoint root and waits until its newest snapshot is shown and nothing runs.
inline bool openRootAndWait(MainWindow& w, const QString& root) {
  QSignalSpy loaded(&w, &MainWindow::snapshotLoaded);
  QSignalSpy failed(&w, &MainWindow::openFailed);
  w.openPath(root);
  return QTest::qWaitFor([&] { return (!loaded.isEmpty() || !failed.isEmpty()) && !w.busy(); }, 30000) &&
         !loaded.isEmpty();
}

// The first action whose text (without '&') starts with `prefix`, or null.
inline QAction* menuAction(MainWindow& w, const QString& prefix) {
  for (QAction* a : w.findChildren<QAction*>()) {
    if (a->text().remove(QLatin1Char('&')).startsWith(prefix)) return a;
  }
  return nullptr;
}

// The first node of `kind` (DetailTreeModel::NodeKind) in depth-first order.
inline QModelIndex findNode(const DetailTreeModel& m, int kind, const QModelIndex& parent = {}) {
  for (int r = 0; r < m.rowCount(parent); ++r) {
    const QModelIndex i = m.index(r, 0, parent);
    if (i.data(kNodeKindRole).toInt() == kind) return i;
    const QModelIndex f = findNode(m, kind, i);
    if (f.isValid()) return f;
  }
  return {};
}

// The window fixture: a MainWindow of a fixed size, shown (offscreen) unless kHidden, with the
// helpers above as members.
class TestWindow : public MainWindow {
 public:
  enum Shown { kShown, kHidden };
  explicit TestWindow(Shown shown = kShown, QSize size = QSize(1280, 800)) {
    resize(size);
    if (shown == kShown) show();
  }
  bool open(const QString& path) { return openAndWait(*this, path); }
  bool openRoot(const QString& root) { return openRootAndWait(*this, root); }
  QAction* action(const QString& prefix) { return menuAction(*this, prefix); }
};
#endif

}  // namespace ckpt::inspector::testing

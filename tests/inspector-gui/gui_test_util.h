// Helpers shared by the inspector's QTest suites: fixture paths, waiting for a loader's future,
// temporary copies of fixtures, and the process's resident set size.
#pragma once

#include <QFuture>
#include <QString>
#include <QTest>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "models/state_table_model.h"

namespace ckpt::inspector::testing {

inline QString fixture(const QString& rel) {
  return QStringLiteral(CKPT_SOURCE_DIR "/fixtures/") + rel;
}

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

}  // namespace ckpt::inspector::testing

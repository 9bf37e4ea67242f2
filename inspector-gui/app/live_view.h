// LiveCheckpointsWindow: the inspector's live Checkpoints view of a running job, like the
// Checkpoints tab of Flink's web UI, over a REST address (ckpt-engine run --rest-port, or a
// Flink cluster): overview counts and the latest checkpoints, the history table, summary
// percentiles, the configuration, and for the selected checkpoint its per-operator and
// per-subtask details (sync, async, alignment, start delay, unaligned). Refreshed on an
// interval by a LiveConnection (network and parsing off the UI thread); the selected
// checkpoint's details are fetched again while it is in progress and when it completes or
// fails. Double-clicking a completed checkpoint or savepoint whose path is reachable asks for it
// to be opened in the offline views (openSnapshotRequested). GUI thread only.
#pragma once

#include <QWidget>

#include "models/live_connection.h"

class QComboBox;
class QLabel;
class QTabWidget;
class QTableView;

namespace ckpt::inspector {

class MainWindow;

class LiveCheckpointsWindow : public QWidget {
  Q_OBJECT

 public:
  // Connects to `address` (http://HOST:PORT) and starts polling every `interval_ms`.
  explicit LiveCheckpointsWindow(const QString& address, int interval_ms = 1000,
                                 QWidget* parent = nullptr);

  LiveConnection* connection() const { return m_connection; }
  LiveHistoryModel* historyModel() const { return m_history; }
  LiveSummaryModel* summaryModel() const { return m_summary; }
  LivePairsModel* configModel() const { return m_config; }
  LiveTasksModel* tasksModel() const { return m_tasks; }
  LiveSubtasksModel* subtasksModel() const { return m_subtasks; }
  QTableView* historyView() const { return m_historyView; }
  QTableView* tasksView() const { return m_tasksView; }
  QTabWidget* tabs() const { return m_tabs; }
  QComboBox* jobsBox() const { return m_jobs; }
  QString countsText() const;
  QString statusText() const;
  const LiveCheckpoints& checkpoints() const { return m_last; }
  // Selects history row `row` (fetches its details).
  void selectCheckpoint(int row);
  // As a click on history row `row`'s path (or a double-click on the row): emits
  // openSnapshotRequested if the row is a completed snapshot whose path exists here; otherwise
  // says why in the status line.
  void openCheckpoint(int row);

 Q_SIGNALS:
  void openSnapshotRequested(const QString& path);

 private:
  void showCheckpoints(const LiveCheckpoints& c);
  void showJobs(const QVector<LiveJob>& jobs);
  void selectTask(int row);
  // Shows the selected checkpoint's per-operator rows, named and ordered by the job's vertices,
  // keeping the chosen operator selected.
  void showTasks(const QVector<LiveTaskStats>& tasks);

  LiveConnection* m_connection;
  LiveHistoryModel* m_history;
  LiveSummaryModel* m_summary;
  LivePairsModel* m_config;
  LiveTasksModel* m_tasks;
  LiveSubtasksModel* m_subtasks;
  QVector<LiveVertex> m_vertices;
  LiveCheckpoints m_last;
  qint64 m_selectedId = -1;
  QString m_selectedStatus;  // its status when its details were last fetched
  QString m_selectedVertex;
  QComboBox* m_jobs = nullptr;
  QLabel* m_counts = nullptr;
  QLabel* m_latest = nullptr;
  QLabel* m_status = nullptr;
  QTabWidget* m_tabs = nullptr;
  QTableView* m_historyView = nullptr;
  QTableView* m_tasksView = nullptr;
};

// Opens a live view of `address` owned by `window` (closed with it); a snapshot opened from it
// is shown in `window`.
LiveCheckpointsWindow* openLiveView(MainWindow& window, const QString& address,
                                    int interval_ms = 1000);

}  // namespace ckpt::inspector

// LiveConnection: polls a REST endpoint with Flink's API (ckpt-engine run --rest-port, or a Flink
// cluster's JobManager) for the live Checkpoints view: the jobs, the chosen job's vertices,
// checkpoint statistics and configuration on an interval, and one checkpoint's per-operator and
// per-subtask details on request. Each request (HTTP and parsing, ckpt::ops::LiveClient) runs on a
// worker thread (QtConcurrent); results arrive as signals on the GUI thread. GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <QUrl>
#include <memory>

#include "models/live_checkpoints.h"

namespace ckpt::inspector {

using LivePairs = QVector<std::pair<QString, QString>>;

class LiveConnection : public QObject {
  Q_OBJECT

 public:
  // `base` is http://HOST:PORT (a missing scheme means http).
  explicit LiveConnection(const QString& base, QObject* parent = nullptr);
  ~LiveConnection() override;

  QUrl baseUrl() const { return m_base; }
  // Refresh interval. Default: 1000 ms.
  void setInterval(int ms) { m_timer.setInterval(ms); }
  int interval() const { return m_timer.interval(); }
  // The job to watch; "" (default) = automatic: the watched job while it runs, else the first
  // RUNNING job listed, else the first listed.
  void setJob(const QString& jobId);
  QString jobId() const { return m_job; }
  // The job being polled: the chosen one, or the one picked automatically ("" before the first
  // answer of /jobs/overview).
  QString watchedJobId() const { return m_watched; }
  // Polls now, then every interval; stop() ends it.
  void start();
  void stop() { m_timer.stop(); }
  // Fetches checkpoint `id`'s per-operator statistics (detailsUpdated) or one operator's
  // per-subtask statistics (subtasksUpdated).
  void requestDetails(qint64 id);
  void requestSubtasks(qint64 id, const QString& vertexId);
  // Completed polls of the checkpoint statistics (for tests and the status line).
  int polls() const { return m_polls; }

 Q_SIGNALS:
  void jobsUpdated(const QVector<ckpt::inspector::LiveJob>& jobs);
  void jobChanged(const QString& jobId);
  void verticesUpdated(const QVector<ckpt::inspector::LiveVertex>& vertices);
  void checkpointsUpdated(const ckpt::inspector::LiveCheckpoints& checkpoints);
  void configUpdated(const ckpt::inspector::LivePairs& config);
  void detailsUpdated(qint64 id, const QVector<ckpt::inspector::LiveTaskStats>& tasks);
  void subtasksUpdated(qint64 id, const QString& vertexId,
                       const QVector<ckpt::inspector::LiveSubtaskStats>& subtasks);
  // A request failed (unreachable, HTTP error with Flink's error message, unexpected JSON), or
  // the address is not http://HOST:PORT.
  void failed(const QString& message);

 private:
  // Runs `call` (one ops::LiveClient request) on a worker thread, then calls `done` with its
  // result in the view's types on this thread, or emits failed.
  template <class Call, class Done>
  void fetch(Call call, Done done);
  void poll();
  void pollJob();

  QUrl m_base;
  std::shared_ptr<const ops::LiveClient> m_client;  // null when the address is not HOST:PORT
  QString m_addressError;
  QTimer m_timer;
  QString m_job;          // chosen by the user ("" = automatic)
  QString m_watched;      // the job being polled
  int m_inFlight = 0;
  int m_polls = 0;
};

}  // namespace ckpt::inspector

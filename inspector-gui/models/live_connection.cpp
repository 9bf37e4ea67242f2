// LiveConnection: ops::LiveClient requests on QtConcurrent worker threads, results marshalled
// back to the GUI thread with QFutureWatcher.
#include "models/live_connection.h"

#include <QFutureWatcher>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

namespace ckpt::inspector {

namespace {

// The threads of every live connection's requests. Not the global pool: a request may block for
// the read timeout, and the global pool (as many threads as cores) also loads snapshots.
// Process-lifetime, so closing a view never waits for a request in flight (only the process's
// exit does, at most the read timeout).
QThreadPool* liveRequestPool() {
  static QThreadPool pool;
  static const bool sized = [] {
    pool.setMaxThreadCount(8);
    return true;
  }();
  (void)sized;
  return &pool;
}

}  // namespace

LiveConnection::LiveConnection(const QString& base, QObject* parent) : QObject(parent) {
  QString text = base.trimmed();
  if (!text.contains(QLatin1String("://"))) text.prepend(QLatin1String("http://"));
  while (text.endsWith(QLatin1Char('/'))) text.chop(1);
  m_base = QUrl(text);
  ops::LiveClientOptions options;
  options.read_timeout_s = 10;  // a poll that hangs longer is reported, the next one retries
  options.brief_errors = true;  // one status line: Flink's message without its stack trace
  base::Result<std::unique_ptr<ops::LiveClient>> client =
      ops::LiveClient::Create(text.toStdString(), options);
  if (client.ok()) {
    m_client = std::move(*client);
  } else {
    m_addressError = QString::fromStdString(client.status().message());
  }
  m_timer.setInterval(1000);
  connect(&m_timer, &QTimer::timeout, this, &LiveConnection::poll);
}

LiveConnection::~LiveConnection() = default;

void LiveConnection::setJob(const QString& jobId) {
  m_job = jobId;
  if (!m_job.isEmpty() && m_job != m_watched) {
    m_watched = m_job;
    Q_EMIT jobChanged(m_watched);
    pollJob();
  }
}

void LiveConnection::start() {
  m_timer.start();
  poll();
}

template <class Call, class Done>
void LiveConnection::fetch(Call call, Done done) {
  if (!m_client) {
    Q_EMIT failed(m_addressError);
    return;
  }
  using Value = decltype(liveFromOps(*call(std::declval<const ops::LiveClient&>())));
  using Fetched = std::pair<std::optional<Value>, QString>;
  ++m_inFlight;
  auto* watcher = new QFutureWatcher<Fetched>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, done] {
    watcher->deleteLater();
    --m_inFlight;
    Fetched fetched = watcher->result();
    if (!fetched.first) {
      Q_EMIT failed(fetched.second);
      return;
    }
    done(std::move(*fetched.first));
  });
  // The task holds the client, not this object: it may outlive the connection (the watcher,
  // a child, is gone by then and nothing is delivered).
  watcher->setFuture(QtConcurrent::run(liveRequestPool(), [client = m_client, call] {
    auto result = call(*client);
    if (!result.ok()) {
      return Fetched(std::nullopt, QString::fromStdString(result.status().message()));
    }
    return Fetched(liveFromOps(*result), QString());
  }));
}

void LiveConnection::poll() {
  if (m_inFlight > 0) return;  // the previous round is still out: never pile requests up
  fetch([](const ops::LiveClient& c) { return c.JobsOverview(); },
        [this](QVector<LiveJob> jobs) {
          Q_EMIT jobsUpdated(jobs);
          QString chosen = m_job;
          // Automatic: the watched job while it runs (the listing's order may
          // change between polls), else the first RUNNING one, else the first.
          for (const LiveJob& j : jobs) {
            if (chosen.isEmpty() && j.id == m_watched &&
                j.state == QLatin1String("RUNNING")) {
              chosen = j.id;
            }
          }
          for (const LiveJob& j : jobs) {
            if (chosen.isEmpty() && j.state == QLatin1String("RUNNING")) {
              chosen = j.id;
            }
          }
          if (chosen.isEmpty() && !jobs.isEmpty()) chosen = jobs.front().id;
          if (chosen.isEmpty()) {
            Q_EMIT failed(tr("No job at %1").arg(m_base.toString()));
            return;
          }
          if (chosen != m_watched) {
            m_watched = chosen;
            Q_EMIT jobChanged(m_watched);
          }
          pollJob();
        });
}

// Each answer is dropped if another job is watched by the time it arrives: checkpoint ids of two
// jobs overlap (a restored job continues its savepoint's), so a late answer would pass for the
// new job's.
void LiveConnection::pollJob() {
  if (m_watched.isEmpty()) return;
  const QString watched = m_watched;
  const std::string job = watched.toStdString();
  fetch([job](const ops::LiveClient& c) { return c.JobVertices(job); },
        [this, watched](QVector<LiveVertex> v) {
          if (watched == m_watched) Q_EMIT verticesUpdated(v);
        });
  fetch([job](const ops::LiveClient& c) { return c.CheckpointConfig(job); },
        [this, watched](LivePairs c) {
          if (watched == m_watched) Q_EMIT configUpdated(c);
        });
  fetch([job](const ops::LiveClient& c) { return c.Checkpoints(job); },
        [this, watched](LiveCheckpoints c) {
          if (watched != m_watched) return;
          ++m_polls;
          Q_EMIT checkpointsUpdated(c);
        });
}

void LiveConnection::requestDetails(qint64 id) {
  if (m_watched.isEmpty()) return;
  const QString watched = m_watched;
  const std::string job = watched.toStdString();
  fetch([job, id](const ops::LiveClient& c) { return c.CheckpointDetails(job, id); },
        [this, watched, id](QVector<LiveTaskStats> t) {
          if (watched == m_watched) Q_EMIT detailsUpdated(id, t);
        });
}

void LiveConnection::requestSubtasks(qint64 id, const QString& vertexId) {
  if (m_watched.isEmpty()) return;
  const QString watched = m_watched;
  const std::string job = watched.toStdString();
  const std::string vertex = vertexId.toStdString();
  fetch([job, id, vertex](const ops::LiveClient& c) { return c.SubtaskDetails(job, id, vertex); },
        [this, watched, id, vertexId](QVector<LiveSubtaskStats> s) {
          if (watched == m_watched) Q_EMIT subtasksUpdated(id, vertexId, s);
        });
}

}  // namespace ckpt::inspector

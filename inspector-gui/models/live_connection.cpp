// LiveConnection: REST polling with QNetworkAccessManager, JSON parsing with QtConcurrent.
#include "models/live_connection.h"

#include <QFutureWatcher>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QtConcurrent/QtConcurrentRun>

namespace ckpt::inspector {

namespace {

// Flink's error body {"errors": ["..."]}, or the transport's message. A Flink cluster sends the
// handler's exception with its stack trace ("org.apache...RestHandlerException: Could not find
// ...\n\tat ..."): the status line keeps the message line without the exception's class name.
QString describeError(QNetworkReply* reply, const QByteArray& body) {
  static const QRegularExpression exceptionClass(
      QStringLiteral("^(?:[a-z_][\\w$]*\\.)+[A-Z][\\w$]*(?:Exception|Error): "));
  const QJsonDocument doc = QJsonDocument::fromJson(body);
  QStringList errors;
  for (const QJsonValue& v : doc.object().value(QLatin1String("errors")).toArray()) {
    // An internal error wraps the trace in "<Exception on server side:\n...": take its next line.
    QString text;
    for (const QString& line : v.toString().split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
      text = line.trimmed();
      if (!text.startsWith(QLatin1String("<Exception on server side"))) break;
    }
    text.remove(exceptionClass);
    if (!text.isEmpty()) errors << text;
  }
  return errors.isEmpty() ? reply->errorString() : errors.join(QStringLiteral("; "));
}

}  // namespace

LiveConnection::LiveConnection(const QString& base, QObject* parent)
    : QObject(parent), m_nam(new QNetworkAccessManager(this)) {
  QString text = base.trimmed();
  if (!text.contains(QLatin1String("://"))) text.prepend(QLatin1String("http://"));
  while (text.endsWith(QLatin1Char('/'))) text.chop(1);
  m_base = QUrl(text);
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

template <class T>
void LiveConnection::get(const QString& path,
                         std::optional<T> (*parse)(const QByteArray&, QString*),
                         std::function<void(T)> done) {
  QNetworkRequest request(QUrl(m_base.toString() + path));
  request.setTransferTimeout(10000);
  QNetworkReply* reply = m_nam->get(request);
  ++m_inFlight;
  connect(reply, &QNetworkReply::finished, this, [this, reply, path, parse, done] {
    reply->deleteLater();
    --m_inFlight;
    const QByteArray body = reply->readAll();
    if (reply->error() != QNetworkReply::NoError) {
      Q_EMIT failed(QStringLiteral("GET %1%2: %3")
                        .arg(m_base.toString(), path, describeError(reply, body)));
      return;
    }
    using Parsed = std::pair<std::optional<T>, QString>;
    auto* watcher = new QFutureWatcher<Parsed>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, done] {
      watcher->deleteLater();
      Parsed parsed = watcher->result();
      if (!parsed.first) {
        Q_EMIT failed(parsed.second);
        return;
      }
      done(std::move(*parsed.first));
    });
    watcher->setFuture(QtConcurrent::run([body, parse] {
      QString error;
      std::optional<T> value = parse(body, &error);
      return Parsed(std::move(value), error);
    }));
  });
}

void LiveConnection::poll() {
  if (m_inFlight > 0) return;  // the previous round is still out: never pile requests up
  get<QVector<LiveJob>>(QStringLiteral("/jobs/overview"), &parseJobsOverview,
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
  const QString job = QStringLiteral("/jobs/") + watched;
  get<QVector<LiveVertex>>(job, &parseJobVertices, [this, watched](QVector<LiveVertex> v) {
    if (watched == m_watched) Q_EMIT verticesUpdated(v);
  });
  get<LivePairs>(job + QStringLiteral("/checkpoints/config"), &parseCheckpointConfig,
                 [this, watched](LivePairs c) {
                   if (watched == m_watched) Q_EMIT configUpdated(c);
                 });
  get<LiveCheckpoints>(job + QStringLiteral("/checkpoints"), &parseCheckpointingStatistics,
                       [this, watched](LiveCheckpoints c) {
                         if (watched != m_watched) return;
                         ++m_polls;
                         Q_EMIT checkpointsUpdated(c);
                       });
}

void LiveConnection::requestDetails(qint64 id) {
  if (m_watched.isEmpty()) return;
  const QString watched = m_watched;
  get<QVector<LiveTaskStats>>(
      QStringLiteral("/jobs/%1/checkpoints/details/%2").arg(watched).arg(id),
      &parseCheckpointDetails, [this, watched, id](QVector<LiveTaskStats> t) {
        if (watched == m_watched) Q_EMIT detailsUpdated(id, t);
      });
}

void LiveConnection::requestSubtasks(qint64 id, const QString& vertexId) {
  if (m_watched.isEmpty()) return;
  const QString watched = m_watched;
  get<QVector<LiveSubtaskStats>>(QStringLiteral("/jobs/%1/checkpoints/details/%2/subtasks/%3")
                                     .arg(watched)
                                     .arg(id)
                                     .arg(vertexId),
                                 &parseSubtaskDetails,
                                 [this, watched, id, vertexId](QVector<LiveSubtaskStats> s) {
                                   if (watched == m_watched)
                                     Q_EMIT subtasksUpdated(id, vertexId, s);
                                 });
}

}  // namespace ckpt::inspector

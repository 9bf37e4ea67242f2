#include "app/history_controller.h"

#include "app/history_page.h"
#include "app/main_window_util.h"
#include "app/open_session.h"
#include "models/loaders.h"

namespace ckpt::inspector {

using detail::whenReady;

HistoryController::HistoryController(OpenSession& session, QWidget* window, QObject* parent)
    : QObject(parent), m_session(session) {
  m_history = new HistoryPage(window);
  connect(m_history, &HistoryPage::snapshotActivated, this, [this](const QString& rel) { m_session.selectListed(rel); });
}

void HistoryController::showJob(const std::string& jobIdHex, bool reload) {
  if (!reload && jobIdHex == m_historyJob) return;
  if (m_session.fs() == nullptr) return;
  m_historyJob = jobIdHex;
  m_session.taskStarted();
  whenReady(this, loadHistory(*m_session.fs(), m_session.rootPath(), jobIdHex),
            [this](const Loaded<ops::JobHistory>& r) {
              m_session.taskEnded();
              if (r.ok()) m_history->setHistory(r.value);
              Q_EMIT historyLoaded();
            });
  m_session.taskStarted();
  whenReady(this, loadGrowth(*m_session.fs(), m_session.rootPath(), jobIdHex),
            [this](const Loaded<ops::JobGrowth>& r) {
              m_session.taskEnded();
              m_history->setGrowth(r.ok() ? r.value : nullptr);
              Q_EMIT growthLoaded();
            });
}

void HistoryController::clear() {
  m_history->setHistory(nullptr);
  m_history->setGrowth(nullptr);
  m_historyJob.clear();
}

}  // namespace ckpt::inspector

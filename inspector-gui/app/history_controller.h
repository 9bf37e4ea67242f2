// HistoryController: the History page of a checkpoint root, loaded in the background
// (loadHistory: the job's listing plus the newest snapshots' metrics; loadGrowth: its storage
// growth) for the job of the snapshot shown; clicking a point selects that snapshot in the Snapshots list. GUI thread only.
#pragma once

#include <QObject>
#include <string>

namespace ckpt::inspector {

class HistoryPage;
class OpenSession;

class HistoryController : public QObject {
  Q_OBJECT

 public:
  HistoryController(OpenSession& session, QWidget* window, QObject* parent);

  // Shows job `jobIdHex` of the open root: loads it again when `reload`, else only when
  // another job is shown now. Emits historyLoaded and growthLoaded when each load finishes.
  void showJob(const std::string& jobIdHex, bool reload);
  // Nothing to show (a single snapshot is open).
  void clear();

  HistoryPage* page() const { return m_history; }

 Q_SIGNALS:
  void historyLoaded();
  void growthLoaded();

 private:
  OpenSession& m_session;
  std::string m_historyJob;  // job whose history the page shows
  HistoryPage* m_history;
};

}  // namespace ckpt::inspector

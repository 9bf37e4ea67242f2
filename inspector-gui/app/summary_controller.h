// SummaryController: the Summary page (a start page, a loaded snapshot's summary, "No snapshot"
// and the "Cannot open" page's text) and the background loads it shows: ops::ComputeStats,
// ops::Summarize and ops::ComputePositions (the source positions table). Warnings and positions
// are computed by ops; the page only shows them. GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>

#include "app/window_shell.h"
#include "ckpt/ops/positions.h"
#include "ckpt/ops/stats.h"
#include "ckpt/ops/summary.h"

class QTextBrowser;

namespace ckpt::inspector {

class OpenSession;
class ValidateController;

class SummaryController : public QObject {
  Q_OBJECT

 public:
  SummaryController(OpenSession& session, ValidateController& validate, const WindowShell& shell,
                    QObject* parent);

  // The page shown with nothing open: Open…, the `recent` files (links) and drag-and-drop.
  void showStartPage(const QStringList& recent);
  // A checkpoint root without any snapshot.
  void showEmptyRoot(const QString& path);
  // Replaces the page with `html` (the "Cannot open" page).
  void setHtml(const QString& html);
  // Rewrites the page for the open snapshot (no-op without one).
  void update();
  // Starts ops::Summarize / ops::ComputeStats for the open snapshot.
  void loadSummary();
  void loadStats();
  // Starts ops::ComputePositions for the open snapshot (the "Source positions" section).
  void loadPositions();
  // Forgets the previous snapshot's stats, summary report and positions.
  void clear();

  std::shared_ptr<const ops::StatsReport> stats() const { return m_stats; }
  std::shared_ptr<const ops::PositionsReport> positions() const { return m_positions; }
  QString text() const;
  QTextBrowser* page() const { return m_summary; }

 Q_SIGNALS:
  // The start page's "Open…" link / its recent file `index` was clicked.
  void openDialogRequested();
  void recentRequested(int index);
  // The statistics arrived (before the summary is recomputed with them).
  void statsArrived(std::shared_ptr<const ops::StatsReport> stats);
  // The statistics load finished (successfully or not) and the page shows its outcome.
  void statsLoaded();

 private:
  OpenSession& m_session;
  ValidateController& m_validate;
  WindowShell m_shell;
  std::shared_ptr<const ops::StatsReport> m_stats;
  std::shared_ptr<const ops::SummaryReport> m_summaryReport;  // ops::Summarize's warnings
  std::shared_ptr<const ops::PositionsReport> m_positions;    // ops::ComputePositions
  QString m_positionsError;                                   // why they could not be read
  QTextBrowser* m_summary;
};

}  // namespace ckpt::inspector

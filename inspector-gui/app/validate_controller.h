// ValidateController: the Findings page and the background validate behind it (Tools >
// Validate, deep or not), what it checked, its findings and ops' verdict (also shown on the
// Summary page). A cancelled or failed run leaves no results behind. GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <vector>

#include "app/window_shell.h"
#include "ckpt/ops/summary.h"
#include "ckpt/ops/validate.h"

class QLabel;
class QTableView;
class QWidget;

namespace ckpt::inspector {

class FindingsModel;
class OpenSession;
class SortProxy;

class ValidateController : public QObject {
  Q_OBJECT

 public:
  // What the last complete validate read.
  enum class Checked { kMetadata, kChecksums, kDeep };

  ValidateController(OpenSession& session, const WindowShell& shell, QObject* parent);

  // Validates the open snapshot in the background (no-op without one); `deep` decodes every
  // record. Emits validationFinished.
  void validate(bool deep);
  // Forgets every result (a new snapshot, or none, is shown).
  void clear();
  // The findings of a directory that does not open (no validate ran on it).
  void showUnopenable(const QString& path);
  void setDiagnosisFindings(const std::vector<ops::Finding>& findings);

  // The Verdict section of the Summary page: what was checked and ops' verdict, from the last
  // complete validate, else from the metadata-only checks (`summary`, may be null).
  QString verdictHtml(const ops::SummaryReport* summary) const;
  // The Findings page's headline.
  QString verdictText() const;
  // The findings of the last complete validate, and what it checked.
  const std::vector<ops::Finding>& findings() const { return m_validateFindings; }
  Checked checked() const { return m_checked; }
  // A validate was started and neither cancelled nor failed.
  bool validated() const { return m_validated; }
  // The finding shown in row `row` of the findings model (null when there is none).
  const ops::Finding* finding(int row) const;

  QWidget* page() const { return m_page; }
  FindingsModel* model() const { return m_findingsModel; }
  QTableView* view() const { return m_findingsView; }

 Q_SIGNALS:
  // The results changed (the Summary page shows them).
  void changed();
  void validationFinished(bool ok);
  // The finding in row `row` was activated (double-click, Enter).
  void findingActivated(int row);

 private:
  OpenSession& m_session;
  WindowShell m_shell;
  std::vector<ops::Finding> m_validateFindings;
  bool m_validated = false;
  Checked m_checked = Checked::kMetadata;
  QString m_cancelNote;  // a cancelled or failed validate: what happened
  std::shared_ptr<const ops::ValidateReport> m_report;  // the last complete validate
  QWidget* m_page;
  QTableView* m_findingsView;
  QLabel* m_findingsSummary;
  FindingsModel* m_findingsModel;
  SortProxy* m_findingsProxy;
};

}  // namespace ckpt::inspector

#include "app/history_page.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "app/charts.h"
#include "app/growth_chart.h"
#include "models/display.h"
#include "models/history_model.h"
#include "models/sort_proxy.h"

namespace ckpt::inspector {

HistoryPage::HistoryPage(QWidget* parent)
    : QWidget(parent),
      m_chart(new HistoryChart(this)),
      m_growthChart(new GrowthChart(this)),
      m_model(new HistoryTableModel(this)),
      m_proxy(new SortProxy(this)),
      m_table(new QTableView(this)),
      m_overview(new QLabel(this)) {
  m_overview->setTextFormat(Qt::RichText);
  m_overview->setWordWrap(true);
  m_proxy->setSourceModel(m_model);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(HistoryTableModel::kId, Qt::DescendingOrder);  // newest first, like Flink
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setTextElideMode(Qt::ElideMiddle);
  m_table->setWordWrap(false);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_timeScale = new QCheckBox(tr("Time to scale"), this);
  m_timeScale->setToolTip(tr("Place checkpoints by trigger time (on) or one even slot per checkpoint (off)"));
  m_timeScale->setChecked(true);
  connect(m_timeScale, &QCheckBox::toggled, m_chart, &HistoryChart::setProportionalTime);
  auto* chartPane = new QWidget(this);
  auto* chartLayout = new QVBoxLayout(chartPane);
  chartLayout->setContentsMargins(0, 0, 0, 0);
  chartLayout->addWidget(m_timeScale, 0, Qt::AlignRight);
  chartLayout->addWidget(m_chart, 1);
  chartLayout->addWidget(m_growthChart, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(chartPane);
  split->addWidget(m_table);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_overview);
  layout->addWidget(split, 1);
  connect(m_table, &QTableView::activated, this, [this](const QModelIndex& i) {
    const QModelIndex src = m_proxy->mapToSource(i);
    if (!m_model->history() || !src.isValid()) return;
    Q_EMIT snapshotActivated(qs(m_model->history()->rows[static_cast<size_t>(src.row())].entry.path));
  });
}

QString HistoryPage::overviewText() const { return m_overview->text(); }

void HistoryPage::setGrowth(std::shared_ptr<const ops::JobGrowth> growth) {
  m_growthChart->setGrowth(std::move(growth));
}

void HistoryPage::setHistory(std::shared_ptr<const ops::JobHistory> history) {
  m_chart->setHistory(history ? std::shared_ptr<const std::vector<ops::HistoryRow>>(history, &history->rows) : nullptr);
  m_model->setHistory(history);
  m_table->resizeColumnsToContents();
  if (!history || history->rows.empty()) {
    m_overview->setText(tr("No checkpoint history: open a checkpoint root to see a job's checkpoints."));
    return;
  }
  const ops::HistorySummary& c = history->summary;
  QString html = tr("<b>Checkpoints</b>: %1 completed, %2 failed, %3 incomplete, %4 restored")
                     .arg(c.completed).arg(c.failed).arg(c.incomplete).arg(c.restored);
  auto row = [](const QString& name, const ops::MetricSummary& s, bool bytes) {
    auto f = [bytes](double v) { return bytes ? humanBytes(static_cast<uint64_t>(v)) : QStringLiteral("%1 ms").arg(v, 0, 'f', 0); };
    return QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td><td align=right>%5</td><td align=right>%6</td></tr>")
        .arg(name, f(s.min), f(s.avg), f(s.max), f(s.p50), f(s.p99));
  };
  html += QStringLiteral("<table cellspacing=6><tr><th></th><th>%1</th><th>%2</th><th>%3</th><th>%4</th><th>%5</th></tr>")
              .arg(tr("min"), tr("avg"), tr("max"), tr("p50"), tr("p99"));
  html += row(tr("End-to-end duration"), c.duration_ms, false);
  html += row(tr("Checkpointed size"), c.checkpointed_size_bytes, true);
  html += row(tr("Full size"), c.full_size_bytes, true);
  html += QStringLiteral("</table>");
  // The latest completed snapshot's checkpointing settings (what the metadata records).
  if (c.latest_completed && *c.latest_completed < history->rows.size()) {
    const ops::HistoryRow& latest = history->rows[*c.latest_completed];
    QString cfg = tr("<b>Latest</b>: checkpoint %1, mode %2").arg(latest.entry.checkpoint_id).arg(qs(ops::CheckpointingModeName(latest.entry.mode)).toHtmlEscaped());
    if (latest.metrics) {
      cfg += tr(", %1, alignment timeout %2 ms, %3/%4 subtasks acknowledged")
                 .arg(latest.metrics->is_unaligned ? tr("unaligned") : tr("aligned"))
                 .arg(latest.metrics->alignment_timeout)
                 .arg(latest.metrics->num_acknowledged_subtasks).arg(latest.metrics->num_subtasks);
    }
    if (!latest.restored_from.empty()) cfg += tr(", restored from %1").arg(qs(latest.restored_from).toHtmlEscaped());
    html += QStringLiteral("<p>%1</p>").arg(cfg);
  }
  m_overview->setText(html);
}

}  // namespace ckpt::inspector

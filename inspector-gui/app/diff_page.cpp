#include "app/diff_page.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTreeView>

#include "app/task_progress.h"
#include "models/location.h"

namespace ckpt::inspector {

DiffPage::DiffPage(QWidget* parent)
    : QWidget(parent),
      m_a(new QLineEdit(this)),
      m_b(new QLineEdit(this)),
      m_withKeys(new QCheckBox(tr("Key-level diff"), this)),
      m_summary(new QLabel(this)),
      m_tree(new DiffTreeModel(this)),
      m_keys(new KeyDiffModel(this)),
      m_treeView(new QTreeView(this)),
      m_keyView(new QTableView(this)),
      m_progress(new TaskProgress(this)) {
  auto* compareButton = new QPushButton(tr("Compare"), this);
  auto browse = [this](QLineEdit* target) {
    auto* b = new QPushButton(tr("Browse…"), this);
    connect(b, &QPushButton::clicked, this, [this, target] {
      const QString dir = QFileDialog::getExistingDirectory(this, tr("Snapshot directory"), target->text());
      if (!dir.isEmpty()) target->setText(dir);
    });
    return b;
  };
  m_a->setPlaceholderText(tr("snapshot A (older)"));
  m_b->setPlaceholderText(tr("snapshot B (newer)"));
  m_withKeys->setToolTip(tr("Also compare keyed entries key group by key group (reads every state file)"));
  auto* grid = new QGridLayout(this);
  grid->addWidget(new QLabel(tr("A"), this), 0, 0);
  grid->addWidget(m_a, 0, 1);
  grid->addWidget(browse(m_a), 0, 2);
  grid->addWidget(new QLabel(tr("B"), this), 1, 0);
  grid->addWidget(m_b, 1, 1);
  grid->addWidget(browse(m_b), 1, 2);
  auto* swapButton = new QPushButton(tr("Swap A ↔ B"), this);
  swapButton->setToolTip(tr("Exchange the two snapshots and compare again"));
  connect(swapButton, &QPushButton::clicked, this, &DiffPage::swapSides);
  auto* actions = new QHBoxLayout;
  actions->addWidget(m_withKeys);
  actions->addStretch(1);
  actions->addWidget(swapButton);
  grid->addLayout(actions, 2, 1);
  grid->addWidget(compareButton, 2, 2);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_treeView);
  split->addWidget(m_keyView);
  grid->addWidget(split, 3, 0, 1, 3);
  grid->addWidget(m_summary, 4, 0, 1, 2);
  grid->addWidget(m_progress, 4, 2);
  grid->setRowStretch(3, 1);
  m_treeView->setModel(m_tree);
  m_treeView->setUniformRowHeights(true);
  m_treeView->setTextElideMode(Qt::ElideLeft);  // file paths differ at their end
  // The name column takes what the numbers leave; the numbers are as wide as their contents.
  m_treeView->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_treeView->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  m_treeView->header()->setStretchLastSection(false);
  m_treeView->header()->setMinimumSectionSize(40);
  m_keyView->setModel(m_keys);
  m_keyView->horizontalHeader()->setStretchLastSection(true);
  m_keyView->hide();
  connect(compareButton, &QPushButton::clicked, this, [this] { compare(m_withKeys->isChecked()); });
}

void DiffPage::setPaths(const QString& a, const QString& b, bool olderFirst) {
  m_a->setText(a);
  m_b->setText(b);
  m_olderFirst = olderFirst;
}

QString DiffPage::pathA() const { return m_a->text(); }
QString DiffPage::pathB() const { return m_b->text(); }

void DiffPage::swapSides() {
  if (m_pending > 0) return;
  const QString a = m_a->text();
  m_a->setText(m_b->text());
  m_b->setText(a);
  m_olderFirst = false;  // the user chose the sides
  if (m_shown) compare(m_withKeys->isChecked());
}

QString DiffPage::summary() const { return m_summary->text(); }

void DiffPage::compare(bool withKeys) {
  if (m_pending > 0) return;
  m_withKeys->setChecked(withKeys);
  // The two locations are resolved here, where the page opens them; ops compares on one Fs.
  const OpenedLocation a = resolveLocation(m_a->text());
  const OpenedLocation b = resolveLocation(m_b->text());
  QString unresolved = !a.ok() ? a.error : !b.ok() ? b.error : QString();
  if (unresolved.isEmpty() && a.fs != b.fs) {
    unresolved = tr("%1 and %2 are on different filesystems; both snapshots must be on one.").arg(m_a->text(), m_b->text());
  }
  if (!unresolved.isEmpty()) {
    m_ok = false;
    m_summary->setText(unresolved);
    Q_EMIT diffFinished(false);
    return;
  }
  m_ok = true;
  m_pending = withKeys ? 2 : 1;
  m_summary->setText(tr("Comparing…"));
  std::shared_ptr<TaskState> task = m_progress->start(tr("Diff"));
  auto done = [this, withKeys] {
    if (--m_pending == 0) {
      m_progress->finish();
      if (m_reorder) {
        m_reorder = false;
        compare(withKeys);
        return;
      }
      m_shown = m_ok;
      Q_EMIT diffFinished(m_ok);
    }
  };
  auto* watcher = new QFutureWatcher<Loaded<ops::DiffResult>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, done, withKeys] {
    const auto r = watcher->result();
    watcher->deleteLater();
    // Side A is the older snapshot: ops read B with the lower checkpoint id, so compare again
    // the other way round (once; the key-level diff, if any, is superseded as well).
    if (r.ok() && m_olderFirst && r.value->checkpoint_id_a > r.value->checkpoint_id_b) {
      m_olderFirst = false;
      const QString newer = m_a->text();
      m_a->setText(m_b->text());
      m_b->setText(newer);
      m_reorder = true;
    }
    if (m_reorder) {
      done();
      return;
    }
    m_olderFirst = false;
    if (!r.ok()) {
      m_ok = false;
      m_summary->setText(r.error);
    } else {
      m_tree->setResult(r.value);
      m_treeView->expandToDepth(0);
      const auto& d = *r.value;
      m_summary->setText(tr("%1 — checkpoint %2 vs %3; files: %4 added, %5 removed, %6 changed, %7 shared")
                             .arg(d.different ? tr("different") : tr("same content"))
                             .arg(d.checkpoint_id_a).arg(d.checkpoint_id_b).arg(d.files_added)
                             .arg(d.files_removed).arg(d.files_changed).arg(d.files_shared));
    }
    done();
  });
  watcher->setFuture(diffSnapshots(*a.fs, a.path, b.path, task));
  m_keyView->setVisible(withKeys);
  if (withKeys) {
    auto* kw = new QFutureWatcher<Loaded<KeyDiffList>>(this);
    connect(kw, &QFutureWatcherBase::finished, this, [this, kw, done] {
      const auto r = kw->result();
      kw->deleteLater();
      if (m_reorder) {
        done();
        return;
      }
      if (r.ok()) {
        m_keys->setList(r.value);
      } else {
        m_ok = false;
        m_summary->setText(r.error);
      }
      done();
    });
    kw->setFuture(diffKeys(*a.fs, a.path, b.path, 100000, task));
  }
}

}  // namespace ckpt::inspector

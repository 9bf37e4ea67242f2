// Helpers shared by the main window and its controllers (app/*_controller.cpp, ...); not a public header.
#pragma once

#include <QFutureWatcher>
#include <QHeaderView>
#include <QObject>
#include <QTableView>
#include <algorithm>
#include <string>
#include <vector>

namespace ckpt::inspector::detail {

// Columns sized to their contents; the text column `stretch` takes the remaining room (long
// text is elided in the middle, with the whole as tooltip).
inline void fitColumns(QTableView* view, int stretch) {
  QHeaderView* h = view->horizontalHeader();
  h->setSectionResizeMode(QHeaderView::Interactive);
  view->resizeColumnsToContents();
  for (int c = 0; c < h->count(); ++c) h->resizeSection(c, std::min(h->sectionSize(c), 360));
  h->setSectionResizeMode(stretch, QHeaderView::Stretch);
}

inline std::string base_join(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

// Watches `future` and calls `done(result)` on the GUI thread when it finishes.
template <class T, class Fn>
void whenReady(QObject* owner, QFuture<T> future, Fn done) {
  auto* watcher = new QFutureWatcher<T>(owner);
  QObject::connect(watcher, &QFutureWatcherBase::finished, owner, [watcher, done = std::move(done)]() mutable {
    watcher->deleteLater();
    done(watcher->result());
  });
  watcher->setFuture(future);
}

}  // namespace ckpt::inspector::detail

// ckpt-inspector [PATH] [--screenshot DIR]: the Qt desktop inspector over ckpt::ops.
// With --screenshot, opens PATH, waits for the background loads, writes the window and each
// view as PNG files to DIR and exits (0 if every file was written).
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>

#include <QImage>
#include <QTabWidget>
#include <QTreeView>
#include <set>

#include "app/main_window.h"
#include "app/treemap_view.h"
#include "ckpt/ops/logging.h"
#include "models/detail_tree_model.h"

namespace {

// A screenshot is good when it loads, has the size of what was grabbed, and is not blank.
bool checkScreenshot(const QString& file, const QSize& expected) {
  const QImage image(file);
  if (image.isNull() || image.size() != expected) {
    std::fprintf(stderr, "ckpt-inspector: %s: unreadable or %dx%d instead of %dx%d\n", qPrintable(file),
                 image.width(), image.height(), expected.width(), expected.height());
    return false;
  }
  std::set<QRgb> colours;
  for (int y = 0; y < image.height() && colours.size() <= 8; y += 3) {
    for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
  }
  if (colours.size() <= 8) {
    std::fprintf(stderr, "ckpt-inspector: %s looks blank\n", qPrintable(file));
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  ckpt::ops::SilenceLibraryLogs();  // only ops' own messages, as in ckpt-tool
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("ckpt"));
  QApplication::setApplicationName(QStringLiteral("ckpt-inspector"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Desktop inspector for checkpoints and savepoints"));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("path"), QStringLiteral("snapshot directory, _metadata or checkpoint root"));
  QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                QStringLiteral("Render the window and each view to PNG files in DIR, then exit."),
                                QStringLiteral("DIR"));
  parser.addOption(screenshot);
  parser.process(app);

  ckpt::inspector::MainWindow window;
  window.show();
  const QStringList args = parser.positionalArguments();
  if (parser.isSet(screenshot)) {
    if (args.isEmpty()) {
      std::fprintf(stderr, "ckpt-inspector: --screenshot needs a PATH to open\n");
      return 2;
    }
    const QString dir = parser.value(screenshot);
    auto shoot = [&] {
      // Wait until statistics and the file list are in, then render.
      auto* poll = new QTimer(&window);
      QObject::connect(poll, &QTimer::timeout, &window, [&, poll] {
        if (window.busy()) return;
        poll->stop();
        // Select a file so the hex view has bytes to show.
        auto* model = window.detailModel();
        if (model->rowCount() > 0) {
          QModelIndex idx = model->index(0, 0);
          while (model->rowCount(idx) > 0) idx = model->index(0, 0, idx);
          window.detailTree()->setCurrentIndex(idx);
        }
        window.treemap()->selectNode(1);
        const QStringList files = window.saveScreenshots(dir);
        bool ok = files.size() >= ckpt::inspector::MainWindow::kPageCount;
        const qreal dpr = window.devicePixelRatio();
        for (const QString& f : files) {
          const QSize grabbed = f.contains(QStringLiteral("/window-")) ? window.size() : window.pages()->currentWidget()->size();
          ok = checkScreenshot(f, grabbed * dpr) && ok;
          std::printf("%s\n", qPrintable(f));
        }
        QApplication::exit(ok ? 0 : 1);
      });
      poll->start(50);
    };
    QObject::connect(&window, &ckpt::inspector::MainWindow::snapshotLoaded, &window, shoot);
    QObject::connect(&window, &ckpt::inspector::MainWindow::openFailed, &window, [](const QString& m) {
      std::fprintf(stderr, "ckpt-inspector: %s\n", qPrintable(m));
      QApplication::exit(2);
    });
  }
  if (!args.isEmpty()) window.openPath(args.front());
  return QApplication::exec();
}

// The pages of ckpt-inspector's main window, in tab order. GUI thread only.
#pragma once

namespace ckpt::inspector {

enum InspectorPage {
  kSummaryPage,
  kDetailsPage,
  kFilesPage,
  kStatePage,
  kTreemapPage,
  kKeyGroupPage,
  kHistoryPage,
  kSubtaskPage,
  kFindingsPage,
  kDiffPage,
  kJobGraphPage,
  kPendingFilesPage,
  kPageCount
};

}  // namespace ckpt::inspector

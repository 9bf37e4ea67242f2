// The rule catalogue's metadata for faces: FindRule, which options a rule needs, and a doc
// anchor that names a real section of docs/validate-rules.md.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <set>
#include <string>

#include "ckpt/ops/validate.h"

namespace ckpt::ops {
namespace {

// GitHub's heading slug: lower case, spaces to '-', punctuation other than '-' and '_' dropped.
std::string RulesDocSlug(const std::string& heading) {
  std::string slug;
  for (char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_') {
      slug += static_cast<char>(std::tolower(u));
    } else if (c == ' ') {
      slug += '-';
    }
  }
  return slug;
}

TEST(ValidateRulesTest, FindRuleFindsEveryRuleAndNothingElse) {
  for (const RuleInfo& r : AllRules()) {
    const RuleInfo* found = FindRule(r.id);
    ASSERT_NE(found, nullptr) << r.id;
    EXPECT_EQ(found, &r);
  }
  EXPECT_EQ(FindRule("CKPT-Z999"), nullptr);
  EXPECT_EQ(FindRule(""), nullptr);
}

TEST(ValidateRulesTest, SaysWhichOptionsARuleNeeds) {
  EXPECT_TRUE(FindRule("CKPT-F003")->needs_checksums);
  EXPECT_TRUE(FindRule("CKPT-F006")->needs_checksums);
  EXPECT_FALSE(FindRule("CKPT-F001")->needs_checksums);
  EXPECT_TRUE(FindRule("CKPT-D001")->needs_deep);
  EXPECT_TRUE(FindRule("CKPT-K005")->needs_deep);
  EXPECT_FALSE(FindRule("CKPT-K001")->needs_deep);
  EXPECT_TRUE(FindRule("CKPT-A001")->needs_against);
  EXPECT_FALSE(FindRule("CKPT-M001")->needs_against);
  EXPECT_TRUE(FindRule("CKPT-S001")->from_stats);
  EXPECT_FALSE(FindRule("CKPT-F002")->from_stats);
  EXPECT_EQ(FindRule("CKPT-M001")->severity, Severity::kError);
}

TEST(ValidateRulesTest, DocAnchorsNameSectionsOfTheRulesDoc) {
  std::ifstream in(std::string(CKPT_SOURCE_DIR) + "/docs/validate-rules.md");
  ASSERT_TRUE(in.good());
  std::set<std::string> anchors;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      anchors.insert("validate-rules.md#" + RulesDocSlug(line.substr(3)));
    }
  }
  for (const RuleInfo& r : AllRules()) {
    EXPECT_EQ(anchors.count(r.doc_anchor), 1u) << r.id << ": " << r.doc_anchor;
  }
}

}  // namespace
}  // namespace ckpt::ops

// The building blocks under the loaders: ConfigError's text, value descriptions in messages,
// merging with origins kept, and `--set` application on a bare tree.
#include "core/arch/config_node.h"

#include <gtest/gtest.h>

#include "core/arch/config_error.h"

namespace strider::config {
namespace {

TEST(ConfigErrorText, WhatJoinsEveryErrorWithNewlines) {
  const ConfigError e({"a.yaml:1: x: one", "a.yaml:2: y: two"});
  EXPECT_STREQ(e.what(), "a.yaml:1: x: one\na.yaml:2: y: two");
  EXPECT_EQ(e.errors().size(), 2u);
}

TEST(ConfigNodeDescribe, ValuesAsTheyReadInMessages) {
  Origin o;
  EXPECT_EQ(ConfigNode::make_scalar("abc", o).describe(), "\"abc\"");
  EXPECT_EQ(ConfigNode::make_map(o).describe(), "a map");
  EXPECT_EQ(ConfigNode().describe(), "an empty value");
  ConfigNode list;
  list.kind = ConfigNode::Kind::kList;
  list.children.resize(3);
  EXPECT_EQ(list.describe(), "a list of 3 items");
  // 70 characters: the first 60 are shown.
  const std::string long_text(70, 'x');
  EXPECT_EQ(ConfigNode::make_scalar(long_text, o).describe(),
            "\"" + std::string(60, 'x') + "...\" (70 characters)");
}

TEST(ConfigNodeMerge, MapsMergeKeyByKeyAndKeepTheOverridesOrigin) {
  Origin base_at;
  base_at.file = "base.yaml";
  base_at.line = 3;
  Origin over_at;
  over_at.file = "run.yaml";
  over_at.line = 9;
  ConfigNode base = ConfigNode::make_map(base_at);
  ConfigNode l2 = ConfigNode::make_map(base_at);
  l2.put("banks", base_at, ConfigNode::make_scalar("16", base_at));
  l2.put("size_bytes", base_at, ConfigNode::make_scalar("1024", base_at));
  base.put("l2", base_at, l2);
  ConfigNode over = ConfigNode::make_map(over_at);
  ConfigNode over_l2 = ConfigNode::make_map(over_at);
  over_l2.put("banks", over_at, ConfigNode::make_scalar("8", over_at));
  over.put("l2", over_at, over_l2);
  merge_into(base, over);
  const ConfigNode* merged = base.find("l2");
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->find("banks")->scalar, "8");
  EXPECT_EQ(merged->find("banks")->origin.describe(), "run.yaml:9");
  EXPECT_EQ(merged->find("size_bytes")->scalar, "1024");
  EXPECT_EQ(merged->find("size_bytes")->origin.describe(), "base.yaml:3");
  EXPECT_EQ(merged->keys, (std::vector<std::string>{"banks", "size_bytes"}));  // order kept
}

TEST(ApplySet, CreatesMissingMapsAndRecordsTheSetAsOrigin) {
  ConfigNode root;
  Diagnostics d;
  apply_set(root, "sim.functional=true", "/cwd", d);
  apply_set(root, "networks=[a, {path: b}]", "/cwd", d);
  ASSERT_TRUE(d.empty());
  const ConfigNode* f = root.find("sim")->find("functional");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->scalar, "true");
  EXPECT_EQ(f->origin.describe(), "--set sim.functional=true");
  EXPECT_EQ(f->origin.base_dir, "/cwd");
  const ConfigNode* n = root.find("networks");
  ASSERT_TRUE(n->is_list());
  EXPECT_EQ(n->children[1].find("path")->origin.describe(), "--set networks=[a, {path: b}]");
}

}  // namespace
}  // namespace strider::config

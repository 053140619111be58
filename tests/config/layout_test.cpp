// The floors of the source tree run one way (DESIGN section 6): core/ includes nothing from
// planner/, model/, tb/, python/ or SystemC; planner/ includes nothing from model/, tb/ or SystemC.
// Every #include line of every source under those folders is read; a violation names the file,
// the line and the include.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// "file:line: #include ..." for each include in `dir` whose target matches `forbidden`.
std::vector<std::string> includes_matching(const std::string& dir, const std::regex& forbidden) {
  std::vector<std::string> hits;
  const fs::path root = fs::path(STRIDER_SOURCE_DIR) / dir;
  const std::regex include_line(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (std::regex_search(line, m, include_line) && std::regex_search(m[1].str(), forbidden)) {
        hits.push_back(fs::relative(entry.path(), STRIDER_SOURCE_DIR).string() + ":" +
                       std::to_string(n) + ": " + line);
      }
    }
  }
  return hits;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += x + "\n";
  return s;
}

TEST(Layout, CoreIncludesNothingAboveIt) {
  const auto hits =
      includes_matching("core", std::regex(R"(^(planner|model|tb|python|fuzz)/|^systemc|^sysc/)"));
  EXPECT_TRUE(hits.empty()) << joined(hits);
}

TEST(Layout, PlannerNeverIncludesTheModelOrSystemC) {
  const auto hits =
      includes_matching("planner", std::regex(R"(^(model|tb|python)/|^systemc|^sysc/)"));
  EXPECT_TRUE(hits.empty()) << joined(hits);
}

TEST(Layout, OldGroundFloorsAreGone) {
  for (const char* old : {"arch", "timing", "common", "planner/src", "planner/include"}) {
    EXPECT_FALSE(fs::exists(fs::path(STRIDER_SOURCE_DIR) / old)) << old << " should live in core/";
  }
}

}  // namespace

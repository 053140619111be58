// BundledConfigs (see bundled_configs.h).
#include "tb/bundled_configs.h"

#include <filesystem>

#include "tb/sweep_runner.h"

namespace strider {

namespace fs = std::filesystem;

std::string find_bundled_config(const std::string& relative, std::vector<std::string>* tried) {
  const fs::path bin = fs::path(self_exe()).parent_path();
  const fs::path candidates[] = {fs::current_path() / "configs", bin / "configs",
                                 bin.parent_path() / "configs",
                                 bin.parent_path() / "share/strider/configs"};
  std::error_code ec;
  for (const fs::path& dir : candidates) {
    const fs::path p = (dir / relative).lexically_normal();
    if (tried) tried->push_back(p.string());
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return "";
}

}  // namespace strider

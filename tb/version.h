// The program's version (CMake's PROJECT_VERSION) and the git revision of the sources it was
// configured from ("unknown" outside a git checkout), from the compile definitions
// STRIDER_VERSION and STRIDER_GIT_REVISION. `strider --version` prints them; summary.json
// carries them as "version" and "git_revision".
#pragma once

#include <string>

namespace strider {

std::string strider_version();
std::string strider_git_revision();

}  // namespace strider

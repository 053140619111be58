// See version.h.
#include "tb/version.h"

#ifndef STRIDER_VERSION
#error "STRIDER_VERSION must be defined by the build (CMakeLists.txt)"
#endif
#ifndef STRIDER_GIT_REVISION
#error "STRIDER_GIT_REVISION must be defined by the build (CMakeLists.txt)"
#endif

namespace strider {

std::string strider_version() { return STRIDER_VERSION; }
std::string strider_git_revision() { return STRIDER_GIT_REVISION; }

}  // namespace strider

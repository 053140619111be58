# Run by `cmake --install` (cmake/install.cmake): the installed headers under
# STRIDER_INSTALLED_HEADERS include each other as "strider/core/...", "strider/planner/...", where
# the source tree says "core/...", so a consumer needs only the prefix's include/ on its path.
file(GLOB_RECURSE headers "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${STRIDER_INSTALLED_HEADERS}/*.h")
foreach(h IN LISTS headers)
  file(READ "${h}" text)
  string(REGEX REPLACE "#include \"(core|model|tb|planner)/" "#include \"strider/\\1/" text
         "${text}")
  file(WRITE "${h}" "${text}")
endforeach()

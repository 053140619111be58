# `cmake --install build --prefix DIR`: the program (DIR/bin/strider), the libraries (DIR/lib),
# the headers (DIR/include/strider/..., included as <strider/core/arch/config_loader.h>: the
# installed copies include each other as "strider/...", so only DIR/include is on a consumer's
# include path and no generic top-level name such as "core/" or "tb/" is), the configs (DIR/share/strider/configs) and the CMake
# package Strider (DIR/lib/cmake/Strider): `find_package(Strider)` then link Strider::strider_tb
# (everything), Strider::strider_model (the SystemC model), Strider::strider_planner, ...
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(strider_libraries GLOBAL PROPERTY STRIDER_LIBRARIES)
install(TARGETS ${strider_libraries} strider_planner strider_tb strider
        EXPORT StriderTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY core model tb planner DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/strider
        FILES_MATCHING PATTERN "*.h")
# In the source tree the headers include each other from the repository root ("core/..."); the
# installed copies say "strider/core/...".
install(CODE "set(STRIDER_INSTALLED_HEADERS \"${CMAKE_INSTALL_INCLUDEDIR}/strider\")")
install(SCRIPT ${CMAKE_SOURCE_DIR}/cmake/rewrite_includes.cmake)
install(DIRECTORY configs DESTINATION ${CMAKE_INSTALL_DATADIR}/strider)

set(package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Strider)
install(EXPORT StriderTargets NAMESPACE Strider:: DESTINATION ${package_dir})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/StriderConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/StriderConfig.cmake INSTALL_DESTINATION ${package_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/StriderConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/StriderConfig.cmake ${CMAKE_BINARY_DIR}/StriderConfigVersion.cmake
        DESTINATION ${package_dir})

# Installs into build/install-test and builds tests/install/consumer against the package. Not in
# a sanitizer build: its installed libraries would need the consumer built with the sanitizers too.
if(STRIDER_SANITIZE)
  return()
endif()
add_test(NAME install_package
         COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR}
                 -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DWORK_DIR=${CMAKE_BINARY_DIR}/install-test
                 -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                 -P ${CMAKE_SOURCE_DIR}/tests/install/install_test.cmake)
set_tests_properties(install_package PROPERTIES TIMEOUT 300)

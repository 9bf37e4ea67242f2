# `cmake --install` layout: GNU directories under CMAKE_INSTALL_PREFIX (the packages use /usr),
# Debian policy permissions for every directory created, whatever the builder's umask.
include(GNUInstallDirs)
set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
    GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# Dependencies, all from Debian packages (see README). Shared by the build and by the installed package config.
find_package(Threads REQUIRED)
find_package(fmt 9 CONFIG REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(PkgConfig REQUIRED)
# libpqxx and MariaDB Connector/C ship no CMake config on Debian 12, only pkg-config files.
pkg_check_modules(PQXX REQUIRED IMPORTED_TARGET GLOBAL libpqxx>=6.4)
pkg_check_modules(MARIADB REQUIRED IMPORTED_TARGET GLOBAL libmariadb)
find_package(GTest REQUIRED)
find_package(rapidcheck CONFIG REQUIRED)  # Debian's RapidCheck has no version file: ask for none

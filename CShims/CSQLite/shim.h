// SQLite 3 (Debian: libsqlite3-dev). Only MatterHome imports this module.
#ifndef MATTERHUB_CSQLITE_SHIM_H
#define MATTERHUB_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif

#ifndef COMMITS_MIRROR_CSQLITE_SHIM_H
#define COMMITS_MIRROR_CSQLITE_SHIM_H

// Typed wrappers for sqlite3's variadic calls, and the destructor sentinel that
// Swift cannot spell (SQLITE_TRANSIENT is a cast of -1 to a function pointer).

#include <sqlite3.h>

static inline int csqlite_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif

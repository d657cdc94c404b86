#ifndef STEPSYNC_SQLITE_SETUP_H
#define STEPSYNC_SQLITE_SETUP_H

/* sqlite3_config is variadic, which Swift cannot call: this wraps the one call the executable makes. Declared here
   rather than by including <sqlite3.h>, so that this module and GRDB's GRDBSQLite do not both define its types. */
int sqlite3_config(int, ...);

/* SQLITE_CONFIG_MEMSTATUS (9) off: SQLite then keeps no allocation statistics, and its malloc and free take no
   global mutex. Must run before SQLite is initialised (the first open); returns SQLITE_MISUSE (21) after. */
static inline int stepsync_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(9, 0);
}

#endif

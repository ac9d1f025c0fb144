/* A fault-injecting SQLite VFS for the tests, after SQLite's own test_vfs.c / test_devsym.c:
 * it wraps the default VFS and forwards every call, counting writes, syncs and truncates per
 * kind of file, and fails them on demand (a full disk, an I/O error) until told to stop, so
 * a test can make "the disk filled up, then space was freed" happen at a chosen call; and it
 * can hold one call until released, to act while a transaction is in flight. The
 * controls are atomics: a test thread may arm and clear faults while another thread (the
 * journal's writer) is inside SQLite. */
#ifndef BERTH_TESTS_FAULTVFS_H
#define BERTH_TESTS_FAULTVFS_H

#define FAULTVFS_NAME "faulty"

/* Which files a fault applies to (a mask). */
enum {
    FAULTVFS_DB = 1,    /* the main database file (written by checkpoints in WAL mode) */
    FAULTVFS_WAL = 2,   /* its -wal file (every commit) */
    FAULTVFS_OTHER = 4, /* rollback journals, temp files */
    FAULTVFS_ANY = 7,
};

/* The calls that can fail. */
enum faultvfs_op { FAULTVFS_WRITE, FAULTVFS_SYNC, FAULTVFS_TRUNCATE, FAULTVFS_NOPS };

/* Registers the VFS under FAULTVFS_NAME (not as the default); again is harmless. Returns
 * SQLITE_OK or SQLite's error code. */
int faultvfs_register(void);

/* From now on, the nth call of op (1: the very next) on a file in files, and every later
 * one, returns rc without reaching the file: SQLITE_FULL (for a write: as if ENOSPC),
 * SQLITE_IOERR_WRITE, SQLITE_IOERR_FSYNC, ... Replaces op's earlier fault. */
void faultvfs_fail(enum faultvfs_op op, int files, long nth, int rc);
/* Stops every fault ("space was freed"); the counts go on. */
void faultvfs_clear(void);
/* Stops every fault and stall and zeroes every count. */
void faultvfs_reset(void);
/* The next call of op on a file in files waits inside the VFS until faultvfs_unstall (then
 * goes on: to the file, or to a fault armed meanwhile), so a test can act while a
 * transaction is half done. One stall at a time. */
void faultvfs_stall(enum faultvfs_op op, int files);
/* Calls waiting in a stall now (0 or 1). */
int faultvfs_stalled(void);
/* Lets the stalled call go on (or, if none came yet, disarms the stall). */
void faultvfs_unstall(void);
/* Calls of op on the files in the mask so far (failed ones included). */
long faultvfs_calls(enum faultvfs_op op, int files);
/* Calls of op failed so far. */
long faultvfs_failed(enum faultvfs_op op);

#endif

/* The fault-injecting VFS (see faultvfs.h): a shim over the default VFS, one wrapper file
 * per open file holding the real one right after it, every method forwarded; xWrite, xSync
 * and xTruncate count themselves, wait in a stall aimed at them, and fail while their fault
 * is armed. */
#include <sqlite3.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "faultvfs.h"

struct fault {
    atomic_int armed, files, rc;
    atomic_long nth, seen; /* seen: matching calls since armed */
};

static struct fault faults[FAULTVFS_NOPS];
static atomic_long calls[FAULTVFS_NOPS][3]; /* by file kind: db, wal, other */
static atomic_long failed[FAULTVFS_NOPS];
static atomic_int stall_op = -1, stall_files, stalled, unstalled;

struct ffile {
    sqlite3_file base;
    sqlite3_file *real; /* the default VFS's file, in the same allocation after this */
    int kind;           /* FAULTVFS_DB, _WAL or _OTHER */
};

static sqlite3_vfs *real_vfs(sqlite3_vfs *v)
{
    return v->pAppData;
}

static sqlite3_file *real(sqlite3_file *f)
{
    return ((struct ffile *)f)->real;
}

/* Counts a call of op on f, first waiting out a stall aimed at it; returns the error to
 * fake, or SQLITE_OK to go on. */
static int fault_check(enum faultvfs_op op, sqlite3_file *f)
{
    int kind = ((struct ffile *)f)->kind, want = (int)op;
    if ((atomic_load(&stall_files) & kind) &&
        atomic_compare_exchange_strong(&stall_op, &want, -1)) {
        atomic_fetch_add(&stalled, 1);
        while (!atomic_load(&unstalled)) {
            struct timespec ts = {0, 200000}; /* polled: the test thread releases it */
            nanosleep(&ts, NULL);
        }
        atomic_fetch_sub(&stalled, 1);
    }
    atomic_fetch_add(&calls[op][kind == FAULTVFS_DB ? 0 : kind == FAULTVFS_WAL ? 1 : 2], 1);
    struct fault *ft = &faults[op];
    if (!atomic_load(&ft->armed) || !(atomic_load(&ft->files) & kind))
        return SQLITE_OK;
    if (atomic_fetch_add(&ft->seen, 1) + 1 < atomic_load(&ft->nth))
        return SQLITE_OK;
    atomic_fetch_add(&failed[op], 1);
    return atomic_load(&ft->rc);
}

static int f_close(sqlite3_file *f)
{
    return real(f)->pMethods->xClose(real(f));
}

static int f_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
    return real(f)->pMethods->xRead(real(f), buf, n, off);
}

static int f_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
    int rc = fault_check(FAULTVFS_WRITE, f);
    return rc ? rc : real(f)->pMethods->xWrite(real(f), buf, n, off);
}

static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    int rc = fault_check(FAULTVFS_TRUNCATE, f);
    return rc ? rc : real(f)->pMethods->xTruncate(real(f), size);
}

static int f_sync(sqlite3_file *f, int flags)
{
    int rc = fault_check(FAULTVFS_SYNC, f);
    return rc ? rc : real(f)->pMethods->xSync(real(f), flags);
}

static int f_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
    return real(f)->pMethods->xFileSize(real(f), size);
}

static int f_lock(sqlite3_file *f, int lock)
{
    return real(f)->pMethods->xLock(real(f), lock);
}

static int f_unlock(sqlite3_file *f, int lock)
{
    return real(f)->pMethods->xUnlock(real(f), lock);
}

static int f_check_reserved(sqlite3_file *f, int *out)
{
    return real(f)->pMethods->xCheckReservedLock(real(f), out);
}

static int f_file_control(sqlite3_file *f, int op, void *arg)
{
    return real(f)->pMethods->xFileControl(real(f), op, arg);
}

static int f_sector_size(sqlite3_file *f)
{
    return real(f)->pMethods->xSectorSize(real(f));
}

static int f_device_chars(sqlite3_file *f)
{
    return real(f)->pMethods->xDeviceCharacteristics(real(f));
}

static int f_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp)
{
    return real(f)->pMethods->xShmMap(real(f), pg, pgsz, extend, pp);
}

static int f_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
    return real(f)->pMethods->xShmLock(real(f), off, n, flags);
}

static void f_shm_barrier(sqlite3_file *f)
{
    real(f)->pMethods->xShmBarrier(real(f));
}

static int f_shm_unmap(sqlite3_file *f, int del)
{
    return real(f)->pMethods->xShmUnmap(real(f), del);
}

static int f_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **pp)
{
    return real(f)->pMethods->xFetch(real(f), off, n, pp);
}

static int f_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
    return real(f)->pMethods->xUnfetch(real(f), off, p);
}

static const sqlite3_io_methods methods = {
    3,
    f_close,
    f_read,
    f_write,
    f_truncate,
    f_sync,
    f_file_size,
    f_lock,
    f_unlock,
    f_check_reserved,
    f_file_control,
    f_sector_size,
    f_device_chars,
    f_shm_map,
    f_shm_lock,
    f_shm_barrier,
    f_shm_unmap,
    f_fetch,
    f_unfetch,
};

static int v_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *file, int flags,
                  int *out_flags)
{
    struct ffile *f = (struct ffile *)file;
    f->real = (sqlite3_file *)(f + 1);
    f->kind = flags & SQLITE_OPEN_MAIN_DB ? FAULTVFS_DB
              : flags & SQLITE_OPEN_WAL   ? FAULTVFS_WAL
                                          : FAULTVFS_OTHER;
    int rc = real_vfs(v)->xOpen(real_vfs(v), name, f->real, flags, out_flags);
    /* SQLite calls xClose when pMethods is set, even after a failed open */
    f->base.pMethods = f->real->pMethods ? &methods : NULL;
    return rc;
}

static int v_delete(sqlite3_vfs *v, const char *name, int sync_dir)
{
    return real_vfs(v)->xDelete(real_vfs(v), name, sync_dir);
}

static int v_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
    return real_vfs(v)->xAccess(real_vfs(v), name, flags, out);
}

static int v_full_pathname(sqlite3_vfs *v, const char *name, int n, char *out)
{
    return real_vfs(v)->xFullPathname(real_vfs(v), name, n, out);
}

static void *v_dlopen(sqlite3_vfs *v, const char *name)
{
    return real_vfs(v)->xDlOpen(real_vfs(v), name);
}

static void v_dlerror(sqlite3_vfs *v, int n, char *msg)
{
    real_vfs(v)->xDlError(real_vfs(v), n, msg);
}

static void (*v_dlsym(sqlite3_vfs *v, void *h, const char *sym))(void)
{
    return real_vfs(v)->xDlSym(real_vfs(v), h, sym);
}

static void v_dlclose(sqlite3_vfs *v, void *h)
{
    real_vfs(v)->xDlClose(real_vfs(v), h);
}

static int v_randomness(sqlite3_vfs *v, int n, char *out)
{
    return real_vfs(v)->xRandomness(real_vfs(v), n, out);
}

static int v_sleep(sqlite3_vfs *v, int us)
{
    return real_vfs(v)->xSleep(real_vfs(v), us);
}

static int v_current_time(sqlite3_vfs *v, double *t)
{
    return real_vfs(v)->xCurrentTime(real_vfs(v), t);
}

static int v_last_error(sqlite3_vfs *v, int n, char *msg)
{
    return real_vfs(v)->xGetLastError(real_vfs(v), n, msg);
}

static int v_current_time64(sqlite3_vfs *v, sqlite3_int64 *t)
{
    return real_vfs(v)->xCurrentTimeInt64(real_vfs(v), t);
}

static sqlite3_vfs vfs;

int faultvfs_register(void)
{
    if (sqlite3_vfs_find(FAULTVFS_NAME))
        return SQLITE_OK;
    sqlite3_vfs *r = sqlite3_vfs_find(NULL);
    if (!r)
        return SQLITE_ERROR;
    /* version 2: the system-call hooks (version 3) stay the real VFS's own business */
    vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(struct ffile) + r->szOsFile,
        .mxPathname = r->mxPathname,
        .zName = FAULTVFS_NAME,
        .pAppData = r,
        .xOpen = v_open,
        .xDelete = v_delete,
        .xAccess = v_access,
        .xFullPathname = v_full_pathname,
        .xDlOpen = v_dlopen,
        .xDlError = v_dlerror,
        .xDlSym = v_dlsym,
        .xDlClose = v_dlclose,
        .xRandomness = v_randomness,
        .xSleep = v_sleep,
        .xCurrentTime = v_current_time,
        .xGetLastError = v_last_error,
        .xCurrentTimeInt64 = v_current_time64,
    };
    return sqlite3_vfs_register(&vfs, 0);
}

void faultvfs_fail(enum faultvfs_op op, int files, long nth, int rc)
{
    struct fault *ft = &faults[op];
    atomic_store(&ft->armed, 0);
    atomic_store(&ft->files, files);
    atomic_store(&ft->rc, rc);
    atomic_store(&ft->nth, nth < 1 ? 1 : nth);
    atomic_store(&ft->seen, 0);
    atomic_store(&ft->armed, 1);
}

void faultvfs_stall(enum faultvfs_op op, int files)
{
    atomic_store(&unstalled, 0);
    atomic_store(&stall_files, files);
    atomic_store(&stall_op, (int)op);
}

int faultvfs_stalled(void)
{
    return atomic_load(&stalled);
}

void faultvfs_unstall(void)
{
    atomic_store(&stall_op, -1);
    atomic_store(&unstalled, 1);
}

void faultvfs_clear(void)
{
    for (int op = 0; op < FAULTVFS_NOPS; op++)
        atomic_store(&faults[op].armed, 0);
}

void faultvfs_reset(void)
{
    faultvfs_clear();
    faultvfs_unstall();
    for (int op = 0; op < FAULTVFS_NOPS; op++) {
        for (int k = 0; k < 3; k++)
            atomic_store(&calls[op][k], 0);
        atomic_store(&failed[op], 0);
    }
}

long faultvfs_calls(enum faultvfs_op op, int files)
{
    long n = 0;
    for (int k = 0; k < 3; k++)
        if (files & (1 << k))
            n += atomic_load(&calls[op][k]);
    return n;
}

long faultvfs_failed(enum faultvfs_op op)
{
    return atomic_load(&failed[op]);
}

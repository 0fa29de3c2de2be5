// A counting SQLite VFS shim: every method delegates to the default VFS; xWrite and xSync
// also count, per file kind, into a cwb_io_counters. Follows SQLite's documented shim
// pattern (our sqlite3_file header followed by the real VFS's file object).
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include "disk_io.h"

void cwb_io_count_write(cwb_io_counters *counters, int kind, int64_t offset, int64_t amount) {
    if (amount <= 0) return;
    counters->write_calls[kind] += 1;
    counters->write_bytes[kind] += amount;
    int64_t first = offset / 4096, last = (offset + amount - 1) / 4096;
    counters->page_bytes[kind] += (last - first + 1) * 4096;
}

void cwb_io_count_sync(cwb_io_counters *counters, int kind) { counters->syncs[kind] += 1; }

int cwb_io_write_should_fail(const cwb_io_counters *counters, int64_t amount) {
    if (counters->fail_writes_after_bytes < 0) return 0;
    int64_t total = 0;
    for (int kind = 0; kind < CWB_FILE_KINDS; kind++) total += counters->write_bytes[kind];
    return total + amount > counters->fail_writes_after_bytes;
}

typedef struct counting_vfs {
    sqlite3_vfs base;
    sqlite3_vfs *real;
    cwb_io_counters *counters;
    char *name;
} counting_vfs;

typedef struct counting_file {
    sqlite3_file base;
    counting_vfs *vfs;
    int kind;
    sqlite3_file *real;  // points just past this struct
} counting_file;

#define REAL(file) (((counting_file *)(file))->real)

static int cf_close(sqlite3_file *f) {
    int rc = REAL(f)->pMethods ? REAL(f)->pMethods->xClose(REAL(f)) : SQLITE_OK;
    return rc;
}
static int cf_read(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    return REAL(f)->pMethods->xRead(REAL(f), buffer, amount, offset);
}
static int cf_write(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    counting_file *file = (counting_file *)f;
    if (cwb_io_write_should_fail(file->vfs->counters, amount)) return SQLITE_FULL;
    int rc = REAL(f)->pMethods->xWrite(REAL(f), buffer, amount, offset);
    if (rc == SQLITE_OK) cwb_io_count_write(file->vfs->counters, file->kind, offset, amount);
    return rc;
}
static int cf_truncate(sqlite3_file *f, sqlite3_int64 size) { return REAL(f)->pMethods->xTruncate(REAL(f), size); }
static int cf_sync(sqlite3_file *f, int flags) {
    counting_file *file = (counting_file *)f;
    int rc = REAL(f)->pMethods->xSync(REAL(f), flags);
    if (rc == SQLITE_OK) cwb_io_count_sync(file->vfs->counters, file->kind);
    return rc;
}
static int cf_file_size(sqlite3_file *f, sqlite3_int64 *size) { return REAL(f)->pMethods->xFileSize(REAL(f), size); }
static int cf_lock(sqlite3_file *f, int level) { return REAL(f)->pMethods->xLock(REAL(f), level); }
static int cf_unlock(sqlite3_file *f, int level) { return REAL(f)->pMethods->xUnlock(REAL(f), level); }
static int cf_check_reserved_lock(sqlite3_file *f, int *out) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out); }
static int cf_file_control(sqlite3_file *f, int op, void *arg) { return REAL(f)->pMethods->xFileControl(REAL(f), op, arg); }
static int cf_sector_size(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int cf_device_characteristics(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int cf_shm_map(sqlite3_file *f, int page, int size, int extend, void volatile **out) {
    return REAL(f)->pMethods->xShmMap(REAL(f), page, size, extend, out);
}
static int cf_shm_lock(sqlite3_file *f, int offset, int n, int flags) { return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags); }
static void cf_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int cf_shm_unmap(sqlite3_file *f, int delete_flag) { return REAL(f)->pMethods->xShmUnmap(REAL(f), delete_flag); }
static int cf_fetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **out) {
    return REAL(f)->pMethods->xFetch(REAL(f), offset, amount, out);
}
static int cf_unfetch(sqlite3_file *f, sqlite3_int64 offset, void *page) { return REAL(f)->pMethods->xUnfetch(REAL(f), offset, page); }

static const sqlite3_io_methods counting_methods = {
    3, cf_close, cf_read, cf_write, cf_truncate, cf_sync, cf_file_size, cf_lock, cf_unlock,
    cf_check_reserved_lock, cf_file_control, cf_sector_size, cf_device_characteristics,
    cf_shm_map, cf_shm_lock, cf_shm_barrier, cf_shm_unmap, cf_fetch, cf_unfetch,
};

static int cv_open(sqlite3_vfs *v, const char *name, sqlite3_file *f, int flags, int *out_flags) {
    counting_vfs *vfs = (counting_vfs *)v;
    counting_file *file = (counting_file *)f;
    memset(file, 0, sizeof(*file));
    file->vfs = vfs;
    file->real = (sqlite3_file *)(file + 1);
    if (flags & SQLITE_OPEN_MAIN_DB) file->kind = CWB_FILE_DB;
    else if (flags & SQLITE_OPEN_MAIN_JOURNAL) file->kind = CWB_FILE_JOURNAL;
    else if (flags & SQLITE_OPEN_WAL) file->kind = CWB_FILE_WAL;
    else file->kind = CWB_FILE_OTHER;
    int rc = vfs->real->xOpen(vfs->real, name, file->real, flags, out_flags);
    // The real file's methods decide the version we may expose; without them (a failed
    // open) SQLite must not call ours.
    file->base.pMethods = file->real->pMethods ? &counting_methods : NULL;
    return rc;
}
static int cv_delete(sqlite3_vfs *v, const char *name, int sync_dir) {
    sqlite3_vfs *real = ((counting_vfs *)v)->real;
    return real->xDelete(real, name, sync_dir);
}
static int cv_access(sqlite3_vfs *v, const char *name, int flags, int *out) {
    sqlite3_vfs *real = ((counting_vfs *)v)->real;
    return real->xAccess(real, name, flags, out);
}
static int cv_full_pathname(sqlite3_vfs *v, const char *name, int size, char *out) {
    sqlite3_vfs *real = ((counting_vfs *)v)->real;
    return real->xFullPathname(real, name, size, out);
}
static void *cv_dl_open(sqlite3_vfs *v, const char *name) { sqlite3_vfs *r = ((counting_vfs *)v)->real; return r->xDlOpen(r, name); }
static void cv_dl_error(sqlite3_vfs *v, int n, char *out) { sqlite3_vfs *r = ((counting_vfs *)v)->real; r->xDlError(r, n, out); }
static void (*cv_dl_sym(sqlite3_vfs *v, void *handle, const char *symbol))(void) {
    sqlite3_vfs *r = ((counting_vfs *)v)->real;
    return r->xDlSym(r, handle, symbol);
}
static void cv_dl_close(sqlite3_vfs *v, void *handle) { sqlite3_vfs *r = ((counting_vfs *)v)->real; r->xDlClose(r, handle); }
static int cv_randomness(sqlite3_vfs *v, int n, char *out) { sqlite3_vfs *r = ((counting_vfs *)v)->real; return r->xRandomness(r, n, out); }
static int cv_sleep(sqlite3_vfs *v, int micros) { sqlite3_vfs *r = ((counting_vfs *)v)->real; return r->xSleep(r, micros); }
static int cv_current_time(sqlite3_vfs *v, double *out) { sqlite3_vfs *r = ((counting_vfs *)v)->real; return r->xCurrentTime(r, out); }
static int cv_get_last_error(sqlite3_vfs *v, int n, char *out) { sqlite3_vfs *r = ((counting_vfs *)v)->real; return r->xGetLastError(r, n, out); }
static int cv_current_time_int64(sqlite3_vfs *v, sqlite3_int64 *out) {
    sqlite3_vfs *r = ((counting_vfs *)v)->real;
    return r->xCurrentTimeInt64(r, out);
}

int cwb_counting_vfs_register(const char *name, cwb_io_counters *counters) {
    int rc = sqlite3_initialize();
    if (rc != SQLITE_OK) return rc;
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    if (real == NULL) return SQLITE_ERROR;
    counting_vfs *vfs = calloc(1, sizeof(counting_vfs));
    if (vfs == NULL) return SQLITE_NOMEM;
    vfs->real = real;
    vfs->counters = counters;
    vfs->name = strdup(name);
    vfs->base.iVersion = 2;
    vfs->base.szOsFile = (int)sizeof(counting_file) + real->szOsFile;
    vfs->base.mxPathname = real->mxPathname;
    vfs->base.zName = vfs->name;
    vfs->base.xOpen = cv_open;
    vfs->base.xDelete = cv_delete;
    vfs->base.xAccess = cv_access;
    vfs->base.xFullPathname = cv_full_pathname;
    vfs->base.xDlOpen = cv_dl_open;
    vfs->base.xDlError = cv_dl_error;
    vfs->base.xDlSym = cv_dl_sym;
    vfs->base.xDlClose = cv_dl_close;
    vfs->base.xRandomness = cv_randomness;
    vfs->base.xSleep = cv_sleep;
    vfs->base.xCurrentTime = cv_current_time;
    vfs->base.xGetLastError = cv_get_last_error;
    vfs->base.xCurrentTimeInt64 = cv_current_time_int64;
    rc = sqlite3_vfs_register(&vfs->base, 0);
    if (rc != SQLITE_OK) {
        free(vfs->name);
        free(vfs);
    }
    return rc;
}

void cwb_counting_vfs_unregister(const char *name) {
    sqlite3_vfs *found = sqlite3_vfs_find(name);
    if (found == NULL || found->xOpen != cv_open) return;
    sqlite3_vfs_unregister(found);
    free(((counting_vfs *)found)->name);
    free(found);
}

#ifndef CWB_DISK_IO_H
#define CWB_DISK_IO_H
#include <stdint.h>

// Bytes handed to write calls, split by what the file is. Own file writes (the files
// backend, fsCachedData bodies) count as CWB_FILE_DATA.
enum cwb_file_kind { CWB_FILE_DB = 0, CWB_FILE_JOURNAL = 1, CWB_FILE_WAL = 2, CWB_FILE_DATA = 3, CWB_FILE_OTHER = 4, CWB_FILE_KINDS = 5 };

typedef struct cwb_io_counters {
    int64_t write_calls[CWB_FILE_KINDS];
    int64_t write_bytes[CWB_FILE_KINDS];
    // The 4 KiB pages each write call touches, times 4096.
    int64_t page_bytes[CWB_FILE_KINDS];
    int64_t syncs[CWB_FILE_KINDS];
    // Fault injection for tests: once write_bytes (all kinds) would pass this, writes fail
    // as a full disk does (SQLITE_FULL; ENOSPC for own writes). Negative = never.
    int64_t fail_writes_after_bytes;
} cwb_io_counters;

// Records one write of `amount` bytes at `offset` (page rounding included).
void cwb_io_count_write(cwb_io_counters *counters, int kind, int64_t offset, int64_t amount);

// Records one successful sync of a file of `kind`.
void cwb_io_count_sync(cwb_io_counters *counters, int kind);

// Whether a write of `amount` more bytes must fail under the injected limit.
int cwb_io_write_should_fail(const cwb_io_counters *counters, int64_t amount);

// Registers a VFS named `name` that delegates everything to the default VFS and counts
// writes and syncs into `counters` by file kind (db, journal, wal, other). Not made the
// default. Returns an SQLite result code.
int cwb_counting_vfs_register(const char *name, cwb_io_counters *counters);

// Unregisters and frees a VFS made by cwb_counting_vfs_register (after every connection
// using it is closed).
void cwb_counting_vfs_unregister(const char *name);
#endif

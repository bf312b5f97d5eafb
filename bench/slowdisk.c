/* An emulated slow disk for `python -m bench service --slow-disk MS`: every fsync and
 * fdatasync of the process (SQLite's own included) returns MS milliseconds later than
 * the real one did. With SLOW_DISK_SERIAL=1 the device flushes one request at a time
 * (a sync waits for the one in progress); without, flushes overlap.
 * Loaded with LD_PRELOAD; built by bench/slowdisk.py with the system's C compiler. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t device = PTHREAD_MUTEX_INITIALIZER;

static int delayed(int (*real)(int), int fd) {
    static long nanos = -1;
    static int serial = 0;
    if (nanos < 0) {
        const char *ms = getenv("SLOW_DISK_MS");
        const char *s = getenv("SLOW_DISK_SERIAL");
        nanos = ms ? (long)(atof(ms) * 1e6) : 4000000L;
        serial = s && s[0] == '1';
    }
    if (serial) pthread_mutex_lock(&device);
    int result = real(fd);
    struct timespec wait = {nanos / 1000000000L, nanos % 1000000000L};
    nanosleep(&wait, NULL);
    if (serial) pthread_mutex_unlock(&device);
    return result;
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return delayed(real, fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    return delayed(real, fd);
}

/*
 * lockpick clock shim: an LD_PRELOAD library that moves a process's wall clock.
 *
 * CLOCK_REALTIME (and _COARSE), gettimeofday() and time() return the kernel's
 * time plus an offset in milliseconds read from the file named by the
 * environment variable LOCKPICK_CLOCK_FILE (text: an optional sign and digits,
 * e.g. "30000" or "-30000"). The file is re-read whenever its inode, size or
 * mtime changes (one stat per wall-clock call), so a write takes effect at once.
 * Monotonic clocks are left alone: the point is to skew wall time, as an
 * NTP step or a wrong host clock does.
 *
 * Why not libfaketime: it resolves the real functions with dlsym(), which
 * allocates, and jemalloc's init in redis-server 7 calls clock_gettime: a
 * deadlock. Here every kernel call is a raw syscall(2), nothing allocates, no
 * stdio, no locks; the cached state is read and written with atomics.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static char clock_file[4096];
static int have_file = -1;              /* -1 unknown, 0 none, 1 clock_file holds a path */
static int64_t offset_ns;               /* current offset, atomically accessed */
static uint64_t seen_ino, seen_size, seen_mtime_ns;

static void init_path(void) {
  const char *p = getenv("LOCKPICK_CLOCK_FILE"); /* getenv does not allocate */
  size_t n = p ? strlen(p) : 0;
  if (n == 0 || n >= sizeof clock_file) { __atomic_store_n(&have_file, 0, __ATOMIC_RELEASE); return; }
  memcpy(clock_file, p, n + 1);
  __atomic_store_n(&have_file, 1, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void clockshim_init(void) { init_path(); }

static int64_t parse_ms(const char *s, long n) {
  long i = 0;
  int neg = 0;
  int64_t v = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) v = v * 10 + (s[i] - '0');
  return neg ? -v : v;
}

/* The offset now, re-reading the file only when it changed. */
static int64_t current_offset_ns(void) {
  if (__atomic_load_n(&have_file, __ATOMIC_ACQUIRE) < 0) init_path();
  if (__atomic_load_n(&have_file, __ATOMIC_ACQUIRE) != 1) return 0;
  struct stat st;
  if (syscall(SYS_newfstatat, AT_FDCWD, clock_file, &st, 0) != 0) return __atomic_load_n(&offset_ns, __ATOMIC_RELAXED);
  uint64_t mt = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
  if ((uint64_t)st.st_ino == __atomic_load_n(&seen_ino, __ATOMIC_RELAXED) &&
      (uint64_t)st.st_size == __atomic_load_n(&seen_size, __ATOMIC_RELAXED) &&
      mt == __atomic_load_n(&seen_mtime_ns, __ATOMIC_RELAXED))
    return __atomic_load_n(&offset_ns, __ATOMIC_RELAXED);
  int fd = (int)syscall(SYS_openat, AT_FDCWD, clock_file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return __atomic_load_n(&offset_ns, __ATOMIC_RELAXED);
  char buf[64];
  long n = syscall(SYS_read, fd, buf, sizeof buf);
  syscall(SYS_close, fd);
  if (n > 0) __atomic_store_n(&offset_ns, parse_ms(buf, n) * 1000000, __ATOMIC_RELAXED);
  __atomic_store_n(&seen_ino, (uint64_t)st.st_ino, __ATOMIC_RELAXED);
  __atomic_store_n(&seen_size, (uint64_t)st.st_size, __ATOMIC_RELAXED);
  __atomic_store_n(&seen_mtime_ns, mt, __ATOMIC_RELAXED);
  return __atomic_load_n(&offset_ns, __ATOMIC_RELAXED);
}

static void shift(struct timespec *ts, int64_t off) {
  int64_t ns = (int64_t)ts->tv_nsec + off % 1000000000;
  ts->tv_sec += off / 1000000000 + ns / 1000000000;
  ns %= 1000000000;
  if (ns < 0) { ns += 1000000000; ts->tv_sec -= 1; }
  ts->tv_nsec = ns;
}

int clock_gettime(clockid_t clk, struct timespec *ts) {
  long r = syscall(SYS_clock_gettime, clk, ts);
  if (r == 0 && (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE)) shift(ts, current_offset_ns());
  return (int)r;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  (void)tz; /* the timezone argument is obsolete; Linux callers pass NULL */
  struct timespec ts;
  long r = syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
  if (r != 0) return (int)r;
  shift(&ts, current_offset_ns());
  tv->tv_sec = ts.tv_sec;
  tv->tv_usec = ts.tv_nsec / 1000;
  return 0;
}

time_t time(time_t *t) {
  struct timespec ts;
  if (syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
  shift(&ts, current_offset_ns());
  if (t) *t = ts.tv_sec;
  return ts.tv_sec;
}

/* An LD_PRELOAD heap-allocation counter for bench/alloc_per_step.sh.
 *
 *   cc -shared -fPIC -O2 -o libmalloc_count.so malloc_count.c
 *   MALLOC_COUNT_OUT=counts.txt LD_PRELOAD=./libmalloc_count.so ./model --max-steps 20
 *
 * Counts every call of malloc, calloc, realloc, posix_memalign, aligned_alloc,
 * memalign, valloc and pvalloc (C++ operator new goes through malloc) and
 * writes "allocs N\nbytes B\nfrees F\n" to $MALLOC_COUNT_OUT (or stderr) when
 * the process exits. It forwards to glibc's __libc_* entry points, so it
 * needs no dlsym (which itself allocates) and works from the first call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static unsigned long long n_allocs, n_bytes, n_frees;

static void count(size_t bytes) {
  __atomic_add_fetch(&n_allocs, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&n_bytes, bytes, __ATOMIC_RELAXED);
}

void *malloc(size_t n) { count(n); return __libc_malloc(n); }
void *calloc(size_t k, size_t n) { count(k * n); return __libc_calloc(k, n); }
void *realloc(void *p, size_t n) { count(n); return __libc_realloc(p, n); }
void free(void *p) {
  if (p) __atomic_add_fetch(&n_frees, 1, __ATOMIC_RELAXED);
  __libc_free(p);
}
void *memalign(size_t a, size_t n) { count(n); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { count(n); return __libc_memalign(a, n); }
void *valloc(size_t n) { count(n); return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), n); }
void *pvalloc(size_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  count(n);
  return __libc_memalign(page, (n + page - 1) / page * page);
}
int posix_memalign(void **out, size_t a, size_t n) {
  count(n);
  void *p = __libc_memalign(a, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

/* Formats an unsigned number without the C library (no allocation). */
static size_t put_u(char *s, unsigned long long v) {
  char tmp[24];
  size_t k = 0, n = 0;
  do { tmp[k++] = (char)('0' + v % 10); v /= 10; } while (v);
  while (k) s[n++] = tmp[--k];
  return n;
}

__attribute__((destructor(101))) static void report(void) {
  char buf[128];
  size_t n = 0;
  memcpy(buf + n, "allocs ", 7); n += 7; n += put_u(buf + n, n_allocs); buf[n++] = '\n';
  memcpy(buf + n, "bytes ", 6); n += 6; n += put_u(buf + n, n_bytes); buf[n++] = '\n';
  memcpy(buf + n, "frees ", 6); n += 6; n += put_u(buf + n, n_frees); buf[n++] = '\n';
  const char *path = getenv("MALLOC_COUNT_OUT");
  int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : 2;
  if (fd < 0) return;
  ssize_t w = write(fd, buf, n);
  (void)w;
  if (fd != 2) close(fd);
}

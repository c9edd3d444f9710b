// heap_sites: an LD_PRELOAD library that keeps, for every live heap block, the call stack that allocated it, and
// writes the live bytes per call stack to a file every HEAP_SITES_INTERVAL seconds (and at exit). Two dumps taken
// a few minutes apart, diffed by Soak/tools/heap_sites.py, name what the heap's growth is made of.
//
// A soak tool, not part of the product. Our test and soak executables link Tests/AllocationCounter, which defines
// malloc & co. in the executable itself; an executable's definitions win over LD_PRELOAD's, so a preloaded malloc
// (heaptrack's, or this library's) never sees a call. Those definitions forward to glibc's __libc_malloc & co.,
// which are undefined in the executable and so resolved through the preload first: this library defines those.
// It also defines malloc & co. for programs without the counter.
//
//   cc -O2 -shared -fPIC -o heap_sites.so Soak/tools/heap_sites.c -ldl -lpthread
//   HEAP_SITES_OUT=/tmp/hs HEAP_SITES_INTERVAL=5 LD_PRELOAD=$PWD/heap_sites.so .build/release/afe-soak tts-long ...
//   -> /tmp/hs.0001.txt, /tmp/hs.0002.txt, ... : a header, /proc/self/maps, then one line per call stack with live
//      bytes: "site LIVE_BYTES LIVE_BLOCKS ALLOCATIONS addr addr ..."
//
// Cost: a backtrace() per allocation (the soaks run several times slower); memory: tables mmapped, not malloc'd.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define DEPTH 24
#define SKIP 2 // record_alloc and the hook itself
#define SITE_BITS 18
#define SITE_SLOTS (1u << SITE_BITS)
#define BLOCK_BUCKET_BITS 22
#define BLOCK_BUCKETS (1u << BLOCK_BUCKET_BITS)
#define BLOCK_NODES (1u << 25)

typedef struct {
    uint64_t hash;
    int depth;
    void *frames[DEPTH];
    int64_t live_bytes, live_blocks;
    uint64_t allocations;
} site_t;

typedef struct {
    uintptr_t address;
    uint64_t size;
    uint32_t site;
    uint32_t next; // index + 1 of the next node in the bucket or the free list; 0 = none
} block_t;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_memalign)(size_t, size_t);
static void (*real_free)(void *);

static site_t *sites;
static uint32_t *buckets;
static block_t *nodes;
static uint32_t node_top, free_nodes;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int busy __attribute__((tls_model("initial-exec")));
static int ready;
static uint64_t dropped; // blocks not recorded: node pool or site table full
static double interval, next_dump, started;
static int dump_number;
static char out_prefix[512];

// Early calls (dlsym's) are served from here and never freed.
static char bootstrap[1 << 16];
static size_t bootstrap_used;
static void *bootstrap_alloc(size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (bootstrap_used + size > sizeof bootstrap) return NULL;
    void *p = bootstrap + bootstrap_used;
    bootstrap_used += size;
    return p;
}
static int from_bootstrap(void *p) { return (char *)p >= bootstrap && (char *)p < bootstrap + sizeof bootstrap; }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void resolve(void) {
    if (real_malloc) return;
    busy++;
    real_malloc = dlsym(RTLD_NEXT, "__libc_malloc");
    real_calloc = dlsym(RTLD_NEXT, "__libc_calloc");
    real_realloc = dlsym(RTLD_NEXT, "__libc_realloc");
    real_memalign = dlsym(RTLD_NEXT, "__libc_memalign");
    real_free = dlsym(RTLD_NEXT, "__libc_free");
    busy--;
}

static uint32_t block_bucket(uintptr_t address) {
    return (uint32_t)((address >> 4) * 0x9E3779B97F4A7C15ull >> (64 - BLOCK_BUCKET_BITS));
}

static void write_all(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t n = write(fd, text, length);
        if (n <= 0) return;
        text += n;
        length -= (size_t)n;
    }
}

// Under `lock`. Writes one dump file; allocates nothing (snprintf of integers does not).
static void dump(const char *why) {
    char path[600], line[1024];
    snprintf(path, sizeof path, "%s.%04d.txt", out_prefix, ++dump_number);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    struct mallinfo2 info = mallinfo2();
    int64_t live = 0, blocks = 0;
    for (uint32_t i = 0; i < SITE_SLOTS; i++) {
        if (sites[i].depth == 0) continue;
        live += sites[i].live_bytes;
        blocks += sites[i].live_blocks;
    }
    int n = snprintf(line, sizeof line,
                     "# heap_sites dump %d (%s) at %.3f s: tracked live %lld bytes in %lld blocks; mallinfo2 in use %zu "
                     "(uordblks %zu hblkhd %zu arena %zu fordblks %zu); not recorded %llu\n",
                     dump_number, why, now() - started, (long long)live, (long long)blocks,
                     info.uordblks + info.hblkhd, info.uordblks, info.hblkhd, info.arena, info.fordblks,
                     (unsigned long long)dropped);
    write_all(fd, line, (size_t)n);
    write_all(fd, "# maps\n", 7);
    int maps = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (maps >= 0) {
        char buffer[4096];
        ssize_t r;
        while ((r = read(maps, buffer, sizeof buffer)) > 0) write_all(fd, buffer, (size_t)r);
        close(maps);
    }
    write_all(fd, "# sites\n", 8);
    for (uint32_t i = 0; i < SITE_SLOTS; i++) {
        site_t *s = &sites[i];
        if (s->depth == 0 || s->live_blocks == 0) continue;
        n = snprintf(line, sizeof line, "site %lld %lld %llu", (long long)s->live_bytes, (long long)s->live_blocks,
                     (unsigned long long)s->allocations);
        for (int f = 0; f < s->depth && n < (int)sizeof line - 24; f++)
            n += snprintf(line + n, sizeof line - (size_t)n, " %lx", (unsigned long)(uintptr_t)s->frames[f]);
        line[n++] = '\n';
        write_all(fd, line, (size_t)n);
    }
    close(fd);
}

static void record_alloc(void *p, size_t requested) {
    if (!p || busy || !ready) return;
    busy++;
    void *frames[DEPTH + SKIP];
    int depth = backtrace(frames, DEPTH + SKIP) - SKIP;
    if (depth < 1) depth = 0;
    uint64_t hash = 1469598103934665603ull;
    for (int i = 0; i < depth; i++) hash = (hash ^ (uint64_t)(uintptr_t)frames[i + SKIP]) * 1099511628211ull;
    if (hash == 0) hash = 1;
    size_t size = malloc_usable_size(p);
    (void)requested;
    pthread_mutex_lock(&lock);
    uint32_t slot = (uint32_t)(hash >> (64 - SITE_BITS)), probes = 0;
    while (sites[slot].depth != 0 && sites[slot].hash != hash && probes < SITE_SLOTS) {
        slot = (slot + 1) & (SITE_SLOTS - 1);
        probes++;
    }
    uint32_t node = 0;
    if (probes < SITE_SLOTS) {
        if (free_nodes) {
            node = free_nodes;
            free_nodes = nodes[node - 1].next;
        } else if (node_top < BLOCK_NODES) {
            node = ++node_top;
        }
    }
    if (node) {
        site_t *s = &sites[slot];
        if (s->depth == 0) {
            s->hash = hash;
            s->depth = depth > 0 ? depth : 1;
            if (depth > 0) memcpy(s->frames, frames + SKIP, sizeof(void *) * (size_t)depth);
        }
        s->live_bytes += (int64_t)size;
        s->live_blocks += 1;
        s->allocations += 1;
        block_t *b = &nodes[node - 1];
        b->address = (uintptr_t)p;
        b->size = size;
        b->site = slot;
        uint32_t bucket = block_bucket((uintptr_t)p);
        b->next = buckets[bucket];
        buckets[bucket] = node;
    } else {
        dropped++;
    }
    if (interval > 0) {
        double t = now();
        if (t >= next_dump) {
            next_dump = t + interval;
            dump("interval");
        }
    }
    pthread_mutex_unlock(&lock);
    busy--;
}

static void record_free(void *p) {
    if (!p || !ready) return;
    pthread_mutex_lock(&lock);
    uint32_t bucket = block_bucket((uintptr_t)p);
    uint32_t *link = &buckets[bucket];
    while (*link) {
        block_t *b = &nodes[*link - 1];
        if (b->address == (uintptr_t)p) {
            uint32_t node = *link;
            *link = b->next;
            sites[b->site].live_bytes -= (int64_t)b->size;
            sites[b->site].live_blocks -= 1;
            b->next = free_nodes;
            free_nodes = node;
            break;
        }
        link = &b->next;
    }
    pthread_mutex_unlock(&lock);
}

void *__libc_malloc(size_t size) {
    resolve();
    if (!real_malloc) return bootstrap_alloc(size);
    void *p = real_malloc(size);
    record_alloc(p, size);
    return p;
}

void *__libc_calloc(size_t count, size_t size) {
    resolve();
    if (!real_calloc) return bootstrap_alloc(count * size); // static storage: already zero
    void *p = real_calloc(count, size);
    record_alloc(p, count * size);
    return p;
}

void *__libc_memalign(size_t alignment, size_t size) {
    resolve();
    if (!real_memalign) return NULL;
    void *p = real_memalign(alignment, size);
    record_alloc(p, size);
    return p;
}

void __libc_free(void *p) {
    if (!p || from_bootstrap(p)) return;
    resolve();
    record_free(p);
    real_free(p);
}

void *__libc_realloc(void *p, size_t size) {
    resolve();
    if (p && from_bootstrap(p)) {
        void *q = __libc_malloc(size);
        if (q) memcpy(q, p, size); // the bootstrap block may be shorter: reads stay inside `bootstrap`
        return q;
    }
    record_free(p);
    void *q = real_realloc(p, size);
    if (q) record_alloc(q, size);
    else if (p && size) record_alloc(p, size); // failed: the old block lives on (its stack is now this one)
    return q;
}

// For programs that do not define malloc themselves.
void *malloc(size_t size) { return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { return __libc_calloc(count, size); }
void *realloc(void *p, size_t size) { return __libc_realloc(p, size); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t size) { return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(alignment, size);
    if (!p && size) return ENOMEM;
    *out = p;
    return 0;
}

static void at_exit(void) {
    if (!ready) return;
    pthread_mutex_lock(&lock);
    dump("exit");
    pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void start(void) {
    resolve();
    const char *prefix = getenv("HEAP_SITES_OUT");
    snprintf(out_prefix, sizeof out_prefix, "%s", prefix && *prefix ? prefix : "/tmp/heap_sites");
    const char *every = getenv("HEAP_SITES_INTERVAL");
    interval = every ? atof(every) : 0;
    sites = mmap(NULL, sizeof(site_t) * SITE_SLOTS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    buckets = mmap(NULL, sizeof(uint32_t) * BLOCK_BUCKETS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    nodes = mmap(NULL, sizeof(block_t) * BLOCK_NODES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (sites == MAP_FAILED || buckets == MAP_FAILED || nodes == MAP_FAILED) return;
    busy++;
    void *frames[4];
    backtrace(frames, 4); // loads the unwinder (it allocates) before anything is recorded
    busy--;
    started = now();
    next_dump = started + interval;
    ready = 1;
    atexit(at_exit);
}

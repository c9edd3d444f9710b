/*
 * soak_proc.h — what the C soaks (nui_soak.c, nui_tts_soak.c) read of their own process on Linux (/proc):
 * resident memory, our threads, open files.
 */
#ifndef SOAK_PROC_H
#define SOAK_PROC_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline long resident_bytes(void) {
    long pages = 0, resident = 0;
    FILE *file = fopen("/proc/self/statm", "r");
    if (!file) return 0;
    if (fscanf(file, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(file);
    return resident * sysconf(_SC_PAGESIZE);
}

/* Threads but libdispatch's workers (named "...qos..."), whose number the system varies with load. */
static inline int own_threads(void) {
    DIR *directory = opendir("/proc/self/task");
    if (!directory) return 0;
    int count = 0;
    for (struct dirent *entry; (entry = readdir(directory));) {
        if (entry->d_name[0] == '.') continue;
        char path[300], name[64] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", entry->d_name);
        FILE *file = fopen(path, "r");
        if (file) {
            if (!fgets(name, sizeof name, file)) name[0] = 0;
            fclose(file);
        }
        count += strstr(name, "qos") == NULL;
    }
    closedir(directory);
    return count;
}

static inline int entries(const char *path) {
    DIR *directory = opendir(path);
    if (!directory) return 0;
    int count = 0;
    for (struct dirent *entry; (entry = readdir(directory));) count += entry->d_name[0] != '.';
    closedir(directory);
    return count;
}

/* The figures over a run of COUNT dialogs or answers: resident memory, threads and open files after each, the
 * baseline after the 10th (the first fill caches: TLS store, allocator arenas, thread pools). */
struct run_figures {
    long baseline, peak, last;
    int threads_base, files_base, threads, files;
};

/* Samples after run `index` (from 0) of `count`; the baseline and the last sample wait half a second first, so
 * the run's background clean-up (0.1 s after its end) has finished. */
static inline void run_figures_sample(struct run_figures *f, int index, int count) {
    int base = index == (count > 10 ? 9 : 0);
    if (base || index == count - 1) {
        struct timespec pause = {0, 500 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    long rss = resident_bytes();
    f->threads = own_threads();
    f->files = entries("/proc/self/fd");
    if (base) { f->baseline = rss; f->threads_base = f->threads; f->files_base = f->files; }
    if (rss > f->peak) f->peak = rss;
    f->last = rss;
}

#endif

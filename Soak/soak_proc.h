/*
 * soak_proc.h — what the C soaks (nui_soak.c, nui_tts_soak.c) read of their own process on Linux (/proc):
 * resident memory, our threads, open files.
 */
#ifndef SOAK_PROC_H
#define SOAK_PROC_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
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

#endif

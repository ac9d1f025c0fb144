/* A scratch folder for the tests that read files: tmp_open makes a fresh folder under /tmp,
 * tmp_write puts a file in it, tmp_close empties and removes it. A test that cannot make its
 * files stops the program (exit 2): nothing after it could be trusted. */
#ifndef BERTH_TESTS_TMPFILE_H
#define BERTH_TESTS_TMPFILE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

struct tmp {
    char dir[64];
    char path[160]; /* the last path made by tmp_path or tmp_write */
};

static inline void tmp_open(struct tmp *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/berth-test-XXXXXX");
    if (!mkdtemp(t->dir)) {
        perror("mkdtemp");
        exit(2);
    }
}

/* DIR/name, in t->path (valid until the next tmp_path or tmp_write). */
static inline const char *tmp_path(struct tmp *t, const char *name)
{
    snprintf(t->path, sizeof t->path, "%s/%s", t->dir, name);
    return t->path;
}

/* Writes n bytes of s to DIR/name; returns the path (as tmp_path). */
static inline const char *tmp_write_n(struct tmp *t, const char *name, const char *s, size_t n)
{
    FILE *f = fopen(tmp_path(t, name), "wb");
    if (!f || fwrite(s, 1, n, f) != n || fclose(f)) {
        perror(t->path);
        exit(2);
    }
    return t->path;
}

/* Writes the string s to DIR/name; returns the path (as tmp_path). */
static inline const char *tmp_write(struct tmp *t, const char *name, const char *s)
{
    return tmp_write_n(t, name, s, strlen(s));
}

/* Removes every file in the folder, then the folder. */
static inline void tmp_close(struct tmp *t)
{
    DIR *d = opendir(t->dir);
    struct dirent *e;
    char p[400];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", t->dir, e->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    CHECK_I64(rmdir(t->dir), 0);
}

#endif

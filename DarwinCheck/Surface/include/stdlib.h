// Stand-in for <stdlib.h> (Libc-1725.0.11: include/stdlib.h and the malloc declarations it
// includes).
#ifndef STOWAGE_STANDIN_STDLIB_H
#define STOWAGE_STANDIN_STDLIB_H

#include <sys/types.h>

char *getenv(const char *);
void *malloc(size_t __size);
void *realloc(void *__ptr, size_t __size);
void free(void *);
char *realpath(const char *, char *);
void exit(int) __attribute__((__noreturn__));

#endif

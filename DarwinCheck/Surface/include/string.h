// Stand-in for <string.h> (Libc-1725.0.11: include/string.h, include/_string.h).
#ifndef STOWAGE_STANDIN_STRING_H
#define STOWAGE_STANDIN_STRING_H

#include <sys/types.h>

int memcmp(const void *__s1, const void *__s2, size_t __n);
char *strerror(int __errnum);
char *strdup(const char *__s1);

#endif

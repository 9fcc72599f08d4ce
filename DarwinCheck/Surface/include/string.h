// Stand-in for <string.h> (Libc-1725.0.11: include/string.h, include/_string.h).
#ifndef STOWAGE_STANDIN_STRING_H
#define STOWAGE_STANDIN_STRING_H

#include <sys/types.h>

int memcmp(const void *__s1, const void *__s2, size_t __n);
void *memcpy(void *__dst, const void *__src, size_t __n);
void *memset(void *__b, int __c, size_t __len);
char *strerror(int __errnum);
char *strdup(const char *__s1);

#endif

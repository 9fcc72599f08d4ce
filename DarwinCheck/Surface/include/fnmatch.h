// Stand-in for <fnmatch.h> (Libc-1725.0.11: include/fnmatch.h).
#ifndef STOWAGE_STANDIN_FNMATCH_H
#define STOWAGE_STANDIN_FNMATCH_H

#define FNM_PATHNAME 0x02

int fnmatch(const char *, const char *, int);

#endif

// Stand-in for <sys/resource.h> (xnu-11417.101.15: bsd/sys/resource.h): the core-dump limit the
// stowage command lowers before it ends itself by a signal (Sources/stowage/RunCommand.swift).
#ifndef STOWAGE_STANDIN_SYS_RESOURCE_H
#define STOWAGE_STANDIN_SYS_RESOURCE_H

#include <sys/types.h>

typedef __uint64_t rlim_t;  // bsd/sys/resource.h: rlim_t is 64 bits

#define RLIMIT_CORE 4  // the largest core file

struct rlimit {
    rlim_t rlim_cur;  // the current (soft) limit
    rlim_t rlim_max;  // the hard limit
};

int getrlimit(int, struct rlimit *);
int setrlimit(int, const struct rlimit *);

#endif
